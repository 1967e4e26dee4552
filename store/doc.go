// Package store keeps Lore's records, links, versions and change log: the
// single source of truth. Everything else (the bleve index, packets) is
// derived from it. Backend is the contract; *Store implements it on an
// engine, with the logic written once over a small kv transaction
// (kv.go): one bbolt file (Open, the default, engine_bolt.go), or an
// engine kept in a package of its own and opened by store URL (OpenURL):
// an etcd cluster, package store/etcdstore. This package imports no
// engine but bbolt, and nothing of Lore.
//
// # Layout
//
// Keys join their parts with a 0x00 byte. Namespaces, ids, relation
// names, kinds and tags cannot contain control characters, so 0x00 never
// occurs inside a part, and a prefix scan for namespace "a" (key prefix
// "a\x00") never sees "a/b" or "ab". Byte order of keys is (ns, id) order.
// Every value starts with a format byte (1 today); a reader refuses other
// bytes with ErrCorrupt instead of guessing. A head with aliases or keys
// starts with 2: the format 1 head followed by the aliases and the keys. A
// head without them is still written as format 1, so a store that uses no
// names reads the same in a version that knows only format 1, and a packet
// finds the heads that go by a name without decoding the others.
//
//	meta       "format" -> store format (4; 3 before the name keys, 2 before the due keys, 1 before the idx keys; while an upgrade runs: from, to, last head key done, see upgrade.go); "seq" -> last change-log sequence number (uint64, big-endian); "vecdim" 0 ns -> the namespace's vector dimension and how many of its records have one
//	heads      ns 0 id -> record head: everything but the body, with body size and cached token counts
//	bodies     ns 0 id -> format byte + body bytes (absent when the body is empty)
//	vectors    ns 0 id -> format byte + the record's vector, float32 little-endian (vector.go; the head's flags say it has one)
//	history    ns 0 id 0 version(uint64 BE) -> a previous version, head and body (and its vector between them, format byte 2)
//	links_out  ns 0 from 0 rel 0 to -> format byte + weight (float64 bits, BE) [+ made (unix nanoseconds, BE); 9-byte values read as made 0]
//	links_in   ns 0 to 0 rel 0 from -> the same value
//	changes    seq(uint64 BE) -> format byte, op byte, namespace, id
//	idx        secondary keys, empty values: by kind, pinned, newest first,
//	           by order both ways (secondary.go), open obligations by due
//	           (due.go); written with their heads
//
// Heads are kept apart from bodies so that ranking and fitting (List,
// Head, Heads) never read a body they will not emit. Links are stored in
// both directions so a record's neighbours are one range scan either way.
//
// # Writes
//
// Each write (Put, PutMany, Delete, Link, Unlink) is one bbolt
// transaction, and appends its change-log entries (one per record or link
// it touches) in that same transaction: the log never misses a committed
// write nor shows an uncommitted one. The index applies the log after its
// watermark. A put of identical content (same SHA256 over the content
// fields) writes nothing and reports StatusUnchanged. A changed put bumps
// the version and moves the previous version into history, evicting the
// oldest beyond Options.HistoryCap. SetTokens only fills the token cache:
// it writes no change-log entry.
//
// Token counts are computed at write time by Options.Counters, outside
// the write transaction, and cached in the head.
//
// # Concurrency and locking
//
// A Store is safe for concurrent use by many goroutines: reads run in
// parallel, writes are serialized by bbolt's single writer. Across
// processes, bbolt's flock gives one writer at a time; read-only opens
// share the lock with one another but not with a writer. Open waits up to
// Options.LockTimeout, then returns ErrLocked naming the file.
//
// ForEach and ForEachLink read in batches and call back outside any
// transaction, so a callback may use the store; the walk is therefore not
// one snapshot.
//
// A bbolt store keeps the heads and neighbour lists it has decoded
// (readcache.go) while no write runs: a write counts a generation up
// before and after, and a read uses what is kept only if the count was
// even before its transaction and is unchanged after. Heads hands out
// copies; HeadsShared, for callers that only read (a packet), the kept
// heads themselves. An engine other than bbolt keeps nothing: its
// writers may be other processes on other hosts.
//
// # Engines
//
// An engine is the database the buckets live in (Engine, engine.go).
// Everything about records, links, versions and the change log is
// written once against the kv layer (KVTx, KVBucket, KVCursor), and
// Store has no branch on its engine (Open gives a bbolt store its read
// cache). An engine outside this package
// implements Engine and its KVTx, opens its Store with NewStore, and
// registers a Driver for its URL scheme from its init (Register,
// url.go), as a database/sql driver does; a program links it by
// importing its package. What an engine may do beside the kv layer are
// optional interfaces of its KVTx: ChangeLogTx, where it keeps the change
// log itself (etcd: the history of one key, numbered by revision), and
// BatchReader, where its reads are round trips and many keys are read in
// one. The conformance suite (store/storetest) runs the contract on each
// engine: this package's tests on bbolt, etcdstore's on etcd. On etcd,
// bucket b's key k is prefix+b+"/"+k under the store URL's prefix, the
// same layout; etcdstore's doc tells the rest.
//
// # Caveats
//
// Backup copies the file through a read transaction, consistent while the
// store is in use. Check on a writable store holds the write lock while it
// runs. A body can be at most 1 GiB (bbolt's value limit is 2 GiB, and a
// version in history holds a copy).
package store
