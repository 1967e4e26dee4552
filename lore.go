package lore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// File and folder names inside a store directory.
const (
	BoltFile   = "lore.bolt"
	IndexDir   = "index"
	ConfigFile = "lore.json"
	// DirName is the folder `lore init` creates and discovery looks for.
	DirName = ".lore"
)

// Options configures Open. The zero value (or nil) means defaults.
type Options struct {
	// ReadOnly opens the store with a shared lock: many readers may run
	// side by side, and every write fails with store.ErrReadOnly.
	ReadOnly bool
	// LockTimeout bounds the wait for another process's lock; default 2s.
	LockTimeout time.Duration
	// Now replaces time.Now for the store's timestamps (tests).
	Now func() time.Time
	// LocalDir is, for a store URL (etcd), the local folder of its index
	// and lore.json; default $LORE_LOCAL, else LocalDirFor(url).
	LocalDir string
	// Engine tunes the engine of a store URL: its settings, of the type
	// its package documents (for etcd://, an *etcdstore.Options: the
	// client's timeouts, the cluster's limits); nil means its defaults.
	// lore.json's etcd section adds its login and TLS files to them.
	Engine any
	// Progress, when set, is told how far the one-time upgrade of an
	// older store on a writable open has come (store.Options.Progress).
	Progress store.Progress
}

// Lore is an open store: records and links in bbolt, and the bleve index
// derived from them. It is safe for concurrent use by many goroutines.
type Lore struct {
	dir     string // the store folder; for etcd, the local folder
	name    string // the store's name in messages: dir, or the etcd URL
	cfg     Config
	st      store.Backend
	counter budget.Counter
	// lockTimeout bounds the wait for the index's own lock too.
	lockTimeout time.Duration

	// mu serialises index maintenance: the index is brought up to the
	// store's change log after every write (behind it: see upd), by one
	// goroutine at a time, and every read of the index takes mu.
	mu sync.Mutex
	ix *index.Index
	// upd runs the index updates behind writes (index_behind.go).
	upd updater
	// stale is set when a read-only open found the index behind the store;
	// search results are then checked against the store.
	stale bool

	// shared is set for an etcd store: other processes write too.
	shared    bool
	ownDir    string             // a private index folder to remove on Close
	lag       *lagIndex          // a lagging read-only index's stand-in for search (index_lag.go)
	stopWatch context.CancelFunc // ends the watch that keeps the index current
	watchDone chan struct{}
	// now replaces time.Now for the times Lore sets (Options.Now).
	now func() time.Time
	// waiters tells whether another open waits for a bbolt store's lock
	// (turn.go); nil for etcd.
	waiters *waiters
	// ident is a bbolt store's identity across this process's opens of
	// the unchanged file (identity.go); nil for etcd.
	ident *fileIdentity
}

// Init creates a store directory (and its parents) with an empty bbolt
// file and index. It fails with ErrExists if dir already holds a store.
func Init(dir string) error {
	if store.IsURL(dir) {
		l, err := openURL(dir, &Options{}, true)
		if err != nil {
			return err
		}
		return l.Close()
	}
	if _, err := os.Stat(filepath.Join(dir, BoltFile)); err == nil {
		return fmt.Errorf("init %s: %w", dir, ErrExists)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	l, err := open(dir, nil, true)
	if err != nil {
		return err
	}
	return l.Close()
}

// Open opens the store in dir (a folder holding lore.bolt, usually named
// .lore; Init creates one). A writable open rebuilds a missing or corrupt
// index and brings the index up to the store's change log, so a crash
// between a commit and its index write loses nothing.
func Open(dir string, opts *Options) (*Lore, error) {
	return open(dir, opts, false)
}

// open opens a store; only Init may create its bbolt file, so a --store
// that names the wrong folder fails instead of starting a second store.
func open(dir string, opts *Options, create bool) (*Lore, error) {
	if opts == nil {
		opts = &Options{}
	}
	if store.IsURL(dir) {
		return openURL(dir, opts, create)
	}
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return nil, &NoStoreError{Dir: dir, Why: "that is a file, not a store folder (a store is the folder that holds " + BoltFile + ")"}
	case err != nil:
		return nil, &NoStoreError{Dir: dir, Why: "no such directory"}
	}
	if url := storeURLOf(dir); url != "" {
		o := *opts
		o.LocalDir = dir
		return openURL(url, &o, create)
	}
	if _, err := os.Stat(filepath.Join(dir, BoltFile)); err != nil && !create {
		e := &NoStoreError{Dir: dir, Why: "no " + BoltFile + " in it"}
		if _, err := os.Stat(filepath.Join(dir, DirName, BoltFile)); err == nil {
			e.Inside = filepath.Join(dir, DirName)
		}
		return nil, e
	}
	cfg, counter, err := loadStoreConfig(dir)
	if err != nil {
		return nil, err
	}
	st, err := openStore(dir, store.Options{
		ReadOnly:    opts.ReadOnly,
		LockTimeout: opts.LockTimeout,
		HistoryCap:  cfg.HistoryCap,
		Counters:    []store.Counter{counter},
		Now:         opts.Now,
		Progress:    opts.Progress,
	})
	if err != nil {
		return nil, err
	}
	l := &Lore{dir: dir, name: dir, cfg: cfg, st: st, counter: counter, lockTimeout: opts.LockTimeout, now: opts.Now,
		waiters: &waiters{path: filepath.Join(dir, WaitFile)}}
	if err := l.openIndex(opts.ReadOnly, opts.Progress); err != nil {
		if l.ix != nil {
			l.ix.Close()
		}
		st.Close()
		return nil, err
	}
	l.takeIdentity()
	return l, nil
}

