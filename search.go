package lore

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/vector"
)

// Hit is one search result.
type Hit struct {
	NS    string  `json:"ns"`
	ID    string  `json:"id"`
	Kind  string  `json:"kind"`
	Title string  `json:"title,omitempty"`
	Score float64 `json:"score"`
}

// Search finds records of one namespace by full text (BM25), never
// crossing into another namespace. Every hit is checked against the store,
// so an index that lags (a read-only open after a crash) shows no ghosts.
func (l *Lore) Search(ctx context.Context, q index.Query) ([]Hit, error) {
	if err := store.ValidNamespace(q.NS); err != nil {
		return nil, err
	}
	if err := l.catchUpShared(); err != nil {
		return nil, err
	}
	ix := l.searcher()
	if ix == nil && (q.Text != "" || len(q.Vector) == 0) {
		return nil, fmt.Errorf("search: the index %s is missing or unreadable: %w", filepath.Join(l.dir, IndexDir), ErrNoIndex)
	}
	var srch packet.Searcher = ix
	if len(q.Vector) > 0 {
		if err := vector.CheckQuery(q.Vector, 0); err != nil {
			return nil, err
		}
		srch = l.fusedSearcher(ix)
	}
	hits, err := srch.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	// One read of all the hits' heads (one transaction; on etcd one round
	// trip, not one per hit) drops the ghosts; the wall holds even against
	// a searcher that returned another namespace's record.
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	heads, err := l.st.Heads(q.NS, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*store.Record, len(heads))
	for i := range heads {
		byID[heads[i].ID] = &heads[i]
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		if head, ok := byID[h.ID]; ok && h.NS == q.NS {
			out = append(out, Hit{NS: h.NS, ID: h.ID, Kind: head.Kind, Title: head.Title, Score: h.Score})
		}
	}
	return out, nil
}

// searcher is what searches run on: the index (in a writable open, one
// that heals: see healing), or for a lagging read-only open its stand-in
// (index_lag.go); nil without an index.
func (l *Lore) searcher() packet.Searcher {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.catchUpWaitingLocked()
	switch {
	case l.lag != nil:
		return l.lag
	case l.ix != nil && !l.st.ReadOnly():
		return healing{l: l, ix: l.ix}
	case l.ix != nil:
		return l.ix
	}
	return nil
}

// noSearch stands in for a missing index when a packet has no query.
type noSearch struct{}

func (noSearch) Search(context.Context, index.Query) ([]index.Hit, error) { return nil, nil }
