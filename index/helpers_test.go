package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lorekeep/lore/store"
)

// openTemp opens a fresh index in a temporary directory and closes it at
// the end of the test.
func openTemp(t *testing.T) (*Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("Open(%q): %v", dir, err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, dir
}

func rec(ns, id, kind, title, body string, tags ...string) store.Record {
	return store.Record{NS: ns, ID: id, Kind: kind, Title: title, Body: body, Tags: tags}
}

func mustApply(t *testing.T, ix *Index, put []store.Record, del []Key, seq uint64) {
	t.Helper()
	if err := ix.Apply(put, del, seq); err != nil {
		t.Fatalf("Apply(%d puts, %d deletes, seq %d): %v", len(put), len(del), seq, err)
	}
}

func search(t *testing.T, ix *Index, q Query) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return hits
}

// ids renders hits as "ns:id" strings, in order.
func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.NS + ":" + h.ID
	}
	return out
}

func sameIDs(got []Hit, want ...string) bool {
	return slices.Equal(ids(got), want)
}

func sortedIDs(hits []Hit) []string {
	s := ids(hits)
	slices.Sort(s)
	return s
}

// genRecords makes n records of prose with a shared vocabulary, so
// searches have many hits with varied scores.
func genRecords(ns string, n int) []store.Record {
	words := []string{"dragon", "castle", "river", "mill", "fire", "winter", "sword", "queen",
		"harbor", "lantern", "orchard", "storm", "letter", "secret", "bridge", "forest"}
	out := make([]store.Record, n)
	for i := range n {
		body := ""
		for j := range 60 {
			body += words[(i*7+j*j)%len(words)] + " "
		}
		out[i] = store.Record{
			NS:      ns,
			ID:      fmt.Sprintf("rec-%06d", i),
			Kind:    []string{"character", "scene", "fact", "memory"}[i%4],
			Title:   words[i%len(words)] + " " + words[(i/3)%len(words)],
			Summary: "about the " + words[(i+5)%len(words)],
			Body:    body,
			Tags:    []string{fmt.Sprintf("ch-%d", i%12), "draft"},
		}
	}
	return out
}
