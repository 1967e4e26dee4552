package packet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// countingSearcher records the queries that reach the real index.
type countingSearcher struct {
	ix      *index.Index
	queries []string
}

// wantEachOnce fails t unless some query reached the index and none
// reached it twice.
func (c *countingSearcher) wantEachOnce(t *testing.T) {
	t.Helper()
	if len(c.queries) == 0 {
		t.Fatal("the packet searched nothing; the test needs a search")
	}
	for i, q := range c.queries {
		if slices.Contains(c.queries[:i], q) {
			t.Errorf("query %d reached the index again: %s\nall: %q", i, q, c.queries)
		}
	}
}

func (c *countingSearcher) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	c.queries = append(c.queries, fmt.Sprintf("%#v", q))
	return c.ix.Search(ctx, q)
}

// TestSplitSearchesOnce: a refused packet with a query, and the packets
// its split proposals build to check themselves, send each query to the
// index once; without the memo they search again, and propose the same.
func TestSplitSearchesOnce(t *testing.T) {
	ns := "n"
	recs := []store.Record{{NS: ns, ID: "ch-1", Kind: "chapter", Body: "the lamp " + fxProse(1, 50)}}
	var links []store.Link
	for i := range 3 {
		id := fmt.Sprintf("s-%d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "scene", Order: int64(i + 1), Body: "the lamp " + fxProse(uint64(10+i), 400)})
		links = append(links, store.Link{NS: ns, From: "ch-1", Rel: "contains", To: id})
	}
	for i := range 30 {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("c-%02d", i), Kind: "canon", Body: fmt.Sprintf("the lamp burns %d nights", i)})
	}
	env := fxOpen(t, recs, links, true)
	req := Request{NS: ns, Focus: []string{"ch-1"}, Query: "lamp nights", Budget: 900, Counter: fxCounter(t)}
	srch := &countingSearcher{ix: env.ix}
	_, err := Build(context.Background(), env.st, srch, req)
	var split *SplitError
	if !errors.As(err, &split) {
		t.Fatalf("Build: %v; want a SplitError", err)
	}
	srch.wantEachOnce(t)
	// Without the memo the proposals' builds search again, and propose
	// the same.
	searchMemoOn = false
	defer func() { searchMemoOn = true }()
	plain := &countingSearcher{ix: env.ix}
	_, err = Build(context.Background(), env.st, plain, req)
	var fresh *SplitError
	if !errors.As(err, &fresh) || !slices.Equal(fresh.Proposals, split.Proposals) || fresh.Need != split.Need {
		t.Errorf("with the memo: need %d, %q\nwithout: %v", split.Need, split.Proposals, err)
	}
	if len(plain.queries) <= len(srch.queries) {
		t.Errorf("without the memo %d searches, with it %d: the test does not exercise the memo", len(plain.queries), len(srch.queries))
	}
}

// TestSearchMemoPrefix: a smaller limit is served from a larger one's
// hits, exactly as the index would answer it; a larger limit searches.
func TestSearchMemoPrefix(t *testing.T) {
	var recs []store.Record
	for i := range 40 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Body: fmt.Sprintf("lamp %s", fxProse(uint64(i), 5+i%7))})
	}
	env := fxOpen(t, recs, nil, true)
	srch := &countingSearcher{ix: env.ix}
	m := memoized(srch)
	ctx := context.Background()
	q := index.Query{NS: "n", Text: "lamp", Limit: 30, AnyTerm: true}
	if _, err := m.Search(ctx, q); err != nil {
		t.Fatal(err)
	}
	q.Limit = 10
	got, err := m.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := env.ix.Search(ctx, q)
	if !slices.Equal(got, want) || len(srch.queries) != 1 {
		t.Errorf("limit 10 from the memo: %v, %d searches; want %v from one search", got, len(srch.queries), want)
	}
	q.Limit = 50 // more than the 40 records: searched, and then complete
	if _, err := m.Search(ctx, q); err != nil || len(srch.queries) != 2 {
		t.Errorf("limit 50: %v, %d searches; want a second search", err, len(srch.queries))
	}
	q.Limit = 200
	if got, _ := m.Search(ctx, q); len(got) != 40 || len(srch.queries) != 2 {
		t.Errorf("limit 200 after a complete result: %d hits, %d searches; want all 40 from the memo", len(got), len(srch.queries))
	}
}

// slowSearcher checks that it is called from one goroutine at a time,
// staying in each call long enough for a second caller to show.
type slowSearcher struct {
	ix *index.Index
	overlaps
}

func (s *slowSearcher) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	s.enter()
	defer s.leave()
	time.Sleep(time.Millisecond)
	return s.ix.Search(ctx, q)
}

// The memo calls its Searcher one search at a time, as Searcher
// promises, though the builds of a refused packet's proposals may search
// from two goroutines at once (splitkinds.go).
func TestSearchMemoCallsOneAtATime(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	inner := &slowSearcher{ix: env.ix}
	memo := memoized(inner)
	var wg sync.WaitGroup
	for _, text := range []string{"mill", "oath", "curfew", "debt"} {
		wg.Go(func() {
			if _, err := memo.Search(context.Background(), index.Query{NS: "novel-a", Text: text, Limit: 10}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := inner.overlapped.Load(); n > 0 {
		t.Errorf("%d of 4 searches ran beside another", n)
	}
}
