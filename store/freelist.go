package store

import (
	"sync"
	"sync/atomic"
)

// freelistGate keeps a read-only store's first page check apart from its
// other transactions.
//
// bbolt does not read a read-only file's freelist at open; the first
// Tx.Check loads it, on the check's own goroutine and without the lock
// under which every other transaction reads it as it begins and ends
// (bbolt v1.5.0: DB.loadFreelist against DB.beginTx and DB.removeTx).
// A read that ends while that check starts is a data race inside bbolt.
// So until one check has loaded the freelist, the store's transactions
// on a read-only file share this gate and the check holds it alone;
// after that, nothing is loaded again and reads pass without it.
type freelistGate struct {
	mu     sync.RWMutex
	loaded atomic.Bool
}

// enter lets a transaction begin, waiting while a first check runs; the
// function it returns is called once the transaction has ended.
func (g *freelistGate) enter() (leave func()) {
	if g.loaded.Load() {
		return func() {}
	}
	g.mu.RLock()
	return g.mu.RUnlock
}

// check runs fn, a page check that loads the freelist, alone while the
// freelist has not been loaded yet. A check that failed to run may not
// have loaded it, so the gate stays.
func (g *freelistGate) check(fn func() error) error {
	if g.loaded.Load() {
		return fn()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	err := fn()
	if err == nil {
		g.loaded.Store(true)
	}
	return err
}
