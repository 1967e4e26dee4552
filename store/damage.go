package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// bbolt's on-disk format, version 2 (go.etcd.io/bbolt internal/common:
// page.go and meta.go). Each page starts with a 16-byte header (id uint64,
// flags uint16, count uint16, overflow uint32); pages 0 and 1 hold a meta
// right after it: magic, version, page size, flags (uint32 each), the root
// bucket (root pgid, sequence: uint64 each), the freelist pgid, the high
// water mark (pgid: the number of pages in use), txid and an FNV-64a
// checksum of the fields before it (uint64 each). Lore checks these before
// handing the file to bbolt, which trusts them and would read past the end
// of a truncated file (SIGBUS) or panic on a page that is not there.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16
	metaSize       = 64 // bytes of a meta, checksum included
	metaSumOffset  = 56 // the checksum covers the bytes before it
	minPageSize    = 512
	maxPageSize    = 1 << 24
	noFreelist     = ^uint64(0)
)

// boltMeta is the part of a bbolt meta page Lore checks.
type boltMeta struct {
	pageSize uint32
	root     uint64
	freelist uint64
	hwm      uint64 // pages in use: the file must hold at least hwm*pageSize bytes
	txid     uint64
}

// DamageError says what is wrong with a store file that cannot be trusted.
// It wraps ErrCorrupt.
type DamageError struct {
	Path string // the bbolt file
	What string // what is wrong, e.g. "is truncated: 40,960 bytes, its pages need 81,920"
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("%s %s; nothing was written. Restore it from a backup (`lore backup` makes one), "+
		"or copy out what is still readable with `lore check --salvage NEWDIR`", e.Path, e.What)
}

func (e *DamageError) Unwrap() error { return ErrCorrupt }

// parseMeta decodes and validates the meta in page buffer b (at least
// pageHeaderSize+metaSize bytes), as bbolt's Meta.Validate does.
func parseMeta(b []byte) (boltMeta, error) {
	if len(b) < pageHeaderSize+metaSize {
		return boltMeta{}, errors.New("is cut short inside its meta page")
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	le := binary.LittleEndian // bbolt writes in native order; Lore's platforms are little-endian
	if le.Uint32(m[0:]) != boltMagic {
		return boltMeta{}, errors.New("has no bbolt magic number in its meta page")
	}
	if v := le.Uint32(m[4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("is bbolt format %d, want %d", v, boltVersion)
	}
	h := fnv.New64a()
	h.Write(m[:metaSumOffset])
	if h.Sum64() != le.Uint64(m[metaSumOffset:]) {
		return boltMeta{}, errors.New("has a meta page whose checksum does not match")
	}
	meta := boltMeta{
		pageSize: le.Uint32(m[8:]),
		root:     le.Uint64(m[16:]),
		freelist: le.Uint64(m[32:]),
		hwm:      le.Uint64(m[40:]),
		txid:     le.Uint64(m[48:]),
	}
	if meta.pageSize < minPageSize || meta.pageSize > maxPageSize || meta.pageSize&(meta.pageSize-1) != 0 {
		return boltMeta{}, fmt.Errorf("has a meta page with page size %d, want a power of two from %d to %d", meta.pageSize, minPageSize, maxPageSize)
	}
	if meta.root < 2 || meta.root >= meta.hwm {
		return boltMeta{}, fmt.Errorf("has a meta page whose root page %d is outside its %d pages", meta.root, meta.hwm)
	}
	if meta.freelist != noFreelist && (meta.freelist < 2 || meta.freelist >= meta.hwm) {
		return boltMeta{}, fmt.Errorf("has a meta page whose freelist page %d is outside its %d pages", meta.freelist, meta.hwm)
	}
	return meta, nil
}

// touchAll reads every key and value of every bucket, nested ones too, so
// that a damaged page faults here, in a goroutine under guard, rather than
// in the goroutine bbolt's Tx.Check starts (it recovers panics but cannot
// turn faults into them). It returns a digest of the bytes, which keeps
// the reads from being optimised away.
func touchAll(tx *bolt.Tx) byte {
	var sum byte
	var walk func(b *bolt.Bucket)
	walk = func(b *bolt.Bucket) {
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			sum ^= k[0]
			if v == nil {
				if nb := b.Bucket(k); nb != nil {
					walk(nb)
				}
			} else if len(v) > 0 {
				sum ^= v[0] ^ v[len(v)-1]
			}
		}
	}
	_ = tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		walk(b)
		return nil
	})
	return sum
}

