package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/lorekeep/lore/store"
)

// Options configure Open. A nil *Options means all defaults.
type Options struct {
	// ReadOnly opens an existing index for searching only (bleve's
	// read_only mode: no persister or merger runs, files are opened
	// read-only under a shared lock). Several read-only opens can run side
	// by side; a missing index is ErrNotFound instead of being created.
	ReadOnly bool

	// LockTimeout bounds the wait for the index's file lock, held
	// exclusively by a writer and shared by readers. Default 2s; negative
	// is invalid.
	LockTimeout time.Duration
}

// DefaultLockTimeout is the lock wait used when Options.LockTimeout is 0.
const DefaultLockTimeout = 2 * time.Second

// Sub-batch limits for Apply and Rebuild. Scorch turns each batch into one
// in-memory segment and, in its default (safe) mode, waits until the
// segment is persisted (written and fsynced) before Batch returns. Bigger
// batches amortise that wait (5-20 ms here, against about 0.25 ms of CPU
// per 200-word record) and make fewer segments to merge later. The byte cap
// bounds memory: analysis with term vectors holds some 50 bytes per byte of
// text in flight (a 14 MB batch peaked at 780 MB RSS; with the 4 MiB cap,
// 310 MB).
const (
	maxBatchDocs  = 2000
	maxBatchBytes = 4 << 20
)

// Index is Lore's full-text index over store records.
//
// An Index is safe for concurrent use: searches run in parallel with each
// other and with Apply; Apply calls are serialised so the watermark only
// moves forward.
type Index struct {
	dir      string
	readOnly bool
	b        *builder

	mu     sync.RWMutex // write-locked by Close; read-locked by every other call
	closed bool
	bi     bleve.Index

	applyMu sync.Mutex // serialises Apply
}

// Key names one record: its namespace and id.
type Key struct {
	NS, ID string
}

// Open opens the index in dir, creating it with Lore's mapping when dir does
// not exist (or is an empty directory) and opts is not ReadOnly.
//
// Errors: ErrNotFound (read-only and missing), ErrLocked (the lock wait
// timed out), ErrCorrupt (dir holds no usable Lore index: `lore reindex`
// rebuilds it), ErrInvalid (bad options).
func Open(dir string, opts *Options) (*Index, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LockTimeout < 0 {
		return nil, fmt.Errorf("index lock timeout %s is negative (want 0 for the default %s, or a positive duration): %w",
			o.LockTimeout, DefaultLockTimeout, ErrInvalid)
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if dir == "" {
		return nil, fmt.Errorf("index directory is empty (want a path such as .lore/index): %w", ErrInvalid)
	}

	empty, err := dirEmpty(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && empty):
		if o.ReadOnly {
			return nil, fmt.Errorf("index %s: %w (it is derived from the store and can be rebuilt from it)", dir, ErrNotFound)
		}
		if err := create(dir); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	return openExisting(dir, o)
}

// dirEmpty reports whether dir is an empty directory. It fails with
// fs.ErrNotExist when dir does not exist.
func dirEmpty(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err // not a directory, permission, I/O
}

// openExisting opens the scorch index in dir and checks it is a Lore index
// of this format.
func openExisting(dir string, o Options) (_ *Index, err error) {
	defer recoverCorrupt(dir, &err, debug.SetPanicOnFault(true))
	// Scorch runtime configuration (not saved in index_meta.json).
	//
	// unsafe_batch stays off: in safe mode Batch returns once its snapshot
	// is persisted, which is what lets Apply promise durability. Unsafe
	// mode would overlap persisting with the next batch's analysis, but
	// Close does not flush unpersisted snapshots (every Close would drop the
	// latest writes and force a catch-up on the next open) and the persisted
	// callbacks are never called when persisting fails (an Apply waiting on
	// them would hang on a full disk). Persister and merger settings keep
	// their defaults: nap 0 ms (persist at once, which safe mode waits on
	// anyway) and the tiered merge policy; Apply's large sub-batches already
	// keep the segment count low.
	//
	// bolt_timeout bounds the wait for root.bolt's file lock; bleve's default
	// is to wait forever.
	cfg := map[string]any{
		"read_only":    o.ReadOnly,
		"bolt_timeout": o.LockTimeout.String(),
	}
	if err := checkRootBolt(dir); err != nil {
		return nil, err
	}
	bi, err := bleve.OpenUsing(dir, cfg)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			wait := "waited " + o.LockTimeout.String()
			if o.LockTimeout < time.Millisecond {
				wait = "did not wait: --lock-timeout 0"
			}
			return nil, fmt.Errorf("index %s: %w (%s)", dir, ErrLocked, wait)
		}
		return nil, corrupt(dir, err)
	}
	format, err := bi.GetInternal(keyFormat)
	if err != nil {
		bi.Close()
		return nil, corrupt(dir, err)
	}
	if !knownIndexFormat(string(format)) {
		bi.Close()
		return nil, corrupt(dir, fmt.Errorf("format %q, want %q", format, formatVersion))
	}
	b, err := newBuilder(bi.Mapping(), string(format))
	if err != nil {
		bi.Close()
		return nil, corrupt(dir, err)
	}
	return &Index{dir: dir, readOnly: o.ReadOnly, b: b, bi: bi}, nil
}

