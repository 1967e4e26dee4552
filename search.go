package lore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/numfmt"
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
	if err := l.catchUp(); err != nil {
		return nil, err
	}
	ix := l.searcher()
	if ix == nil && (q.Text != "" || len(q.Vector) == 0) {
		return nil, fmt.Errorf("search: the index %s is missing or unreadable; run `lore reindex`: %w", filepath.Join(l.dir, IndexDir), ErrNoIndex)
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
	l.catchUpLocked()
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

// healing searches ix and, when ix turns out damaged (ErrCorrupt: a
// segment bleve cannot read), rebuilds the index from the store and
// searches again, once. A writable open holds the store's lock, so a
// server could not otherwise get its index back: `lore reindex` would
// wait for that lock.
type healing struct {
	l  *Lore
	ix *index.Index
}

func (h healing) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	hits, err := h.ix.Search(ctx, q)
	if !errors.Is(err, index.ErrCorrupt) {
		return hits, err
	}
	h.l.mu.Lock()
	if h.l.ix == h.ix { // not rebuilt meanwhile by another search
		if rerr := h.l.rebuildIndexContext(ctx); rerr != nil {
			h.l.mu.Unlock()
			return nil, fmt.Errorf("%w; rebuilding it from the store failed: %v", err, rerr)
		}
	}
	ix := h.l.ix
	h.l.mu.Unlock()
	if ix == nil {
		return nil, err
	}
	return ix.Search(ctx, q)
}

// Stale reports whether the index lags the store (possible only in a
// read-only open after a crash; a writable open catches up first).
func (l *Lore) Stale() bool { return l.stale }

// Check verifies the store (bbolt's own consistency, link directions, the
// change log, dangling links, cached token counts) and the index (its
// watermark, and then that it holds exactly the store's records), and
// says in words what is wrong.
//
// On an etcd store, where other hosts write meanwhile, the check is at
// one revision: the store's last when the check starts. The store is
// checked as it was then, and the index, caught up first, must hold at
// least that revision.
func (l *Lore) Check() ([]store.Problem, error) {
	last, err := l.st.LastSeq()
	if err != nil {
		return nil, err
	}
	var src store.Backend = l.st
	if st, ok := l.st.(*store.Store); ok && l.shared {
		if err := l.catchUp(); err != nil {
			return nil, err
		}
		src = st.At(last)
	}
	probs, err := src.Check()
	if err != nil {
		return nil, err
	}
	if l.dir != "" {
		left, err := index.Leftovers(filepath.Join(l.dir, IndexDir))
		if err != nil {
			return nil, err
		}
		for _, d := range left {
			probs = append(probs, store.Problem{Severity: store.SeverityWarning, What: fmt.Sprintf(
				"%s (%s bytes) is left by an index build that was stopped (or is running now); the next `lore reindex` removes it",
				d.Path, numfmt.Thousands(d.Bytes))})
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.catchUpLocked()
	if l.ix == nil {
		probs = append(probs, store.Problem{What: "the search index is missing or unreadable; `lore reindex` rebuilds it"})
		return probs, nil
	}
	wm, err := l.ix.Watermark()
	if err != nil {
		probs = append(probs, store.Problem{What: fmt.Sprintf("the index watermark cannot be read (%v); `lore reindex` rebuilds the index", err)})
	} else if wm != last && !(l.shared && wm > last) {
		probs = append(probs, store.Problem{What: fmt.Sprintf("the index holds changes up to %d but the store is at %d; a writable open (any write, or `lore reindex`) catches it up", wm, last)})
	} else if wm == last {
		// Only an index at the store's revision can be compared with it
		// record by record.
		keyProbs, err := indexKeyProblems(l.ix, src)
		if err != nil {
			return nil, err
		}
		probs = append(probs, keyProbs...)
	}
	return probs, nil
}

// IndexWatermark is the last change-log sequence number the index holds
// (on etcd, a revision); ErrNoIndex when there is no index.
func (l *Lore) IndexWatermark() (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.catchUpLocked()
	if l.ix == nil {
		return 0, ErrNoIndex
	}
	return l.ix.Watermark()
}

// noSearch stands in for a missing index when a packet has no query.
type noSearch struct{}

func (noSearch) Search(context.Context, index.Query) ([]index.Hit, error) { return nil, nil }
