package lore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// The index catches up with the store by applying the change log past its
// watermark: after writes (index_behind.go), on open, and before reads.

// catchUp applies the change log past the index's watermark. Each batch
// carries its watermark, so the index never claims a change it lacks.
func (l *Lore) catchUp() error { return l.catchUpContext(context.Background()) }

// catchUpContext is catchUp that tells ctx's store.Progress how many
// changes of the log it has applied ("indexing").
func (l *Lore) catchUpContext(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.catchUpLocked(ctx)
}

// catchUpLocked is catchUpContext with l.mu held.
func (l *Lore) catchUpLocked(ctx context.Context) error {
	if l.ix == nil {
		return nil
	}
	return l.healLocked(ctx, l.catchUpSteps(ctx))
}

// catchUpSteps applies the change log past the index's watermark to the
// index, in steps of at most stepRecords records; l.mu is held.
func (l *Lore) catchUpSteps(ctx context.Context) error {
	progress := store.ProgressFrom(ctx)
	wm, err := l.ix.Watermark()
	if err != nil {
		return err
	}
	from := wm
	last, err := l.st.LastSeq()
	if err != nil {
		return err
	}
	for {
		if wm < last {
			progress("indexing", int(wm-from), int(last-from))
		}
		next, err := l.catchUpStep(wm)
		if err != nil {
			return err
		}
		if next == wm {
			if last > from {
				progress("indexing", int(last-from), int(last-from))
			}
			return nil
		}
		wm = next
	}
}

// catchUpStep applies the change log past seq wm, the index's watermark,
// at most stepRecords records, and returns the watermark after it: wm
// when there was nothing left to apply. l.mu is held.
func (l *Lore) catchUpStep(wm uint64) (uint64, error) {
	keys, seq, err := l.touchedAfter(wm)
	if errors.Is(err, store.ErrCompacted) {
		// etcd compacted its history past the watermark: the log cannot
		// say what changed, so rebuild from the records.
		if err := l.rebuildIndex(context.Background()); err != nil {
			return wm, err
		}
		return l.ix.Watermark()
	}
	if err != nil || seq == wm {
		return wm, err
	}
	puts, dels, err := l.readTouched(keys)
	if err != nil {
		return wm, err
	}
	if err := l.ix.Apply(puts, dels, seq); err != nil {
		return wm, fmt.Errorf("index %s: %w", filepath.Join(l.dir, IndexDir), err)
	}
	return seq, nil
}

// stepRecords bounds the records one Apply reads and indexes (their
// bodies are in memory together).
const stepRecords = 2000

// touchedAfter reads the change log past seq wm until it names
// stepRecords records (more when one etcd write holds more) or ends. It
// returns those records' keys, in the order first changed, and the seq of
// the last change read (wm when there is none). Links are not indexed, so
// their changes only move the seq: a PutMany of 1,000 records and 4,000
// links is one Apply, not three, each of which waits for the index's
// fsync.
//
// The latest op per record decides: the record is read as it is now, so
// replaying an old put after a delete cannot raise a ghost.
func (l *Lore) touchedAfter(wm uint64) (keys []index.Key, seq uint64, err error) {
	const page = 2000
	seq = wm
	touched := map[index.Key]bool{}
	for {
		changes, err := l.st.Changes(seq, page)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range changes {
			// Stop between seqs only: on etcd one write's changes share
			// its revision, and the next read starts past it.
			if len(keys) >= stepRecords && c.Seq != seq {
				return keys, seq, nil
			}
			seq = c.Seq
			if c.Op == store.OpLink || c.Op == store.OpUnlink {
				continue
			}
			if k := (index.Key{NS: c.NS, ID: c.ID}); !touched[k] {
				touched[k] = true
				keys = append(keys, k)
			}
		}
		if len(changes) < page {
			return keys, seq, nil
		}
	}
}

// readTouched reads the records of keys as they are now, a namespace at
// a time (heads, then bodies: two reads, not one per record, which on
// etcd are round trips); those gone are to be deleted from the index. A
// write between the two reads is in the log after this batch, so the
// next batch sets it right.
func (l *Lore) readTouched(keys []index.Key) (puts []store.Record, dels []index.Key, err error) {
	var order []string
	byNS := map[string][]string{}
	for _, k := range keys {
		if byNS[k.NS] == nil {
			order = append(order, k.NS)
		}
		byNS[k.NS] = append(byNS[k.NS], k.ID)
	}
	for _, ns := range order {
		ids := byNS[ns]
		heads, err := l.st.Heads(ns, ids)
		if err != nil {
			return nil, nil, err
		}
		found := make([]string, len(heads))
		for i, h := range heads {
			found[i] = h.ID
		}
		bodies, err := l.st.Bodies(ns, found)
		if err != nil {
			return nil, nil, err
		}
		have := map[string]bool{}
		for _, h := range heads {
			body, ok := bodies[h.ID]
			if !ok { // deleted between the two reads
				dels = append(dels, index.Key{NS: ns, ID: h.ID})
				have[h.ID] = true
				continue
			}
			h.Body = body
			puts = append(puts, h)
			have[h.ID] = true
		}
		for _, id := range ids {
			if !have[id] {
				dels = append(dels, index.Key{NS: ns, ID: id})
			}
		}
	}
	return puts, dels, nil
}

// catchUpShared brings a shared store's index up to the cluster before a
// read that uses it, so a packet or search on any node sees every write
// committed before it began; the watch makes this usually a no-op.
func (l *Lore) catchUpShared() error {
	if !l.shared {
		return nil
	}
	if err := l.catchUp(); err != nil {
		return fmt.Errorf("index of %s lags the cluster: %w", l.name, err)
	}
	return nil
}