// checkRootBolt refuses a root.bolt that bbolt would read past the end of
// (a truncated file faults, which no recover catches), before bleve opens
// it. A missing one is left to bleve.
func checkRootBolt(dir string) error {
	path := filepath.Join(dir, "store", "root.bolt")
	err := store.CheckBoltFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if de := (*store.DamageError)(nil); errors.As(err, &de) {
		return corrupt(dir, fmt.Errorf("%s %s", path, de.What))
	}
	if err != nil {
		return corrupt(dir, err)
	}
	return nil
}

// recoverCorrupt, deferred by each call that reads the index through
// bleve, turns a panic there into ErrCorrupt: a damaged segment makes zap
// read out of bounds, a damaged root.bolt makes bbolt assert, and no
// panic may reach a user. Callers pass debug.SetPanicOnFault(true), which
// the defer statement evaluates on entry, so a fault on a mapped page of a
// damaged file panics too (on this goroutine); recoverCorrupt restores the
// setting it returned.
func recoverCorrupt(dir string, err *error, panicOnFault bool) {
	debug.SetPanicOnFault(panicOnFault)
	if r := recover(); r != nil {
		*err = corrupt(dir, fmt.Errorf("damaged: reading it failed (%v)", r))
	}
}

func corrupt(dir string, cause error) error {
	return fmt.Errorf("index %s: %w: %w (the index is derived from the store and can be rebuilt from it)", dir, ErrCorrupt, cause)
}

// create makes an empty Lore index at dir. It builds it in a temporary
// directory beside dir and renames it into place, so a crash leaves either
// no index or a whole one.
func create(dir string) error {
	return buildAndSwap(dir, func(*Index) error { return nil }, 0)
}

// Close waits for running calls to finish and releases the index and its
// lock. It has nothing to flush: every Apply that returned nil is already
// on disk. Close is idempotent; other calls after it fail with ErrClosed.
func (ix *Index) Close() (err error) {
	defer recoverCorrupt(ix.dir, &err, debug.SetPanicOnFault(true))
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	if err := ix.bi.Close(); err != nil {
		return fmt.Errorf("close index %s: %w", ix.dir, err)
	}
	return nil
}

// Dir returns the directory the index lives in.
func (ix *Index) Dir() string { return ix.dir }

// Outdated reports whether the index is of an older format that this
// version still reads and keeps current (format 1, whose terms are not
// filed by namespace: a search walks every namespace's postings; format
// 2, whose irregular verbs are filed as written). A writable open
// rebuilds such an index (Rebuild) to the current format.
func (ix *Index) Outdated() bool { return ix.b.format != formatVersion }

// acquire read-locks the index against Close; the caller must call the
// returned release.
func (ix *Index) acquire() (release func(), err error) {
	ix.mu.RLock()
	if ix.closed {
		ix.mu.RUnlock()
		return nil, fmt.Errorf("index %s: %w", ix.dir, ErrClosed)
	}
	return ix.mu.RUnlock, nil
}

