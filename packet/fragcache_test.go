package packet

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/lorekeep/lore/store"
)

// The second build of a packet prices its records from the process's
// fragment cache, and its bytes are the first build's. A cache started
// again empty (as when it is full) gives the same bytes too. (The counts
// are the process's: no test of this package runs in parallel.)
func TestFragmentCacheSharedAcrossPackets(t *testing.T) {
	ns := "talk"
	var recs []store.Record
	var links []store.Link
	for i := range 40 {
		id := fmt.Sprintf("t%02d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "turn", Title: "turn " + id, Order: int64(i + 1),
			Body: fmt.Sprintf("On day %d we walked to the lake and talked about the otters.", i)})
		if i > 0 {
			links = append(links, store.Link{NS: ns, From: fmt.Sprintf("t%02d", i-1), Rel: "next", To: id})
		}
	}
	env := fxOpen(t, recs, links, true)
	req := Request{NS: ns, Query: "otters at the lake", Budget: 600, Profile: "agent"}
	_, first := fxBuild(t, env, req)
	hits, misses := FragmentStats()
	_, second := fxBuild(t, env, req)
	hits2, misses2 := FragmentStats()
	if !bytes.Equal(first, second) {
		t.Fatalf("the second build differs from the first:\n%s\n---\n%s", first, second)
	}
	if hits2-hits == 0 {
		t.Errorf("the second build took no fragment count from the cache (hits %d -> %d)", hits, hits2)
	}
	if misses2 != misses {
		t.Errorf("the second build counted %d fragments again; want every one from the cache", misses2-misses)
	}
	resetFragments()
	if _, third := fxBuild(t, env, req); !bytes.Equal(first, third) {
		t.Errorf("a build after the cache was emptied differs from the first")
	}
}

// When the newer generation of a shard fills it becomes the older: a
// count kept before is still served (and carried forward), one kept two
// fillings ago is gone, and the shard never holds more than two
// generations.
func TestFragmentGenerations(t *testing.T) {
	resetFragments()
	defer resetFragments()
	first := keyOf("o200k_base", "the first text")
	sh := shardOf(first)
	// fill keeps n counts of new texts in first's shard.
	filled := 0
	fill := func(n int) {
		for kept := 0; kept < n; filled++ {
			if k := keyOf("o200k_base", fmt.Sprint("filler ", filled)); shardOf(k) == sh {
				keepFragment(k, filled)
				kept++
			}
		}
	}
	keepFragment(first, 3)
	fill(shardFragments)
	if n, ok := lookupFragment(first); !ok || n != 3 {
		t.Fatalf("after one filling: %d, %v; want 3 from the older generation", n, ok)
	}
	fill(2 * shardFragments)
	sh.Lock()
	total := len(sh.counts) + len(sh.older)
	sh.Unlock()
	if _, ok := lookupFragment(first); ok {
		t.Error("a count kept two fillings ago is still served")
	}
	if total > 2*shardFragments {
		t.Errorf("%d counts kept in a shard; want at most %d", total, 2*shardFragments)
	}
	if keyOf("o200k_base", "a") == keyOf("cl100k_base", "a") || keyOf("o200k_base", "a") == keyOf("o200k_base", "b") {
		t.Error("keys of different encodings or texts are equal")
	}
}

// keyOf is the cache key of text under encoding, as a counter of that
// encoding makes it.
func keyOf(encoding, text string) fragmentKey { return keyWith(seedsOf(encoding), text) }
