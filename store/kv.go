package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// KVTx is one transaction of an engine, seen as named buckets of sorted
// byte keys: all the store's logic (puts, versions, links, lists,
// checks) is written once against it, and each engine (bbolt, etcd)
// supplies it. Reads inside one KVTx see one snapshot plus the tx's own
// writes. It is exported for engine implementers (see Engine), as are
// the optional interfaces a KVTx may implement besides: ChangeLogTx and
// BatchReader.
type KVTx interface {
	// Bucket returns the named bucket, nil where the engine has none of
	// that name (only bbolt, whose buckets are made; an engine whose
	// buckets are key prefixes returns every bucket).
	Bucket(name []byte) KVBucket
}

// KVBucket is one bucket of a KVTx. Get returns nil for a missing key.
// An engine whose reads can fail (etcd) returns nil and keeps the error,
// which its View or Update then returns in place of fn's. Put and Delete
// fail in a read transaction (ErrReadOnly).
type KVBucket interface {
	Get(k []byte) []byte
	Put(k, v []byte) error
	Delete(k []byte) error
	Cursor() KVCursor
}

// KVCursor walks a bucket's keys in byte order, its tx's own writes
// included; a nil key means the end.
type KVCursor interface {
	First() (k, v []byte)
	Seek(seek []byte) (k, v []byte)
	Next() (k, v []byte)
}

// ChangeLogTx is a KVTx whose engine keeps the change log itself (etcd:
// the history of one key, numbered by the revisions of its writes),
// rather than in the store's own bucket of entries, numbered one by one
// (bbolt).
type ChangeLogTx interface {
	KVTx
	// AppendChange adds one entry to the write's change log. The engine
	// numbers the write's entries when it commits: Engine.Update returns
	// that sequence number, and Engine.Changes reads the entries back
	// with it (EncodeChange and DecodeChange are an entry's bytes).
	AppendChange(op Op, ns, id string) error
	// LastSeq is the sequence number of the newest change the snapshot
	// holds, 0 for an empty log.
	LastSeq() uint64
	// CheckLog says what is wrong with the change log as the snapshot
	// holds it (Store.Check reports it as a problem), nil when nothing.
	CheckLog() error
}

// BatchReader is a KVTx whose reads are round trips (etcd), which reads
// many keys in one: the store tells it what it is about to read.
type BatchReader interface {
	KVTx
	// Prefetch reads keys of bucket ahead, many per round trip, so that
	// the Gets that follow are served from memory.
	Prefetch(bucket []byte, keys [][]byte)
	// PrefixKeys calls fn with every key of bucket under each of
	// prefixes, prefix by prefix, many prefixes per round trip. It
	// reports false, calling fn never, where it cannot (a tx with
	// buffered writes, which a cursor overlays and this does not); the
	// store then walks a cursor.
	PrefixKeys(bucket []byte, prefixes [][]byte, fn func(prefix, key []byte)) bool
	// CountKeys is how many keys of bucket sort after after (all of
	// them where after is empty), without reading their values.
	CountKeys(bucket, after []byte) int
}

// boltTx is a bbolt transaction as a KVTx. A write transaction's
// secondary key writes wait in idx until it ends (see idxWrites).
type boltTx struct {
	tx  *bolt.Tx
	idx *idxWrites
}

func (t boltTx) Bucket(name []byte) KVBucket {
	b := t.tx.Bucket(name)
	if b == nil {
		return nil
	}
	return boltBucket{b}
}

type boltBucket struct{ *bolt.Bucket }

func (b boltBucket) Cursor() KVCursor { return b.Bucket.Cursor() }

// getter returns b.Get for reading many keys in a row. On bbolt it seeks
// one cursor, whose path is kept between keys, where b.Get makes a
// cursor and grows its path anew on every call (a fifth of what reading
// a packet's heads allocated).
func getter(b KVBucket) func(k []byte) []byte {
	bb, ok := b.(boltBucket)
	if !ok {
		return b.Get
	}
	c := bb.Bucket.Cursor()
	return func(k []byte) []byte {
		found, v := c.Seek(k)
		if !bytes.Equal(found, k) {
			return nil
		}
		return v
	}
}

// Size is the bbolt file's size, for Stats.
func (t boltTx) Size() int64 { return t.tx.Size() }

// prefetch tells an engine whose reads are round trips (a BatchReader)
// that the records ids of ns are about to be read from buckets; bbolt
// reads from memory, and the keys are not even built for it.
func prefetch(tx KVTx, ns string, ids []string, buckets ...[]byte) {
	br, ok := tx.(BatchReader)
	if !ok {
		return
	}
	ks := make([][]byte, len(ids))
	for i, id := range ids {
		ks[i] = key(ns, id)
	}
	for _, b := range buckets {
		br.Prefetch(b, ks)
	}
}

// dependOn makes tx, a write, commit only if keys of bucket are as its
// snapshot had them (unchanged, and not deleted), as if it had read them
// with Get: it reads them with Get, which an engine that runs writers
// side by side compares at commit (Engine.Update); on etcd, a round trip
// per 128 keys. bbolt runs one writer at a time: there is nothing to
// depend on.
func dependOn(tx KVTx, bucket []byte, keys [][]byte) {
	if _, ok := tx.(boltTx); ok {
		return
	}
	if br, ok := tx.(BatchReader); ok {
		br.Prefetch(bucket, keys)
	}
	b := tx.Bucket(bucket)
	for _, k := range keys {
		b.Get(k)
	}
}

// prefetchPending is prefetch for the records of a put, which may span
// namespaces.
func prefetchPending(tx KVTx, ps []pending, buckets ...[]byte) {
	br, ok := tx.(BatchReader)
	if !ok {
		return
	}
	ks := make([][]byte, len(ps))
	for i := range ps {
		ks[i] = key(ps[i].rec.NS, ps[i].rec.ID)
	}
	for _, b := range buckets {
		br.Prefetch(b, ks)
	}
}
