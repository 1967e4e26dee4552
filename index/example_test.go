package index_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

func ExampleIndex_Search() {
	tmp, err := os.MkdirTemp("", "lore-index-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	ix, err := index.Open(filepath.Join(tmp, "index"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	// Records and deletes from the store's change log, up to seq 3.
	err = ix.Apply([]store.Record{
		{NS: "novel", ID: "mara", Kind: "character", Title: "Mara Voss", Body: "Keeper of the lighthouse."},
		{NS: "novel", ID: "storm", Kind: "scene", Title: "The storm", Body: "The lighthouse goes dark."},
		{NS: "other", ID: "mara", Kind: "character", Title: "Mara", Body: "A lighthouse, elsewhere."},
	}, nil, 3)
	if err != nil {
		log.Fatal(err)
	}

	hits, err := ix.Search(context.Background(), index.Query{NS: "novel", Text: "lighthouse"})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Println(h.NS, h.ID)
	}
	chars, _ := ix.Search(context.Background(), index.Query{NS: "novel", Kinds: []string{"character"}})
	fmt.Println(len(chars), chars[0].ID)
	wm, _ := ix.Watermark()
	fmt.Println("watermark", wm)
	// Output:
	// novel mara
	// novel storm
	// 1 mara
	// watermark 3
}
