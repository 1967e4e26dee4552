package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// kvTx is one transaction of an engine, seen as named buckets of sorted
// byte keys: all the store's logic (puts, versions, links, lists,
// checks) is written once against it, and each engine (bbolt, etcd)
// supplies it. Reads inside one kvTx see one snapshot plus the tx's own
// writes.
type kvTx interface {
	Bucket(name []byte) kvBucket
}

// kvBucket is one bucket of a kvTx. Get returns nil for a missing key.
// An engine whose reads can fail (etcd) returns nil and keeps the error,
// which its view or update then returns in place of fn's.
type kvBucket interface {
	Get(k []byte) []byte
	Put(k, v []byte) error
	Delete(k []byte) error
	Cursor() kvCursor
}

// kvCursor walks a bucket's keys in byte order; a nil key means the end.
type kvCursor interface {
	First() (k, v []byte)
	Seek(seek []byte) (k, v []byte)
	Next() (k, v []byte)
}

// boltTx is a bbolt transaction as a kvTx. A write transaction's
// secondary key writes wait in idx until it ends (see idxWrites).
type boltTx struct {
	tx  *bolt.Tx
	idx *idxWrites
}

func (t boltTx) Bucket(name []byte) kvBucket {
	b := t.tx.Bucket(name)
	if b == nil {
		return nil
	}
	return boltBucket{b}
}

type boltBucket struct{ *bolt.Bucket }

func (b boltBucket) Cursor() kvCursor { return b.Bucket.Cursor() }

// getter returns b.Get for reading many keys in a row. On bbolt it seeks
// one cursor, whose path is kept between keys, where b.Get makes a
// cursor and grows its path anew on every call (a fifth of what reading
// a packet's heads allocated).
func getter(b kvBucket) func(k []byte) []byte {
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

// txSize is the engine's size in bytes where it knows one, else 0.
func txSize(tx kvTx) int64 {
	if s, ok := tx.(interface{ Size() int64 }); ok {
		return s.Size()
	}
	return 0
}

// prefetch tells an engine whose reads are round trips (etcd) that the
// records ids of ns are about to be read from buckets; bbolt reads from
// memory, and the keys are not even built for it.
func prefetch(tx kvTx, ns string, ids []string, buckets ...[]byte) {
	et, ok := tx.(*etcdTx)
	if !ok {
		return
	}
	ks := make([][]byte, len(ids))
	for i, id := range ids {
		ks[i] = key(ns, id)
	}
	for _, b := range buckets {
		et.prefetch(b, ks)
	}
}

// dependOn makes tx, a write, commit only if keys of bucket are as its
// snapshot had them (unchanged, and not deleted), as if it had read them
// with Get. On etcd it reads them, a round trip per 128, and the commit
// compares what it read; bbolt runs one writer at a time.
func dependOn(tx kvTx, bucket []byte, keys [][]byte) {
	et, ok := tx.(*etcdTx)
	if !ok {
		return
	}
	et.prefetch(bucket, keys)
	b := et.Bucket(bucket)
	for _, k := range keys {
		b.Get(k)
	}
}

// prefetchPending is prefetch for the records of a put, which may span
// namespaces.
func prefetchPending(tx kvTx, ps []pending, buckets ...[]byte) {
	et, ok := tx.(*etcdTx)
	if !ok {
		return
	}
	ks := make([][]byte, len(ps))
	for i := range ps {
		ks[i] = key(ps[i].rec.NS, ps[i].rec.ID)
	}
	for _, b := range buckets {
		et.prefetch(b, ks)
	}
}
