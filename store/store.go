package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Counter counts the tokens of a text. The store calls it at write time
// and caches the result in Record.Tokens under Name(). Name should change
// when the counts would (a new encoding, a new counter version).
// Implementations must be safe for concurrent use.
type Counter interface {
	Name() string
	Count(string) int
}

// Options configure Open, OpenURL and NewStore. A nil *Options, or a
// zero field, means the default stated on the field.
type Options struct {
	// ReadOnly opens the file with a shared lock: any number of read-only
	// opens can run side by side, but not beside a writer. Every write
	// returns ErrReadOnly. The file must exist.
	ReadOnly bool
	// MustExist makes a writable open fail with ErrNotFound, as a
	// read-only one does, where there is no store yet, instead of
	// creating one (for the facade, only `lore init` creates; a mistyped
	// store URL should not).
	MustExist bool
	// LockTimeout is how long Open waits for another process to let go
	// of the file before it returns ErrLocked. Default 2s.
	LockTimeout time.Duration
	// HistoryCap is how many previous versions are kept per record; the
	// oldest is evicted first. Default 20; a negative value keeps none.
	HistoryCap int
	// Counters are run on title, body and summary at every write that
	// changes a record, and their counts cached in Record.Tokens.
	Counters []Counter
	// MaxBodyBytes is the largest body Put accepts. Default 64 MiB
	// (DefaultMaxBodyBytes); at most 1 GiB.
	MaxBodyBytes int
	// Now gives the time stamped into Created and Updated. Default
	// time.Now.
	Now func() time.Time
	// Progress, when set, is told how far the one-time upgrade of an
	// older store's secondary keys has come on a writable open (phase
	// "upgrading store format N to 3", done of total records); it is not
	// called when there is nothing to upgrade.
	Progress Progress
}

// DefaultLockTimeout is the default Options.LockTimeout.
const DefaultLockTimeout = 2 * time.Second

// DefaultHistoryCap is the default Options.HistoryCap.
const DefaultHistoryCap = 20

// formatVersion is the store layout this package writes; it is kept in
// the meta bucket under keyFormat. Format 2 is format 1 plus complete
// secondary keys (secondary.go), format 3 format 2 plus the due keys of
// open obligations (due.go), format 4 format 3 plus the name keys
// (namekeys.go): this package reads all four and upgrades an older store
// on its first writable open, and a lore older than a store's keys
// refuses it rather than write to it without them.
const (
	formatVersion byte = formatNames
	formatNames   byte = 4
	formatDue     byte = 3
	formatIdx     byte = 2
	formatNoIdx   byte = 1
)

// knownFormat reports whether this package reads store format f.
func knownFormat(f byte) bool { return f >= formatNoIdx && f <= formatVersion }

// Bucket names; doc.go describes each one's keys and values.
var (
	bucketMeta    = []byte("meta")
	bucketHeads   = []byte("heads")
	bucketBodies  = []byte("bodies")
	bucketHistory = []byte("history")
	bucketOut     = []byte("links_out")
	bucketIn      = []byte("links_in")
	bucketChanges = []byte("changes")

	allBuckets = [][]byte{bucketMeta, bucketHeads, bucketBodies, bucketHistory, bucketOut, bucketIn, bucketChanges}

	keyFormat = []byte("format")
	keySeq    = []byte("seq")
)

// Store is an open Lore store: one bbolt file (Open) or a store URL's
// engine (OpenURL; an etcd cluster's key prefix), behind Engine. A Store is
// safe for concurrent use by many goroutines: reads run in parallel,
// writes are serialized by bbolt's single writer or by etcd's compares.
type Store struct {
	eng  Engine
	path string
	opts Options
	rc   *readCache // nil but for a bbolt store (readcache.go)
}

