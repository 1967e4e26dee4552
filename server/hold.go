package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lorekeep/lore"
)

// The store kept open across requests (bbolt); docs/SERVER.md, "Several
// servers on one store", is the user's view.
//
// A server keeps one lore.Lore open (the hold): the bbolt file with its
// lock, the index, lore.json, and with them every cache keyed by the
// open store. It opens it read-only (a shared lock, beside any number of
// other readers) for a read, and writable (the exclusive lock) when a
// write comes; a writable hold serves reads too, and is given back only
// as below, never to downgrade.
//
// Fresh reads. While the hold is open, no other process can commit to
// the store: a commit needs the exclusive lock, which a shared or
// exclusive hold excludes. A write another process acknowledged was
// therefore committed while this server held nothing, and the next open
// reads the file as it is then, its index caught up to the change log's
// last sequence number (lore.Open). Within the process, the hold's own
// writes are read back through the same open (lore keeps its index up
// with them).
//
// Turns. The hold is given back:
//   - when another open waits for the lock (lore.Lore.Contended, checked
//     every keeperTick): the server stops taking requests into the hold,
//     closes it when the requests in it end, and before it opens again
//     waits until the waiters have the lock (lore.WaitersIn, at most
//     turnWait); so a CLI `lore put`, an import or a second server waits
//     about as long as the requests in flight take, not a lease;
//   - when no request came for Options.Idle;
//   - at the latest Options.Lease after it was opened; then the store
//     stays closed for leaseGap, longer than bbolt's 50 ms between two
//     tries, so that a process that waits without saying so (an older
//     lore, a bbolt tool) gets in too.

// Hold defaults.
const (
	// DefaultIdle is how long a server keeps its store open after the
	// last request ends.
	DefaultIdle = 250 * time.Millisecond
	// DefaultLease is the longest a server keeps its store open at one
	// stretch; then it closes it for leaseGap.
	DefaultLease = time.Second
)

const (
	// leaseGap is how long the store stays closed at a lease's end:
	// bbolt's wait tries again every 50 ms, so a waiter that did not
	// announce itself tries once within it.
	leaseGap = 60 * time.Millisecond
	// turnWait bounds the wait for announced waiters to take the lock
	// after the hold was given back to them.
	turnWait = 250 * time.Millisecond
	// keeperTick is how often a held store is checked for waiters, idle
	// time and the lease's end.
	keeperTick = 2 * time.Millisecond
)

// Why a hold is given back.
const (
	yieldNone = iota
	yieldTurn
	yieldIdle
	yieldLease
	yieldUpgrade
	yieldClose
)

// hold is a server's store kept open across requests.
type hold struct {
	dir  string
	open func(readOnly bool) (*lore.Lore, error)
	// idle and lease are Options.Idle and Options.Lease.
	idle, lease time.Duration

	mu   sync.Mutex
	cond sync.Cond // broadcast when l, users, opening or yield change

	l       *lore.Lore // the open store; nil when none
	rw      bool       // l is writable
	users   int        // requests working on l
	opening bool       // a request is opening l
	// gen counts finished opens; openErr is the last one's error, given
	// to the requests that waited for it.
	gen     uint64
	openErr error
	// yield: l is being given back (why); no request enters it, and it
	// closes when the last one leaves.
	yield int
	since time.Time // l opened
	last  time.Time // a request last entered or left l
	// After l closed: do not open before notBefore (the lease's gap); let
	// announced waiters in first (waitTurn).
	notBefore time.Time
	waitTurn  bool
	// closeErr is the error of closing a hold no request was in: told
	// to the next write (a failed index update, as lore tells it).
	closeErr error
	keeping  bool // the keeper goroutine runs
	closed   bool // Server.Close: no more holds; requests open their own
	stats    HoldStats
}

// HoldStats counts what a server's hold of its store did since New.
type HoldStats struct {
	// Opens counts the opens of the store (read-only and writable).
	Opens int64 `json:"opens"`
	// Turns counts the times it was given back to another open waiting
	// for it; Idle, after no request for Options.Idle; Leases, at a
	// lease's end; Upgrades, closed read-only to be opened writable.
	Turns    int64 `json:"turns"`
	Idle     int64 `json:"idle"`
	Leases   int64 `json:"leases"`
	Upgrades int64 `json:"upgrades"`
	// Held reports whether the store is open now.
	Held bool `json:"held"`
}

// HoldStats counts what the server's hold of its bbolt store did; zero
// for an etcd store or a server without a hold (negative Options.Idle).
func (s *Server) HoldStats() HoldStats {
	if s.hold == nil {
		return HoldStats{}
	}
	s.hold.mu.Lock()
	defer s.hold.mu.Unlock()
	st := s.hold.stats
	st.Held = s.hold.l != nil
	return st
}

func newHold(dir string, idle, lease time.Duration, open func(readOnly bool) (*lore.Lore, error)) *hold {
	h := &hold{dir: dir, idle: idle, lease: lease, open: open}
	h.cond.L = &h.mu
	return h
}

// errHoldClosed: the server was closed; the request opens the store for
// itself.
var errHoldClosed = errors.New("server closed")

