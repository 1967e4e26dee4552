package packet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// Build a scene packet from a store and print the report a CLI writes on
// stderr. The style guide is dropped (rank 8); the scene, its POV
// character and the place it touches stay.
func Example() {
	dir, err := os.MkdirTemp("", "lore-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := store.Open(filepath.Join(dir, "lore.bolt"), &store.Options{Counters: []store.Counter{counter}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	_, err = st.PutMany([]store.Record{
		{NS: "novel", ID: "scene-1", Kind: "scene", Title: "The ferry", Order: 1, Meta: map[string]string{"pov": "ada"},
			Body: "Ada waits at the ferry in the rain; the ferryman will not take her coin."},
		{NS: "novel", ID: "ada", Kind: "character", Title: "Ada", Body: "Ada, a clerk who lies badly."},
		{NS: "novel", ID: "ferry", Kind: "location", Title: "The ferry", Body: "A flat ferry on a rope across the brown river."},
		{NS: "novel", ID: "style", Kind: "style", Title: "Style", Body: strings.Repeat("Short sentences. Concrete nouns. No adverbs. ", 30)},
	}, []store.Link{{NS: "novel", From: "scene-1", Rel: "set_in", To: "ferry"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := packet.Build(context.Background(), st, nil, packet.Request{
		NS: "novel", Focus: []string{"scene-1"}, Budget: 400, Task: "draft", Counter: counter,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(p.Report())
	fmt.Println("exit", packet.ExitCode(p, nil))
	// Output:
	// Packed: 3 records, 157 tokens (39% of budget 400)
	// Deferred: 1 record, 311 tokens freed:
	//      311  style  (rank 8, dropped: over budget)
	// exit 2
}
