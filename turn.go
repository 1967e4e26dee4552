package lore

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// Taking turns at a bbolt store's lock.
//
// bbolt locks its file with flock, exclusive for a writable open and
// shared for a read-only one, and a process that finds it taken tries
// again every 50 ms (bbolt v1.5.0, bolt_unix.go): nothing queues, so a
// process that keeps the store open across requests (a server:
// server.Server) and lets go only for an instant would starve every
// waiter. Two things make the turns fair between Lore processes:
//
//   - A Lore open that finds the file taken says so, by holding a shared
//     flock on WaitFile beside lore.bolt for as long as it waits, and
//     tries again every few milliseconds rather than every 50 (openStore).
//   - A process that holds the store asks Contended (a non-blocking
//     exclusive flock on WaitFile, let go at once) and, when someone
//     waits, closes its open and keeps off until the waiters are in
//     (WaitersIn), instead of opening again at once.
//
// The lock stays bbolt's: a process that does not announce itself (an
// older lore, a bbolt tool) still gets in whenever the file is free at
// one of its tries; server.Server leaves such gaps at the end of each
// lease (docs/SERVER.md).

// WaitFile is the file, beside lore.bolt, that processes waiting for the
// store's lock hold a shared flock on. It is empty and never removed.
const WaitFile = "lore.wait"

// Retry steps of a waiting open: 1 ms, doubling up to waitPollMax.
const waitPollMax = 4 * time.Millisecond

// openStore opens the bbolt file of dir, waiting up to timeout (0: the
// store's default) for another process that holds it, announced in
// WaitFile while it waits.
func openStore(dir string, o store.Options) (*store.Store, error) {
	timeout := o.LockTimeout
	if timeout == 0 {
		timeout = store.DefaultLockTimeout
	}
	path := filepath.Join(dir, BoltFile)
	// Each try does not wait: bbolt's own wait sleeps 50 ms between tries.
	try := o
	try.LockTimeout = time.Nanosecond
	st, err := store.Open(path, &try)
	if !errors.Is(err, store.ErrLocked) || timeout < time.Millisecond {
		if errors.Is(err, store.ErrLocked) {
			return nil, lockedError(path, 0)
		}
		return st, err
	}
	start := time.Now()
	w := announceWait(dir)
	defer w.done()
	for step := time.Millisecond; ; step = min(2*step, waitPollMax) {
		left := timeout - time.Since(start)
		if left <= 0 {
			return nil, lockedError(path, timeout)
		}
		time.Sleep(min(step, left))
		w.retry()
		st, err = store.Open(path, &try)
		if !errors.Is(err, store.ErrLocked) {
			return st, err
		}
	}
}

// lockedError says that another process held the store for as long as
// the caller would wait.
func lockedError(path string, waited time.Duration) error {
	wait := "did not wait: --lock-timeout 0"
	if waited >= time.Millisecond {
		wait = "waited " + waited.String() + "; a longer --lock-timeout waits longer"
	}
	return badvalue.Errorf(path, "open store %q: another process holds it (%s): %w", path, wait, store.ErrLocked)
}

// waitNote is a waiting open's announcement: a shared flock on WaitFile.
type waitNote struct {
	path string
	f    *os.File
	held bool
}

// announceWait says that this process waits for the store in dir. It
// never fails: a store folder this process cannot write to (where
// WaitFile cannot be made) waits unannounced.
func announceWait(dir string) *waitNote {
	w := &waitNote{path: filepath.Join(dir, WaitFile)}
	w.retry()
	return w
}

// retry takes the announcement's lock if it is not held yet: a holder
// asking Contended holds WaitFile exclusively for an instant.
func (w *waitNote) retry() {
	if w == nil || w.held {
		return
	}
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_RDONLY|os.O_CREATE, 0o644)
		if err != nil {
			f, err = os.Open(w.path)
		}
		if err != nil {
			return
		}
		w.f = f
	}
	w.held = flockShared(w.f)
}

// done ends the announcement.
func (w *waitNote) done() {
	if w == nil || w.f == nil {
		return
	}
	w.f.Close() // lets go of the flock
	w.f = nil
}

// waiters asks WaitFile whether a process waits for a store's lock; it
// keeps the file open between questions.
type waiters struct {
	mu   sync.Mutex
	path string
	f    *os.File
}

// waiting reports whether a process holds WaitFile's shared lock now.
// No file means no process ever waited.
func (c *waiters) waiting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		f, err := os.Open(c.path)
		if err != nil {
			return false
		}
		c.f = f
	}
	return !flockTryExclusive(c.f)
}

func (c *waiters) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

// Contended reports whether another open of this store (another process,
// or another Open in this one) is waiting for its lock now. A program
// that keeps a store open for long (a server) asks it to give the others
// their turn: close this Lore, then WaitersIn before opening again.
// Always false for an etcd store, which has no lock to wait for.
func (l *Lore) Contended() bool {
	if l.shared || l.waiters == nil {
		return false
	}
	return l.waiters.waiting()
}

// WaitersIn waits, at most max, until no open of the store in dir is
// waiting for its lock any more: the processes that waited have taken
// it (or given up). A program that closed its Lore because it was
// Contended calls it before opening again, so that it does not take the
// lock back from them at once. It reports whether they all went in.
func WaitersIn(dir string, max time.Duration) bool {
	c := &waiters{path: filepath.Join(dir, WaitFile)}
	defer c.close()
	deadline := time.Now().Add(max)
	for c.waiting() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}
