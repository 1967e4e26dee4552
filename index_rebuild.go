package lore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// rebuildIndex builds the index in a temporary folder and swaps it
// in; once ctx is done it stops before the swap, so the old index folder
// stays as it was (the next open uses it or rebuilds it).
func (l *Lore) rebuildIndex(ctx context.Context) error {
	dir := filepath.Join(l.dir, IndexDir)
	if l.ix != nil {
		// A close that fails (a damaged index can) does not stop the
		// rebuild: the new index replaces the old one's folder whole.
		_ = l.ix.Close()
		l.ix = nil
	}
	seq, err := l.st.LastSeq()
	if err != nil {
		return err
	}
	progress := store.ProgressFrom(ctx)
	total := 0
	if st, err := l.st.Stats(""); err == nil {
		total = st.Records
	}
	src := func(fn func(store.Record) error) error {
		done := 0
		err := l.st.ForEach("", func(r store.Record) error {
			if ctx.Err() != nil {
				return fmt.Errorf("reindex cancelled, the old index is kept: %w", context.Cause(ctx))
			}
			if done++; done%256 == 0 {
				progress("reindexing", done, max(total, done))
			}
			return fn(r)
		})
		progress("reindexing", done, max(total, done))
		return err
	}
	if err := index.Rebuild(dir, src, seq); err != nil {
		if ix, oerr := index.Open(dir, nil); oerr == nil {
			l.ix = ix // the old index, untouched by the failed build
		}
		return err
	}
	ix, err := index.Open(dir, nil)
	if err != nil {
		return err
	}
	l.ix = ix
	return nil
}

// Reindex rebuilds the index from the store alone (`lore reindex`).
func (l *Lore) Reindex() error { return l.ReindexContext(context.Background()) }

// ReindexContext is Reindex that stops once ctx is done, keeping the old
// index (the new one is built aside and swapped in only when complete).
func (l *Lore) ReindexContext(ctx context.Context) error {
	if l.st.ReadOnly() {
		return fmt.Errorf("reindex: %w", store.ErrReadOnly)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rebuildIndex(ctx)
}

// healLocked rebuilds the index from the store when err says it can no
// longer be read (a damaged segment) and the store is writable: the index
// is derived, and the store holds every write. Other errors pass through;
// l.mu is held.
func (l *Lore) healLocked(ctx context.Context, err error) error {
	if errors.Is(err, index.ErrCorrupt) && !l.st.ReadOnly() {
		return l.rebuildIndex(ctx)
	}
	return err
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
		if rerr := h.l.rebuildIndex(ctx); rerr != nil {
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
