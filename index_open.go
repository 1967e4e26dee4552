package lore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// openIndex opens the derived index and catches it up with the store. A
// missing or unreadable index is rebuilt from the store (writable opens),
// and so is one of an older format, once, telling progress; a read-only
// open works without an index, flagging results as unchecked, also when
// the index turns unreadable as it is caught up, and searches an index of
// an older format as it is.
func (l *Lore) openIndex(readOnly bool, progress store.Progress) error {
	dir := filepath.Join(l.dir, IndexDir)
	rebuild := func() error {
		return l.rebuildIndexContext(store.WithProgress(context.Background(), progress))
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
			return l.catchUpReadOnly(dir, last)
		}
		return nil
	}
	return l.syncIndex()
}
