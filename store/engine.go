package store

import (
	"context"
	"io"
)

// engine is the database a Store keeps its buckets in: bbolt (boltEngine,
// engine_bolt.go) or an etcd cluster (etcdEngine, etcd*.go). Everything
// a Store does with records, links, versions and the change log is
// written once, against the kv layer (kvTx, kv.go); what differs between
// the engines is here, so that Store has no branch on which one it runs
// on, and a new engine is one more implementation of this interface
// (with the conformance suite in storetest to check it).
type engine interface {
	// view runs fn in a read transaction that sees one snapshot.
	view(fn func(kvTx) error) error
	// update runs fn in one write transaction, all or nothing. It
	// returns the sequence number the engine gave the whole write, where
	// it gives one (etcd: the revision of its transaction); where the
	// change log numbers each change inside fn (bbolt), it returns 0.
	update(fn func(kvTx) error) (uint64, error)
	// changes reads the change log past after, oldest first, about
	// limit entries (0: all): more rather than split the entries of one
	// sequence number.
	changes(after uint64, limit int) ([]Change, error)
	// size is the bytes of the database holding the store; snapshot is
	// what a read transaction counted (txSize), which is the answer
	// where the engine is one file.
	size(snapshot int64) (int64, error)
	// check runs the kv layer's checks, and the engine's own where it
	// has them (bbolt's page check).
	check(counters []Counter) ([]Problem, error)
	// backup writes a consistent copy of the database to w, or refuses
	// and names the engine's own tool.
	backup(w io.Writer) (int64, error)
	// at is a read-only engine that sees the store as it was at sequence
	// number rev, or nil where the engine keeps no past (bbolt: the
	// caller's process orders its writes, and At returns the store).
	at(rev uint64) engine
	// identity is comparable, the same for the engine and every view of
	// it (at), and differs between engines open at once.
	identity() any
	// notify is Store.Notify: nil where every writer syncs itself.
	notify(ctx context.Context) <-chan struct{}
	// upgradeLimits bound one batch of the secondary keys' upgrade:
	// keys written, bytes written and heads read.
	upgradeLimits() (keys, size, heads int)
	// close releases the engine; a view's close keeps its store's open.
	close() error
}
