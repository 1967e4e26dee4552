package packet

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	g := &gatherer{src: env.st, req: req, bg: startHelpers(t.Context())}
	defer g.bg.stop()
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

// slowBodies is the store with reads of bodies that take a while, and a
// count of those under way.
type slowBodies struct {
	*store.Store
	inFlight atomic.Int32
}

func (s *slowBodies) Bodies(ns string, ids []string) (map[string]string, error) {
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	time.Sleep(30 * time.Millisecond)
	return s.Store.Bodies(ns, ids)
}

// cancelAfterSearch cancels the build once its first search is made.
type cancelAfterSearch struct {
	Searcher
	cancel context.CancelFunc
}

func (c cancelAfterSearch) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	defer c.cancel()
	return c.Searcher.Search(ctx, q)
}

// No goroutine of a build reads the store after Build has returned, even
// when it returns early (here: cancelled once its search is made, while
// the best hits' bodies are being read on another goroutine): a caller
// may close the store then.
func TestBuildReturnsAfterItsReads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	src := &slowBodies{Store: env.st}
	req := fxSceneRequest(8000)
	req.Query, req.Format, req.Counter = "fire at the mill", "md", fxCounter(t)
	if _, err := Build(t.Context(), src, env.ix, req); err != nil {
		t.Fatalf("the build itself: %v", err)
	}
	for range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		_, err := Build(ctx, src, cancelAfterSearch{env.ix, cancel}, req)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Build cancelled after its search = %v, want context.Canceled", err)
		}
		if n := src.inFlight.Load(); n != 0 {
			t.Fatalf("Build returned with %d reads of bodies still under way", n)
		}
	}
}
