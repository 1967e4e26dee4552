package store

import (
	"slices"
	"testing"
)

// TestKeptFoundByTheirKeys: keptHeads and keptNeighbors build their keys
// by hand, into one buffer, so that a lookup allocates nothing; they must
// spell what cacheKey and neighborsKey spell when the entries are kept.
// Were the two to drift apart, every lookup would miss and reads would
// still be right, only slower: no other test would see it.
func TestKeptFoundByTheirKeys(t *testing.T) {
	var c readCache
	g, ok := c.begin()
	if !ok {
		t.Fatal("a fresh cache says a write runs")
	}
	ns := "ns/a b"
	ids := []string{"a", "D1:3", "id with spaces", "ünïcode", ""}
	var heads []Record
	for _, id := range ids {
		heads = append(heads, Record{NS: ns, ID: id, Title: "title of " + id})
	}
	c.keepHeads(g, heads, false)
	out, found := make([]Record, len(ids)), make([]bool, len(ids))
	if miss := c.keptHeads(g, ns, ids, false, out, found); len(miss) > 0 {
		t.Fatalf("kept heads %q missed by keptHeads", miss)
	}
	for i, id := range ids {
		if !found[i] || out[i].Title != "title of "+id {
			t.Errorf("head %q: found %v, title %q", id, found[i], out[i].Title)
		}
	}
	if miss := c.keptHeads(g, "ns", ids[:1], false, out[:1], found[:1]); !slices.Equal(miss, ids[:1]) {
		t.Errorf("another namespace's lookup missed %q; want %q", miss, ids[:1])
	}

	for _, follow := range []map[string]bool{nil, {"next": true}, {"next": true, "pov": true}} {
		relsK := relsKey(follow)
		byKey := map[string][]Neighbor{}
		for _, id := range ids {
			byKey[neighborsKey(ns, id, relsK)] = []Neighbor{{ID: "nb of " + id}}
		}
		c.keepNeighbors(g, byKey)
		got := map[string][]Neighbor{}
		if miss := c.keptNeighbors(g, ns, ids, relsK, got); len(miss) > 0 {
			t.Fatalf("relations %q: kept neighbour lists %q missed by keptNeighbors", relsK, miss)
		}
		for _, id := range ids {
			if len(got[id]) != 1 || got[id][0].ID != "nb of "+id {
				t.Errorf("relations %q, record %q: neighbours %v", relsK, id, got[id])
			}
		}
	}
}