// Open opens the store file at path, creating it (and its buckets) unless
// opts.ReadOnly is set.
func Open(path string, opts *Options) (*Store, error) {
	o, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	_, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && o.ReadOnly:
		return nil, valuef(path, "open store %q read-only: the file does not exist: %w", path, ErrNotFound)
	case errors.Is(err, fs.ErrNotExist) && o.MustExist:
		return nil, valuef(path, "open store %q: the file does not exist (Options.MustExist): %w", path, ErrNotFound)
	case errors.Is(err, fs.ErrNotExist):
		// A new store: bbolt creates and initialises the file.
	case err != nil:
		return nil, valuef(path, "open store %q: %w", path, err)
	default:
		// An existing file is never re-initialised, and never trusted
		// before its meta pages and size are checked.
		if _, err := checkFile(path); err != nil {
			return nil, err
		}
	}
	var db *bolt.DB
	err = guard(path, func() error {
		var err error
		db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout, ReadOnly: o.ReadOnly})
		return err
	})
	var damage *DamageError
	switch {
	case errors.As(err, &damage):
		return nil, err
	case errors.Is(err, berrors.ErrTimeout):
		return nil, valuef(path, "open store %q: another process holds it (%s): %w", path, waited(o.LockTimeout), ErrLocked)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return nil, valuef(path, "open store %q: not a bbolt file or damaged (%v): %w", path, err, ErrCorrupt)
	case err != nil:
		return nil, valuef(path, "open store %q: %w", path, err)
	}
	eng := &boltEngine{db: db, path: path, readOnly: o.ReadOnly, lockTimeout: o.LockTimeout}
	s := &Store{eng: eng, path: path, opts: o, rc: &readCache{}}
	if err := eng.init(); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.buildIndex(); err != nil {
		db.Close()
		return nil, valuef(path, "open store %q: %w", path, err)
	}
	return s, nil
}

// waited says how long an open waited for the lock: a wait under a
// millisecond is the caller's "do not wait" (the CLI's --lock-timeout 0).
func waited(d time.Duration) string {
	if d < time.Millisecond {
		return "did not wait: --lock-timeout 0"
	}
	return "waited " + d.String()
}

func withDefaults(opts *Options) (Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LockTimeout < 0 {
		return o, fmt.Errorf("%w: lock timeout %s is negative; want 0 (default %s) or more", ErrInvalid, o.LockTimeout, DefaultLockTimeout)
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.HistoryCap == 0 {
		o.HistoryCap = DefaultHistoryCap
	}
	if o.HistoryCap < 0 {
		o.HistoryCap = 0
	}
	if o.MaxBodyBytes < 0 || o.MaxBodyBytes > 1<<30 {
		return o, fmt.Errorf("%w: max body bytes %d is out of range; want 0 (default %d) to %d", ErrInvalid, o.MaxBodyBytes, DefaultMaxBodyBytes, 1<<30)
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	seen := map[string]bool{}
	for i, c := range o.Counters {
		if c == nil {
			return o, fmt.Errorf("%w: counter %d is nil", ErrInvalid, i)
		}
		if seen[c.Name()] {
			return o, valuef(c.Name(), "%w: counter %q is given twice", ErrInvalid, c.Name())
		}
		seen[c.Name()] = true
	}
	o.Counters = append([]Counter(nil), o.Counters...)
	return o, nil
}

// Close closes the store, waiting for running transactions. Closing twice
// is harmless.
func (s *Store) Close() error { return s.eng.Close() }

// Path returns the store's file name as given to Open.
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the store was opened read-only.
func (s *Store) ReadOnly() bool { return s.opts.ReadOnly }

// update runs fn in a write transaction, through guard, refusing on
// read-only stores.
func (s *Store) update(fn func(tx KVTx) error) error {
	_, err := s.updateRev(fn)
	return err
}

// updateRev is update that also returns the sequence number the engine
// gave the whole write, when it gives one (etcd: the revision of its
// transaction); bbolt numbers each change inside fn and returns 0.
func (s *Store) updateRev(fn func(tx KVTx) error) (uint64, error) {
	if s.opts.ReadOnly {
		return 0, valuef(s.path, "write to store %q: %w (opened for reading)", s.path, ErrReadOnly)
	}
	defer s.rc.writing()()
	return s.eng.Update(fn)
}

// appendChange appends one entry to the change log and advances the
// sequence number kept in meta. Called inside the write's transaction.
func appendChange(tx KVTx, op Op, ns, id string) (uint64, error) {
	if cl, ok := tx.(ChangeLogTx); ok {
		// The engine numbers the write when it commits (updateRev).
		return 0, cl.AppendChange(op, ns, id)
	}
	meta := tx.Bucket(bucketMeta)
	var seq uint64
	if b := meta.Get(keySeq); len(b) == 8 {
		seq = binary.BigEndian.Uint64(b)
	}
	seq++
	ch := tx.Bucket(bucketChanges)
	if b, ok := ch.(boltBucket); ok {
		b.FillPercent = 1 // keys only ever grow: pack pages full
	}
	if err := ch.Put(u64(seq), encodeChange(op, ns, id)); err != nil {
		return 0, err
	}
	return seq, meta.Put(keySeq, u64(seq))
}
