package lore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/demo"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// Open a store, keep a few linked records, and find them again.
func ExampleOpen() {
	tmp, err := os.MkdirTemp("", "lore-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, ".lore")
	if err := lore.Init(dir); err != nil {
		log.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	ctx := context.Background()
	res, err := l.PutMany(ctx, []store.Record{
		{NS: "agent", ID: "pref-tea", Kind: "memory", Body: "The user prefers green tea, no sugar."},
		{NS: "agent", ID: "user", Kind: "person", Title: "The user", Pinned: true},
	}, []store.Link{{NS: "agent", From: "pref-tea", Rel: "about", To: "user"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].ID, res[0].Status)

	hits, err := l.Search(ctx, index.Query{NS: "agent", Text: "tea"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("hit:", hits[0].ID)

	nbrs, err := l.Neighbors("agent", "user", 1, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("neighbour:", nbrs[0].ID, "via", nbrs[0].Via.Rel)
	// Output:
	// pref-tea added
	// hit: pref-tea
	// neighbour: pref-tea via about
}

// Build a Context Packet from the bundled demo canon.
func ExampleLore_Packet() {
	tmp, err := os.MkdirTemp("", "lore-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, ".lore")
	if err := lore.Init(dir); err != nil {
		log.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if _, err := demo.Load(ctx, l); err != nil {
		log.Fatal(err)
	}
	p, err := l.Packet(ctx, packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-03"}, Budget: 8000})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("first record:", p.Records[0].ID)
	fmt.Println("within budget:", p.Tokens <= p.Budget)
	// Output:
	// first record: scene-03
	// within budget: true
}