// Watermark returns the sequence number of the last store change the index
// holds: 0 on a fresh index.
func (ix *Index) Watermark() (_ uint64, err error) {
	defer recoverCorrupt(ix.dir, &err, debug.SetPanicOnFault(true))
	release, err := ix.acquire()
	if err != nil {
		return 0, err
	}
	defer release()
	return readWatermark(ix.bi, ix.dir)
}

func readWatermark(bi bleve.Index, dir string) (uint64, error) {
	v, err := bi.GetInternal(keyWatermark)
	if err != nil {
		return 0, fmt.Errorf("index %s: read watermark: %w", dir, err)
	}
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 {
		return 0, corrupt(dir, fmt.Errorf("watermark is %d bytes, want 8", len(v)))
	}
	return binary.BigEndian.Uint64(v), nil
}

func encodeWatermark(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seq)
}

// Count returns the number of records in the index, over all namespaces.
func (ix *Index) Count() (_ uint64, err error) {
	defer recoverCorrupt(ix.dir, &err, debug.SetPanicOnFault(true))
	release, err := ix.acquire()
	if err != nil {
		return 0, err
	}
	defer release()
	n, err := ix.bi.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index %s: count: %w", ix.dir, err)
	}
	return n, nil
}

// Apply indexes put (replacing any earlier version of each record) and
// removes del, then records seq as the watermark. Deleting a key that is
// not indexed is not an error. A key both put and deleted ends up deleted;
// a key put twice ends up at its later version.
//
// Large inputs go in sub-batches (at most maxBatchDocs records or
// maxBatchBytes of text each), several in flight at once (see writer); the
// watermark is written once all of them have landed. A failure part way
// leaves some records applied and the watermark where it was: the index
// may lag the store, and the next catch-up applies those changes again
// (they are idempotent), but it never claims a change it does not hold.
//
// seq must not be below the current watermark (ErrInvalid): that would mean
// the caller applies an old change over a newer one.
func (ix *Index) Apply(put []store.Record, del []Key, seq uint64) (err error) {
	defer recoverCorrupt(ix.dir, &err, debug.SetPanicOnFault(true))
	release, err := ix.acquire()
	if err != nil {
		return err
	}
	defer release()
	if ix.readOnly {
		return fmt.Errorf("index %s: apply: %w", ix.dir, ErrReadOnly)
	}
	for i := range put {
		if err := checkKey(put[i].NS, put[i].ID); err != nil {
			return err
		}
	}
	for _, k := range del {
		if err := checkKey(k.NS, k.ID); err != nil {
			return err
		}
	}

	ix.applyMu.Lock()
	defer ix.applyMu.Unlock()
	cur, err := readWatermark(ix.bi, ix.dir)
	if err != nil {
		return err
	}
	if seq < cur {
		return fmt.Errorf("index %s: apply at seq %d, below the watermark %d (want seq >= %d): %w",
			ix.dir, seq, cur, cur, ErrInvalid)
	}
	return ix.apply(put, del, seq)
}

// apply writes put, del and the watermark in sub-batches. The caller has
// validated the input and holds applyMu (or owns the index alone).
func (ix *Index) apply(put []store.Record, del []Key, seq uint64) error {
	deleted := make(map[string]bool, len(del))
	for _, k := range del {
		deleted[docID(k.NS, k.ID)] = true
	}
	// Batches in flight land in no set order, so a key put twice is
	// written once, at its later version.
	latest := make(map[string]int, len(put))
	for i := range put {
		latest[docID(put[i].NS, put[i].ID)] = i
	}
	w := ix.newWriter(len(put) + len(del))
	for i := range put {
		id := docID(put[i].NS, put[i].ID)
		if deleted[id] || latest[id] != i {
			continue
		}
		if err := w.put(&put[i]); err != nil {
			w.wait() // no batch may outlive the Apply
			return err
		}
	}
	for _, k := range del {
		if err := w.delete(k); err != nil {
			w.wait() // no batch may outlive the Apply
			return err
		}
	}
	return w.finish(func(b *bleve.Batch) { b.SetInternal(keyWatermark, encodeWatermark(seq)) })
}
