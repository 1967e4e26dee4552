package packet

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/lorekeep/lore/index"
)

// searchMemo answers the searches of one request's builds: the packet
// itself and, when it is refused, the packets its split proposals build
// to check themselves (each searches what the refused packet searched).
// A result is served again for the same query at the same or a smaller
// limit: hits come in one fixed order (score, then id), so the best n are
// a prefix of the best m > n. A refused packet at a million records
// otherwise repeats its search, the largest part of its cost, up to eight
// times.
type searchMemo struct {
	inner Searcher
	mu    sync.Mutex
	found map[string]memoHits // by the query without its limit
	// calling lets one inner search run at a time, as Searcher promises
	// its callers, though a refused packet's proposals may build beside
	// each other (splitkinds.go).
	calling sync.Mutex
}

type memoHits struct {
	limit int // the limit searched with
	hits  []index.Hit
}

// searchMemoOn is false only in tests that compare builds without it.
var searchMemoOn = true

// memoized wraps srch in a searchMemo unless it is one already.
func memoized(srch Searcher) Searcher {
	if _, ok := srch.(*searchMemo); ok || srch == nil || !searchMemoOn {
		return srch
	}
	return &searchMemo{inner: srch, found: map[string]memoHits{}}
}

func (m *searchMemo) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	limit := q.Limit
	q.Limit = 0
	key := fmt.Sprintf("%#v", q) // every field but the limit
	if limit == 0 {
		limit = index.DefaultLimit
	}
	m.mu.Lock()
	f, ok := m.found[key]
	m.mu.Unlock()
	// A result shorter than its limit holds every match.
	if ok && (limit <= f.limit || len(f.hits) < f.limit) {
		return slices.Clone(f.hits[:min(limit, len(f.hits))]), nil
	}
	q.Limit = limit
	m.calling.Lock()
	hits, err := m.inner.Search(ctx, q)
	m.calling.Unlock()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	// Kept as returned, not copied: a packet only reads its hits, and the
	// copy each search would make is wasted on the packets (most) that
	// are not refused. What the memo serves again is a copy.
	if cur, ok := m.found[key]; !ok || cur.limit < limit {
		m.found[key] = memoHits{limit: limit, hits: hits}
	}
	m.mu.Unlock()
	return hits, nil
}
