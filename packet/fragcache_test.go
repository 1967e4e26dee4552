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
	fragments.Lock()
	clear(fragments.counts)
	fragments.bytes = 0
	fragments.Unlock()
	if _, third := fxBuild(t, env, req); !bytes.Equal(first, third) {
		t.Errorf("a build after the cache was emptied differs from the first")
	}
}