// Dir is the store directory.
func (l *Lore) Dir() string { return l.dir }

// Config is the configuration loaded from lore.json (defaults filled in).
func (l *Lore) Config() Config { return l.cfg }

// Counter is the store's token counter (its encoding, from lore.json).
func (l *Lore) Counter() budget.Counter { return l.counter }

// Store gives direct access to the store behind the facade (bbolt or
// etcd), for reads the facade does not wrap. Writes through it bypass
// index maintenance until the next write through Lore.
func (l *Lore) Store() store.Backend { return l.st }

// Name is the store's name: its folder, or its etcd store URL.
func (l *Lore) Name() string { return l.name }

// Close closes the index and the store, once the index holds every
// write (index_behind.go).
func (l *Lore) Close() error {
	if l.stopWatch != nil {
		l.stopWatch()
		<-l.watchDone
		l.stopWatch = nil
	}
	errs := []error{l.waitUpdater()}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lag != nil {
		errs = append(errs, l.lag.close())
		l.lag = nil
	}
	if l.ix != nil {
		errs = append(errs, l.ix.Close())
		l.ix = nil
	}
	var seq uint64
	var seqErr error
	if l.ident != nil {
		seq, seqErr = l.st.LastSeq()
	}
	cerr := l.st.Close()
	errs = append(errs, cerr)
	if l.ident != nil && seqErr == nil && cerr == nil {
		l.keepIdentity(seq)
	}
	if l.waiters != nil {
		l.waiters.close()
	}
	if l.ownDir != "" {
		errs = append(errs, os.RemoveAll(l.ownDir))
		l.ownDir = ""
	}
	return errors.Join(errs...)
}

// Put stores one record and indexes it.
func (l *Lore) Put(ctx context.Context, r store.Record) (store.PutResult, error) {
	res, err := l.st.PutContext(ctx, r)
	if err != nil {
		return res, err
	}
	return res, l.afterWrite(ctx)
}

// PutMany stores records and links in one transaction: all or nothing.
// On a bbolt store it returns once the transaction is committed, and the
// index takes the records in behind it; every search and packet that
// starts after PutMany returns sees them (index_behind.go). Flush waits for
// the index.
func (l *Lore) PutMany(ctx context.Context, recs []store.Record, links []store.Link) ([]store.PutResult, error) {
	res, err := l.st.PutManyContext(ctx, recs, links)
	if err != nil {
		return res, err
	}
	return res, l.afterWrite(ctx)
}

// Get returns a record with its body.
func (l *Lore) Get(ns, id string) (store.Record, error) { return l.st.Get(ns, id) }

// Head returns a record without its body: the fields a listing shows.
func (l *Lore) Head(ns, id string) (store.Record, error) { return l.st.Head(ns, id) }

// GetVersion returns one kept version of a record.
func (l *Lore) GetVersion(ns, id string, version int) (store.Record, error) {
	return l.st.GetVersion(ns, id, version)
}

// History returns every kept version of a record, oldest first.
func (l *Lore) History(ns, id string) ([]store.Record, error) { return l.st.History(ns, id) }

// Delete removes a record; cascade removes its links in both directions.
func (l *Lore) Delete(ctx context.Context, ns, id string, cascade bool) error {
	if err := l.st.Delete(ns, id, cascade); err != nil {
		return err
	}
	return l.afterWrite(ctx)
}

// Link adds (or re-weights) a link. It reports whether anything changed.
func (l *Lore) Link(ctx context.Context, lk store.Link) (bool, error) {
	changed, err := l.st.Link(lk)
	if err != nil {
		return false, err
	}
	return changed, l.afterWrite(ctx)
}

// Unlink removes a link.
func (l *Lore) Unlink(ctx context.Context, ns, from, rel, to string) error {
	if err := l.st.Unlink(ns, from, rel, to); err != nil {
		return err
	}
	return l.afterWrite(ctx)
}

// Links returns the links of a record in the given direction.
func (l *Lore) Links(ns, id string, dir store.Direction) ([]store.Link, error) {
	return l.st.Links(ns, id, dir)
}

// Neighbors returns the records within hops (1 or 2) of id, optionally
// following only the named relations.
func (l *Lore) Neighbors(ns, id string, hops int, rels []string) ([]store.Neighbor, error) {
	if hops < 1 || hops > 2 {
		return nil, fmt.Errorf("hops %d: %w (use 1 or 2)", hops, store.ErrInvalid)
	}
	return l.st.Neighbors(ns, id, hops, rels)
}

// List returns record heads (no bodies) matching opts, one page at a time.
func (l *Lore) List(opts store.ListOptions) ([]store.Record, string, error) {
	return l.st.List(opts)
}

// Namespaces lists the namespaces that hold records.
func (l *Lore) Namespaces() ([]string, error) { return l.st.Namespaces() }

// Stats summarises the store (one namespace, or all with "").
func (l *Lore) Stats(ns string) (store.Stats, error) { return l.st.Stats(ns) }

// Backup writes a consistent copy of the bbolt file to w while the store
// stays in use. The index is not copied: it is rebuilt from the copy.
func (l *Lore) Backup(w io.Writer) (int64, error) { return l.st.Backup(w) }
