package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boltEngine keeps the store in one bbolt file, behind the file's lock.
// Every call runs through guard, so that a damaged file's panic inside
// bbolt is an error naming the file.
type boltEngine struct {
	db          *bolt.DB
	path        string
	readOnly    bool
	lockTimeout time.Duration
}

var _ Engine = (*boltEngine)(nil)

// init creates the buckets of a new store and checks the format of an
// existing one.
func (e *boltEngine) init() error {
	check := func(tx KVTx) error {
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil {
				return valuef(e.path, "open store %q: bucket %q is missing, this is not a lore store: %w", e.path, name, ErrCorrupt)
			}
		}
		if _, err := parseFormat(tx.Bucket(bucketMeta).Get(keyFormat)); err != nil {
			return valuef(e.path, "open store %q: %w", e.path, err)
		}
		if seq := tx.Bucket(bucketMeta).Get(keySeq); seq != nil && len(seq) != 8 {
			return valuef(e.path, "open store %q: sequence number is %d bytes, want 8: %w", e.path, len(seq), ErrCorrupt)
		}
		return nil
	}
	if e.readOnly {
		return e.View(check)
	}
	return guard(e.path, func() error {
		return e.db.Update(func(tx *bolt.Tx) error {
			if tx.Bucket(bucketMeta) == nil {
				if k, _ := tx.Cursor().First(); k != nil {
					return valuef(e.path, "open store %q: the file holds other data, this is not a lore store: %w", e.path, ErrCorrupt)
				}
				for _, name := range allBuckets {
					if _, err := tx.CreateBucket(name); err != nil {
						return err
					}
				}
				if err := tx.Bucket(bucketMeta).Put(keyFormat, []byte{formatVersion}); err != nil {
					return err
				}
				if _, err := tx.CreateBucket(bucketIdx); err != nil {
					return err
				}
			}
			// A store made before vectors gets their bucket on its first
			// writable open; read-only, it simply has none.
			if _, err := tx.CreateBucketIfNotExists(bucketVectors); err != nil {
				return err
			}
			return check(boltTx{tx: tx})
		})
	})
}

func (e *boltEngine) View(fn func(KVTx) error) error {
	return e.boltView(func(tx *bolt.Tx) error { return fn(boltTx{tx: tx}) })
}

// boltView runs fn in a bbolt read transaction, through guard.
func (e *boltEngine) boltView(fn func(tx *bolt.Tx) error) error {
	return guard(e.path, func() error { return e.db.View(fn) })
}

func (e *boltEngine) Update(fn func(KVTx) error) (uint64, error) {
	return 0, guard(e.path, func() error {
		return e.db.Update(func(tx *bolt.Tx) error {
			w := idxWrites{}
			if err := fn(boltTx{tx: tx, idx: &w}); err != nil {
				return err
			}
			return w.flush(tx)
		})
	})
}

func (e *boltEngine) Changes(after uint64, limit int) ([]Change, error) {
	var out []Change
	err := e.View(func(tx KVTx) error {
		c := tx.Bucket(bucketChanges).Cursor()
		for k, v := c.Seek(u64(after + 1)); k != nil && (limit == 0 || len(out) < limit); k, v = c.Next() {
			if len(k) != 8 {
				return fmt.Errorf("%w: change-log key %x is not 8 bytes", ErrCorrupt, k)
			}
			ch, err := decodeChange(binary.BigEndian.Uint64(k), v)
			if err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	return out, err
}

// Size is the file's size as a read transaction sees it (Stats reads
// it in its own).
func (e *boltEngine) Size() (int64, error) {
	var n int64
	err := e.boltView(func(tx *bolt.Tx) error {
		n = tx.Size()
		return nil
	})
	return n, err
}

func (e *boltEngine) At(uint64) Engine { return nil }

func (e *boltEngine) Identity() any { return e.db }

// Notify is nil: a bbolt store's writers are all in one process tree and
// sync after each write.
func (e *boltEngine) Notify(context.Context) <-chan struct{} { return nil }

// UpgradeLimits: bbolt inserts into a node in O(its size) until commit
// splits it, so big batches go quadratic (docs/bench-history).
func (e *boltEngine) UpgradeLimits() (keys, size, heads int) { return 50_000, 1 << 30, 2_500 }

func (e *boltEngine) Close() error { return e.db.Close() }

// check on bbolt runs bbolt's page check in the transaction that reads
// every bucket: a write transaction on a writable store, a read one on
// a handle of its own on a read-only one (checkHandle).
func (e *boltEngine) check(counters []Counter) ([]Problem, error) {
	db := e.db
	if e.readOnly {
		own, err := e.checkHandle()
		if err != nil {
			return nil, err
		}
		defer own.Close()
		db = own
	}
	tx, err := db.Begin(!e.readOnly)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	c := checker{tx: boltTx{tx: tx}, counters: counters, digest: touchAll(tx)}
	for err := range tx.Check() {
		c.add("", "", "bbolt page check: %v", err)
	}
	c.all()
	return c.problems, nil
}

// checkHandle opens the store's file read-only once more, for a page
// check. bbolt reads a read-only file's freelist only in its first
// Tx.Check, on the check's goroutine and without the lock under which
// the handle's other transactions read it as they begin and end (bbolt
// v1.5.0: DB.loadFreelist against DB.beginTx and DB.removeTx), so a
// check on the store's own handle races the reads beside it. A handle
// of the check's own has no other transactions; it shares the file's
// lock with the store's (both are shared) and sees the same file, which
// no writer can change while the store holds it open.
func (e *boltEngine) checkHandle() (*bolt.DB, error) {
	db, err := bolt.Open(e.path, 0o600, &bolt.Options{ReadOnly: true, Timeout: e.lockTimeout})
	if err != nil {
		return nil, fmt.Errorf("check %s: open it for the page check: %w", e.path, err)
	}
	return db, nil
}

func (e *boltEngine) Backup(w io.Writer) (int64, error) {
	var n int64
	err := e.boltView(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}