// enter returns the held store for a request, opening it (read-only
// unless write) when none is held, and reopening a read-only hold
// writable for a write. leave must follow.
func (h *hold) enter(write bool) (*lore.Lore, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var seen uint64
	waited := false
	for {
		switch {
		case h.closed:
			return nil, errHoldClosed
		case h.opening || h.yield != yieldNone:
			if h.opening && !waited {
				seen, waited = h.gen, true
			}
			h.cond.Wait()
			// The open this request waited for failed: it fails the
			// same way, rather than waiting a lock timeout of its own.
			if waited && h.gen != seen && h.l == nil && h.openErr != nil {
				return nil, h.openErr
			}
			continue
		case h.l != nil && (h.rw || !write):
			h.users++
			h.last = time.Now()
			return h.l, nil
		case h.l != nil:
			// A write on a read-only hold: the reads in it end, the
			// next wait, and it is opened again writable.
			h.yield = yieldUpgrade
			for h.users > 0 {
				h.cond.Wait()
			}
			h.closeLocked()
			continue
		}
		if err := h.openLocked(write); err != nil {
			return nil, err
		}
	}
}

// openLocked opens the hold, after the gap or the turn its last close
// asked for; h.mu is held, and let go while it waits and opens.
func (h *hold) openLocked(write bool) error {
	h.opening = true
	gap, turn := time.Until(h.notBefore), h.waitTurn
	h.mu.Unlock()
	if gap > 0 {
		time.Sleep(gap)
	}
	if turn {
		lore.WaitersIn(h.dir, turnWait)
	}
	l, err := h.open(!write)
	h.mu.Lock()
	h.opening = false
	h.gen++
	h.openErr = err
	h.cond.Broadcast()
	if err != nil {
		return err
	}
	now := time.Now()
	h.stats.Opens++
	h.l, h.rw, h.since, h.last = l, write, now, now
	h.notBefore, h.waitTurn = time.Time{}, false
	if !h.keeping {
		h.keeping = true
		go h.keep()
	}
	return nil
}

// leave ends a request's use of the hold; it closes the hold when it is
// being given back and this was the last request in it, and returns the
// close's error.
func (h *hold) leave() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.users--
	h.last = time.Now()
	if h.users == 0 && h.yield != yieldNone && h.yield != yieldUpgrade {
		return h.closeLocked()
	}
	h.cond.Broadcast()
	return nil
}

// takeCloseErr returns and forgets the error of a close no request saw.
func (h *hold) takeCloseErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	err := h.closeErr
	h.closeErr = nil
	return err
}

// giveBack starts giving the hold back (why), closing it now when no
// request is in it; h.mu is held.
func (h *hold) giveBack(why int) {
	if h.l == nil || h.yield != yieldNone {
		return
	}
	h.yield = why
	if h.users == 0 {
		if err := h.closeLocked(); err != nil && h.closeErr == nil {
			h.closeErr = err
		}
	}
}

// closeLocked closes the hold and sets what the next open waits for;
// h.mu is held.
func (h *hold) closeLocked() error {
	why := h.yield
	var err error
	if h.l != nil {
		err = h.l.Close()
		h.l = nil
	}
	h.rw, h.yield = false, yieldNone
	switch why {
	case yieldTurn:
		h.waitTurn = true
		h.stats.Turns++
	case yieldLease:
		h.notBefore = time.Now().Add(leaseGap)
		h.stats.Leases++
	case yieldIdle:
		h.stats.Idle++
	case yieldUpgrade:
		h.stats.Upgrades++
	}
	h.cond.Broadcast()
	return err
}

// keep watches the hold while it is open: for a waiting open, idle time
// and the lease's end.
func (h *hold) keep() {
	t := time.NewTicker(keeperTick)
	defer t.Stop()
	for range t.C {
		h.mu.Lock()
		if h.l == nil && !h.opening || h.closed {
			h.keeping = false
			h.mu.Unlock()
			return
		}
		if h.l != nil && h.yield == yieldNone {
			now := time.Now()
			switch {
			case h.l.Contended():
				h.giveBack(yieldTurn)
			case h.users == 0 && now.Sub(h.last) >= h.idle:
				h.giveBack(yieldIdle)
			case now.Sub(h.since) >= h.lease:
				h.giveBack(yieldLease)
			}
		}
		h.mu.Unlock()
	}
}

// isClosed reports whether close was called.
func (h *hold) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// close gives the hold back for good, once the requests in it end.
func (h *hold) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.opening {
		h.cond.Wait()
	}
	h.closed = true
	if h.l == nil {
		return nil
	}
	h.yield = yieldClose
	for h.users > 0 {
		h.cond.Wait()
	}
	return h.closeLocked()
}

// with runs fn on the hold; a closed server opens the store for this
// request alone.
func (h *hold) with(ctx context.Context, write bool, fn func(*lore.Lore) error) (err error) {
	l, err := h.enter(write)
	if errors.Is(err, errHoldClosed) {
		return openOnce(h.open, write, fn)
	}
	if err != nil {
		return err
	}
	defer func() {
		if lerr := h.leave(); lerr != nil && err == nil {
			err = lerr
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := fn(l); err != nil || !write {
		return err
	}
	// As lore reports a failed index update: from the next write, which
	// is saved.
	return h.takeCloseErr()
}

// openOnce runs fn on an open of the store closed when fn returns.
func openOnce(open func(readOnly bool) (*lore.Lore, error), write bool, fn func(*lore.Lore) error) (err error) {
	l, err := open(!write)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	return fn(l)
}
