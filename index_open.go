package lore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// The index's lifecycle, in one vocabulary.
//
// The bleve index (package index) is derived from the store: it holds the
// store's records as of its watermark, the last change-log seq it was
// given. The store is the truth; these operations keep the index up with
// it, each named by one word and kept in one index_ file:
//
//   - open (index_open.go: openIndex): Open opens the index beside the
//     store. A writable open rebuilds an index that is missing, damaged,
//     of an older format, or ahead of the store (a store restored from an
//     older backup), and catches up one that is behind (a writer died
//     between its commit and its index update). A read-only open works
//     without an index it cannot read, and Stale says so. An etcd store's
//     index is always writable; when another process on the host holds
//     it, the open builds a private one (lore_url.go).
//   - rebuild (index_rebuild.go: rebuildIndex, ReindexContext): build the
//     index whole from the store's records, aside, and swap it in. Heal
//     (healLocked, healing) is the rebuild a writable open does by itself
//     when a search or a catch-up finds the index damaged
//     (index.ErrCorrupt), since it holds the store lock that `lore
//     reindex` would wait for.
//   - catch up (index_catchup.go: catchUp, catchUpLocked, catchUpStep):
//     apply the change log past the watermark, in steps of at most
//     stepRecords records, each one Apply that moves the watermark with
//     the records it brings. A log compacted past the watermark (etcd)
//     rebuilds instead.
//   - behind (index_behind.go): after a write (afterWrite), a bbolt store
//     returns at the commit and the updater goroutine catches up behind it
//     (catchUpBehind, runUpdater); every read of the index first catches
//     up what the updater has not yet (catchUpWaitingLocked), so a read
//     sees every write that returned, and Flush waits for the updater. An
//     etcd store and Import catch up before returning (catchUpNow); an
//     etcd store also catches up on its watch of the cluster and before
//     each read (catchUpShared).
//   - lag (index_lag.go): the index is behind and could not catch up. A
//     write whose catch-up failed still stands: its error (indexLags)
//     matches ErrIndexLags, and the next write or open catches up. A read-only
//     open whose index is behind catches it up when it can take the
//     index's write lock at once (openLagging); failing that, it indexes
//     the missing records in a private index (lagIndex) that search
//     merges in, and Stale reports true.
//   - check (index_check.go: Check): compare the index with the store, its
//     watermark first, then record by record.
//
// Locks. l.mu serialises all that touches l.ix: every read of the index,
// every catch-up step, rebuild and heal, and Close. The updater's l.upd.mu
// guards its queue of waiting writes; it is taken under l.mu
// (catchUpWaitingLocked) or alone, never l.mu under it, and a writer waits
// on it for room among writesAhead without holding l.mu. Across
// processes, the index's own file lock (index.Options.LockTimeout) lets
// in one writer or many readers.

// openIndex opens the derived index and catches it up with the store. A
// missing or unreadable index is rebuilt from the store (writable opens),
// and so is one of an older format, once, telling progress; a read-only
// open works without an index, flagging results as unchecked, also when
// the index turns unreadable as it is caught up, and searches an index of
// an older format as it is.
func (l *Lore) openIndex(readOnly bool, progress store.Progress) error {
	dir := filepath.Join(l.dir, IndexDir)
	rebuild := func() error {
		return l.rebuildIndex(store.WithProgress(context.Background(), progress))
	}
	ix, err := index.Open(dir, &index.Options{ReadOnly: readOnly, LockTimeout: l.lockTimeout})
	switch {
	case err == nil && !readOnly && ix.Outdated():
		l.ix = ix
		if rerr := rebuild(); rerr != nil {
			return fmt.Errorf("index %s is of an older format and could not be rebuilt: %w", dir, rerr)
		}
		return nil
	case err == nil:
	case errors.Is(err, index.ErrLocked):
		return err
	case readOnly:
		// Reads work without an index; search and queries say so.
		l.stale = true
		return nil
	case errors.Is(err, index.ErrNotFound), errors.Is(err, index.ErrCorrupt):
		if rerr := rebuild(); rerr != nil {
			return fmt.Errorf("index %s could not be opened (%v) nor rebuilt: %w", dir, err, rerr)
		}
		return nil
	default:
		return err
	}
	l.ix = ix
	wm, err := ix.Watermark()
	if err != nil {
		return err
	}
	last, err := l.st.LastSeq()
	if err != nil {
		return err
	}
	if wm > last {
		// The index is ahead of the store: the store was restored from an
		// older backup. The index may hold records the store lacks.
		if readOnly {
			l.stale = true
			return nil
		}
		return rebuild()
	}
	if readOnly {
		if wm < last {
			// A writer died between its commit and its index update.
			return l.openLagging(dir, last)
		}
		return nil
	}
	return l.catchUp()
}
