package store

import (
	"context"
	"errors"
	"io"
)

// Engine is the database a Store keeps its buckets in. It is exported
// for engine implementers: a program that only stores records never
// names it. This package has one engine of its own, one bbolt file
// (Open; engine_bolt.go); an engine outside it (the etcd cluster of
// package store/etcdstore) implements Engine, opens its Store with
// NewStore and registers a Driver for its store URLs (Register).
//
// Everything a Store does with records, links, versions and the change
// log is written once, against the kv layer (KVTx, kv.go); what differs
// between engines is here, so that Store has no branch on which one it
// runs on. A new engine is one more implementation of this interface,
// checked by the conformance suite in store/storetest.
type Engine interface {
	// View runs fn in a read transaction that sees one snapshot. A read
	// that failed inside it (a KVBucket's Get returns nil then) makes
	// View return that error in place of fn's.
	View(fn func(KVTx) error) error
	// Update runs fn in one write transaction, all or nothing, as if no
	// other write ran beside it: an engine that lets writers run side by
	// side runs fn again on a new snapshot when a key it read with Get
	// changed before it committed. It returns the sequence number the
	// engine gave the whole write, where it gives one (a KVTx that is a
	// ChangeLogTx: etcd's revision of its transaction); where the change
	// log numbers each change inside fn (bbolt), it returns 0.
	Update(fn func(KVTx) error) (uint64, error)
	// Changes reads the change log past after, oldest first, about
	// limit entries (0: all): more rather than split the entries of one
	// sequence number.
	Changes(after uint64, limit int) ([]Change, error)
	// Size is the bytes of the database that holds the store.
	Size() (int64, error)
	// Backup writes a consistent copy of the database to w, or refuses
	// and names the engine's own tool.
	Backup(w io.Writer) (int64, error)
	// At is a read-only engine that sees the store as it was at sequence
	// number seq, or nil where the engine keeps no past (bbolt: the
	// caller's process orders its writes, and Store.At returns the
	// store).
	At(seq uint64) Engine
	// Identity is comparable, the same for the engine and every view of
	// it (At), and differs between engines open at once.
	Identity() any
	// Notify is Store.Notify: nil where every writer syncs itself.
	Notify(ctx context.Context) <-chan struct{}
	// UpgradeLimits bound one batch of the secondary keys' upgrade:
	// keys written, bytes written and heads read, within what one
	// transaction of the engine may hold.
	UpgradeLimits() (keys, size, heads int)
	// Close releases the engine; a view's (At) keeps its store's open.
	Close() error
}

// NewStore opens a Store kept in an engine outside this package, for
// engine implementers. It checks opts and fills in their defaults, then
// calls open with them to reach the engine's database: open makes a new
// store's format key where opts allow it (see FormatKey), and refuses a
// database whose format key CheckFormat refuses. On a writable open
// NewStore then brings the store's secondary keys up to this package's
// format, in batches within Engine.UpgradeLimits; where one batch still
// cannot fit one transaction (ErrTooLarge), the store stays open and
// walks its heads instead, the keys being an optimisation, not the
// truth. name is the store's name in messages and Path (its URL).
func NewStore(name string, opts *Options, open func(Options) (Engine, error)) (*Store, error) {
	o, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	e, err := open(o)
	if err != nil {
		return nil, err
	}
	s := &Store{eng: e, path: name, opts: o}
	if err := s.buildIndex(); err != nil && !errors.Is(err, ErrTooLarge) {
		e.Close()
		return nil, err
	}
	return s, nil
}

// The format key: key FormatKey of bucket FormatBucket holds the store's
// format. An engine's open (NewStore) that creates a store writes
// NewFormat() there where no value is, and refuses a store whose value
// CheckFormat refuses.
const (
	FormatBucket = "meta"
	FormatKey    = "format"
)

// NewFormat is the format key's value in a new, empty store.
func NewFormat() []byte { return []byte{formatVersion} }

// CheckFormat reports whether this package reads a store whose format
// key holds v; the error matches ErrCorrupt.
func CheckFormat(v []byte) error {
	_, err := parseFormat(v)
	return err
}

// At returns a read-only view of the store as it was at sequence number
// seq (from LastSeq or a PutResult), on an engine that keeps its past
// (etcd: the revision): every read through it sees that one point, so a
// packet built from many reads is consistent while others write.
// Closing the view is harmless and keeps the store open. Reads fail with
// ErrCompacted once the engine has dropped the past before seq. On a
// bbolt store, whose writes the caller's process orders, At returns s.
func (s *Store) At(seq uint64) *Store {
	if seq == 0 {
		return s
	}
	past := s.eng.At(seq)
	if past == nil {
		return s
	}
	o := s.opts
	o.ReadOnly = true
	return &Store{eng: past, path: s.path, opts: o}
}

// Identity returns a comparable value that is the same for a store and
// every view of it (At) in this process, and differs between stores open
// at once: beside LastSeq, the key of work a caller shares across reads
// (a server's packets). It holds the open engine, so a kept identity
// never matches a store opened later.
func (s *Store) Identity() any { return s.eng.Identity() }

// Notify returns a channel that receives a value after each write to the
// store by any process, from now until ctx is done (values coalesce
// while the reader is busy), on an engine that many processes on many
// hosts write (etcd); it returns nil for a bbolt store, whose writers
// are all in one process tree and sync after each write.
func (s *Store) Notify(ctx context.Context) <-chan struct{} { return s.eng.Notify(ctx) }