// checkFile refuses a bbolt file that bbolt would mis-read: empty, too
// short, not bbolt, both meta pages bad, or shorter than the pages its
// meta says are in use. It reads the metas before the size, so a writer
// growing the file meanwhile cannot make a healthy file look truncated
// (bbolt grows the file before it writes the meta that uses the pages).
func checkFile(path string) (boltMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return boltMeta{}, err
	}
	defer f.Close()
	damaged := func(format string, args ...any) error {
		return &DamageError{Path: path, What: fmt.Sprintf(format, args...)}
	}
	buf := make([]byte, pageHeaderSize+metaSize)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return boltMeta{}, fmt.Errorf("read %s: %w", path, err)
	}
	if n == 0 {
		return boltMeta{}, damaged("is empty (0 bytes), not a store; if it never held anything, remove the folder and create the store again")
	}
	m0, err0 := parseMeta(buf[:n])
	// The second meta is one page in; with the first one bad, try the page
	// sizes bbolt itself tries.
	sizes := []int64{4096, 512, 1024, 2048, 8192, 16384, 32768, 65536}
	if err0 == nil {
		sizes = []int64{int64(m0.pageSize)}
	}
	var m1 boltMeta
	err1 := errors.New("has no second meta page")
	for _, ps := range sizes {
		k, _ := f.ReadAt(buf, ps)
		if m, err := parseMeta(buf[:k]); err == nil && (err0 != nil || m.pageSize == m0.pageSize) {
			m1, err1 = m, nil
			break
		} else if k > 0 {
			err1 = err
		}
	}
	var m boltMeta
	switch {
	case err0 != nil && err1 != nil:
		if n < len(buf) {
			return boltMeta{}, damaged("is %s bytes, too short to be a store", thousands(int64(n)))
		}
		return boltMeta{}, damaged("%v, and so does the second (%v): it is not a Lore store, or both meta pages are damaged", err0, err1)
	case err0 != nil:
		m = m1
	case err1 != nil:
		m = m0
	case m0.txid >= m1.txid:
		m = m0 // bbolt uses the valid meta with the higher txid
	default:
		m = m1
	}
	fi, err := f.Stat()
	if err != nil {
		return boltMeta{}, fmt.Errorf("stat %s: %w", path, err)
	}
	if need := int64(m.hwm) * int64(m.pageSize); fi.Size() < need {
		return boltMeta{}, damaged("is truncated: %s bytes, its pages need %s", thousands(fi.Size()), thousands(need))
	}
	switch {
	case err0 != nil:
		return boltMeta{}, oneMetaDamaged(path, 0, err0, m1)
	case err1 != nil:
		return boltMeta{}, oneMetaDamaged(path, 1, err1, m0)
	}
	return m, nil
}

// oneMetaDamaged is the error for a file whose meta page n is damaged
// (why) while the other (ok) is valid. bbolt would open it from the
// other without a word; when the damaged one was the newer, that rolls
// the store back to the other's transaction, and the first write after
// it makes the loss final. bbolt writes both meta pages when it creates
// a file, and a meta page only whole, so a healthy file never has a bad
// one: Lore refuses it, and salvage copies out what it still holds.
func oneMetaDamaged(path string, n int, why error, ok boltMeta) error {
	return &DamageError{Path: path, What: fmt.Sprintf("is damaged: its meta page %d is bad (%v); the other is at transaction %d, "+
		"which may be older than the last write (opened from it, the store would lose every later write)", n, why, ok.txid)}
}

// IsBoltFile reports whether the file at path opens with a bbolt meta
// page (its magic number), damaged or not: for a caller that must not
// write over a store's file under another name.
func IsBoltFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [pageHeaderSize + 4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return false
	}
	return binary.LittleEndian.Uint32(b[pageHeaderSize:]) == boltMagic
}

// CheckBoltFile reports, as a *DamageError, a bbolt file that bbolt would
// mis-read (see checkFile). Other bbolt files Lore keeps, such as the
// index's root.bolt, are checked with it before they are opened.
func CheckBoltFile(path string) error {
	_, err := checkFile(path)
	return err
}

// guard runs fn with memory faults turned into panics, and turns any
// panic into a DamageError: bbolt trusts the pages it maps, and a damaged
// page makes it fail an assertion or fault on memory past the end of the
// file. This is the last resort behind checkFile, at the store boundary;
// every read and write transaction runs through it. Callbacks of ForEach
// and friends run outside transactions, so their own panics are not
// caught here.
func guard(path string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = &DamageError{Path: path, What: fmt.Sprintf("is damaged: reading it failed (%v)", r)}
		}
	}()
	return fn()
}

// view runs fn in a read transaction, through guard.
func (s *Store) view(fn func(tx KVTx) error) error { return s.eng.View(fn) }
