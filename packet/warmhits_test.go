package packet

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// The bodies warmed after the search are counted in the chunks a packet
// renders them in: every chunk below the heading of an entry kept in
// full is in the fragment cache before the packet is built, and the
// packet is the one built without them.
func TestWarmHitsCountsBodiesAsRendered(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	ns := "talk"
	bodies := []string{
		"Otters float on their backs.\n\nThey hold hands while they sleep.",
		"# Heading of its own\nAn otter's den is a holt.\n\n## And a second\nLined with grass.\n",
		"  Indented first line about otters.\n- a list of otters\n/ a slash line\nThe end.",
		"Émile watched the otters.\nThen went home.",
	}
	var recs []store.Record
	var hits []index.Hit
	for i, body := range bodies {
		id := fmt.Sprintf("t%02d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "turn", Title: "turn " + id, Order: int64(i + 1), Body: body})
		hits = append(hits, index.Hit{NS: ns, ID: id})
	}
	env := fxOpen(t, recs, nil, true)
	req := Request{NS: ns, Query: "otters", Budget: 2000, Profile: "agent", Format: "md", Counter: fxCounter(t)}
	_, want := fxBuild(t, env, req)

	resetFragments()
	defer resetFragments()
	g := &gatherer{src: env.st, req: req}
	done := g.warmHits(hits)
	if done == nil {
		t.Fatal("the warm-up did not start")
	}
	<-done
	checked := 0
	for _, r := range recs {
		e := Entry{ID: r.ID, Kind: r.Kind, Title: r.Title, Form: "full", Text: r.Body}
		first := true
		for chunk := range chunks(mdEntry(e, true)) {
			if first {
				first = false
				if !strings.HasPrefix(r.Body, "É") {
					continue // the heading line: the warm-up counts bodies alone
				}
			}
			if _, ok := lookupFragment(keyOf("o200k_base", chunk)); !ok && !strings.HasPrefix(chunk, "[") {
				t.Errorf("%s: chunk %q of its entry was not warmed", r.ID, chunk)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no chunk checked")
	}
	if _, got := fxBuild(t, env, req); string(got) != string(want) {
		t.Errorf("the packet after the warm-up differs:\n%s\n---\n%s", got, want)
	}
}
