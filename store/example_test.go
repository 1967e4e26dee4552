package store_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/lorekeep/lore/store"
)

func Example() {
	dir, err := os.MkdirTemp("", "lore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	s, err := store.Open(filepath.Join(dir, "lore.bolt"), &store.Options{Now: now})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	res, err := s.PutMany([]store.Record{
		{NS: "novel/one", ID: "mara", Kind: "character", Body: "Mara keeps the lighthouse."},
		{NS: "novel/one", ID: "lamp", Kind: "canon", Body: "The lamp has not been lit in years."},
	}, []store.Link{{NS: "novel/one", From: "mara", Rel: "keeps", To: "lamp"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res {
		fmt.Println(r.ID, r.Status, r.Version)
	}
	again, _ := s.Put(store.Record{NS: "novel/one", ID: "mara", Kind: "character", Body: "Mara keeps the lighthouse."})
	fmt.Println("again:", again.Status)

	near, _ := s.Neighbors("novel/one", "mara", 1, nil)
	for _, n := range near {
		fmt.Println("neighbour:", n.ID, "via", n.Via.Rel)
	}
	_, err = s.Put(store.Record{NS: "Novel", ID: "x"})
	fmt.Println(err)
	// Output:
	// mara added 1
	// lamp added 1
	// again: unchanged
	// neighbour: lamp via keeps
	// invalid input: namespace "Novel" contains 'N'; want segments of [a-z0-9][a-z0-9._-]* joined by "/", at most 128 bytes, no ".."
}
