package lore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// openLagging brings a read-only open's lagging index up to the store
// when it can take the index's write lock at once: the index is derived,
// so a reader may write it, while the bbolt file stays read-only. Then it
// reopens the index read-only, so other readers are not locked out. When
// another process holds the index, the results are flagged as unchecked.
func (l *Lore) openLagging(dir string, last uint64) error {
	l.ix.Close()
	l.ix = nil
	if wix, err := index.Open(dir, &index.Options{LockTimeout: time.Millisecond}); err == nil {
		l.ix = wix
		serr := l.catchUp()
		l.ix = nil
		if cerr := wix.Close(); serr == nil {
			serr = cerr
		}
		if serr != nil {
			return fmt.Errorf("index %s lags the store and could not catch up: %w", dir, serr)
		}
	}
	ix, err := index.Open(dir, &index.Options{ReadOnly: true, LockTimeout: l.lockTimeout})
	if errors.Is(err, index.ErrCorrupt) || errors.Is(err, index.ErrNotFound) {
		// As when the first open fails: reads work without an index, and
		// search and queries say so.
		l.stale = true
		return nil
	}
	if err != nil {
		return err
	}
	l.ix = ix
	wm, err := ix.Watermark()
	if err != nil {
		return err
	}
	l.stale = wm != last
	if wm < last {
		// Failing that, search sees the missing records through a
		// private index of them; without one, results stay flagged.
		l.lag, _ = l.newLagIndex(ix, wm)
	}
	return nil
}

// Stale reports whether the index lags the store (possible only in a
// read-only open after a crash; a writable open catches up first).
func (l *Lore) Stale() bool { return l.stale }

// indexLags says that a write was saved but the index could not take it
// in: err is why. The change log brings the index up later.
func indexLags(err error) error { return &lagsError{err: err} }

// lagsError is indexLags's error: it matches ErrIndexLags, so a caller
// can tell that the write stands, and err, so it can tell why.
type lagsError struct{ err error }

func (e *lagsError) Error() string {
	return "saved, but the index lags (it catches up on the next write or open): " + e.err.Error()
}

func (e *lagsError) Unwrap() []error { return []error{ErrIndexLags, e.err} }

// lagIndex answers searches of a read-only open whose index lags the store
// and could not be caught up (another reader held it): the records the
// change log touched past the index's watermark are indexed afresh in a
// private index, and their entries in the shared index are ignored, so no
// committed record is missing from a search or a packet. Scores of the two
// indexes are each BM25, over different collections; hits are merged by
// score.
type lagIndex struct {
	main    *index.Index
	fresh   *index.Index
	touched map[index.Key]bool
	dir     string // the private index's folder, removed on close
}

// newLagIndex indexes what the change log holds past wm in a private
// index under the system's temporary folder.
func (l *Lore) newLagIndex(main *index.Index, wm uint64) (*lagIndex, error) {
	touched := map[index.Key]bool{}
	var keys []index.Key
	var last uint64
	for {
		changes, err := l.st.Changes(wm, 2000)
		if err != nil {
			return nil, err
		}
		if len(changes) == 0 {
			break
		}
		for _, c := range changes {
			k := index.Key{NS: c.NS, ID: c.ID}
			if c.Op != store.OpLink && c.Op != store.OpUnlink && !touched[k] {
				touched[k] = true
				keys = append(keys, k)
			}
		}
		wm, last = changes[len(changes)-1].Seq, changes[len(changes)-1].Seq
	}
	puts, _, err := l.readTouched(keys)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lore-lag-index-")
	if err != nil {
		return nil, fmt.Errorf("index of the records the shared index lacks: %w", err)
	}
	fresh, err := index.Open(filepath.Join(dir, "index"), nil)
	if err == nil {
		if err = fresh.Apply(puts, nil, last); err != nil {
			fresh.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("index of the records the shared index lacks: %w", err)
	}
	return &lagIndex{main: main, fresh: fresh, touched: touched, dir: dir}, nil
}

// Search merges the shared index's hits, less the touched records, with
// the private index's, best score first, then namespace and id.
func (x *lagIndex) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	limit := cmp.Or(q.Limit, index.DefaultLimit)
	wide := q
	wide.Limit = limit + len(x.touched) // room for the entries dropped below
	hits, err := x.main.Search(ctx, wide)
	if err != nil {
		return nil, err
	}
	hits = slices.DeleteFunc(hits, func(h index.Hit) bool { return x.touched[index.Key{NS: h.NS, ID: h.ID}] })
	more, err := x.fresh.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	hits = append(hits, more...)
	slices.SortStableFunc(hits, func(a, b index.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID))
	})
	return hits[:min(len(hits), limit)], nil
}

// close closes the private index and removes its folder.
func (x *lagIndex) close() error {
	err := x.fresh.Close()
	if rerr := os.RemoveAll(x.dir); err == nil {
		err = rerr
	}
	return err
}
