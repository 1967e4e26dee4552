package lore

import (
	"context"
	"sync"
)

// Index updates behind writes.
//
// A write to a bbolt store returns once bbolt has committed it; an
// updater goroutine then takes it into the index, up to stepRecords
// records a step. A writer that calls again meanwhile commits its next
// write beside that step, on the other core. Up to writesAhead writes may
// wait for the index: so a loader that writes faster than the index takes
// its records in keeps two writes waiting as a step ends, and the next
// step takes both, which makes fewer and larger segments. A 100k ingest in
// writes of 1,000 took 11% less time with writes of 2,000; see
// BENCHMARKS.md.
//
// Reads never see the index behind a write that has returned: every
// search, packet and check takes l.mu to reach the index and, under it,
// first applies what the updater has not (catchUpWaitingLocked). The
// updater takes l.mu for each step, so a read waits for the step under
// way, then applies what is left: at most writesAhead writes.
//
// An update that fails leaves the write saved (bbolt holds it, and the
// change log brings the index up on the next update or open). Its error
// is returned by the next write, Flush or Close.
//
// Imports (all or nothing, with progress) and etcd stores (whose writes
// other hosts index from the log too) update the index before returning
// (catchUpNow).
const writesAhead = 3

// updater is the state of the updates behind writes.
type updater struct {
	mu sync.Mutex
	// stepped is broadcast when a step ends or the updater stops.
	stepped sync.Cond
	// waiting holds, oldest first, the last change seq of each write the
	// index may not hold yet.
	waiting []uint64
	running bool  // an updater goroutine runs
	err     error // the first error since the last report
}

// afterWrite has the index take in the write just committed: behind the
// write on a bbolt store, before returning on etcd.
func (l *Lore) afterWrite(ctx context.Context) error {
	if l.shared {
		return l.catchUpNow(ctx)
	}
	return l.catchUpBehind()
}

// catchUpNow brings the index up to the write just committed, before
// returning. The write is already durable in the store: an index failure
// here is repaired on the next write or open, so it is reported but the
// write stands.
func (l *Lore) catchUpNow(ctx context.Context) error {
	if err := l.catchUpContext(ctx); err != nil {
		return indexLags(err)
	}
	return nil
}

// catchUpBehind has the index take in the write just committed, on the
// updater goroutine, starting it if none runs. It waits while more than
// writesAhead writes are not yet in the index, and returns the error of
// an earlier update that failed.
func (l *Lore) catchUpBehind() error {
	seq, err := l.st.LastSeq()
	if err != nil {
		return indexLags(err)
	}
	u := &l.upd
	u.lock()
	defer u.mu.Unlock()
	u.waiting = append(u.waiting, seq)
	if !u.running {
		u.running = true
		go l.runUpdater()
	}
	for u.running && len(u.waiting) > writesAhead {
		u.stepped.Wait()
	}
	return u.takeErr()
}

// takeErr returns and forgets the error of an update that failed; u.mu
// is held.
func (u *updater) takeErr() error {
	err := u.err
	u.err = nil
	if err != nil {
		return indexLags(err)
	}
	return nil
}

// runUpdater is the updater goroutine: it steps until the index holds
// every write that was waiting, or a step fails.
func (l *Lore) runUpdater() {
	u := &l.upd
	for {
		wm, err := l.updaterStep()
		u.mu.Lock()
		if err != nil && u.err == nil {
			u.err = err
		}
		i := 0
		for i < len(u.waiting) && u.waiting[i] <= wm {
			i++
		}
		u.waiting = u.waiting[i:]
		if err != nil || len(u.waiting) == 0 {
			// After an error, the next write or open retries.
			u.waiting = nil
			u.running = false
		}
		running := u.running
		u.stepped.Broadcast()
		u.mu.Unlock()
		if !running {
			return
		}
	}
}

// updaterStep applies the change log past the watermark, one Apply of at
// most stepRecords records, and returns the watermark after it.
func (l *Lore) updaterStep() (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ix == nil { // closed, or a rebuild failed: nothing to update
		return ^uint64(0), nil
	}
	wm, err := l.ix.Watermark()
	if err == nil {
		if wm, err = l.catchUpStep(wm); err == nil {
			return wm, nil
		}
	}
	if err = l.healLocked(context.Background(), err); err != nil || l.ix == nil {
		return 0, err
	}
	return l.ix.Watermark() // rebuilt from the store
}

// catchUpWaitingLocked brings the index up to every write that has
// returned, before a read; l.mu is held. A failure is kept for the next
// write, Flush or Close to report, and the read goes on with the index as
// it is.
func (l *Lore) catchUpWaitingLocked() {
	u := &l.upd
	u.mu.Lock()
	behind := len(u.waiting) > 0
	u.mu.Unlock()
	if !behind {
		return
	}
	if err := l.catchUpLocked(context.Background()); err != nil {
		u.mu.Lock()
		if u.err == nil {
			u.err = err
		}
		u.mu.Unlock()
	}
}

// Flush waits until the index holds every write that has returned, and
// returns the error of an update that failed since the last report.
// Writes return before the index takes them in (reads wait for it
// anyway); Flush is for a caller that wants to know the index is
// current, or to time a load.
func (l *Lore) Flush() error {
	l.mu.Lock()
	l.catchUpWaitingLocked()
	l.mu.Unlock()
	return l.waitUpdater()
}

// waitUpdater waits for the updater goroutine to stop and returns the
// error of an update that failed since the last report.
func (l *Lore) waitUpdater() error {
	u := &l.upd
	u.lock()
	defer u.mu.Unlock()
	for u.running {
		u.stepped.Wait()
	}
	return u.takeErr()
}

// lock locks u.mu, the lock of u.stepped.
func (u *updater) lock() {
	u.mu.Lock()
	if u.stepped.L == nil {
		u.stepped.L = &u.mu
	}
}
