package store

import (
	"context"
	"io"
)

// Backend is the store contract: the truth that the facade, the packet
// builder, the index maintenance and the servers read and write. *Store
// satisfies it on every engine, bbolt (Open) and etcd (OpenURL with
// package store/etcdstore linked); a new engine is a new implementation
// of Engine under this contract, checked by the shared conformance suite
// in store/storetest.
//
// What every backend promises:
//
//   - Records, links, versions and the change log of one write commit
//     together or not at all, and a namespace is a wall: no call reads
//     across it unless the caller names the other namespace.
//   - A put of identical content writes nothing (StatusUnchanged); a
//     changed put bumps the version and keeps the previous one in
//     history, at most Options.HistoryCap per record.
//   - The change log's sequence only grows. It may have gaps (on etcd it
//     is the cluster revision, shared with other keys), and the entries
//     of one write may share one sequence number; Changes never splits
//     the entries of one sequence number across two calls. Readers must
//     not assume a gap-free log.
//   - Concurrent writers never lose an update: bbolt serialises writers
//     with its file lock, etcd with a compare on mod revisions in each
//     write's one transaction (retried on conflict).
//   - Token counts cached by SetTokens are a cache: a concurrent put may
//     drop one, never corrupt one.
type Backend interface {
	Reader
	// Put stores one record (see PutMany).
	Put(r Record) (PutResult, error)
	// PutContext is Put that writes nothing once ctx is done.
	PutContext(ctx context.Context, r Record) (PutResult, error)
	// PutMany stores records, then links, all or nothing.
	PutMany(recs []Record, links []Link) ([]PutResult, error)
	// PutManyContext is PutMany that writes nothing once ctx is done.
	PutManyContext(ctx context.Context, recs []Record, links []Link) ([]PutResult, error)
	// RestoreContext is PutManyContext that keeps the stamps (created,
	// updated, version) and the history of records it creates.
	RestoreContext(ctx context.Context, recs []Record, links []Link) ([]PutResult, error)
	// Delete removes a record, its body and history; cascade removes its
	// links both ways too.
	Delete(ns, id string, cascade bool) error
	// Link adds or re-weights a link and reports whether it changed.
	Link(l Link) (bool, error)
	// Unlink removes a link; ErrNotFound if it is not there.
	Unlink(ns, from, rel, to string) error
	// SetTokens caches a token count under another counter; it writes
	// no change-log entry.
	SetTokens(ns, id, counter string, tc TokenCount) error

	// Changes returns change-log entries with Seq above after, in Seq
	// order, about limit of them (more when the entries of the last
	// sequence number would be split).
	Changes(after uint64, limit int) ([]Change, error)
	// LastSeq is the Seq of the newest change, 0 for an empty log.
	LastSeq() (uint64, error)

	// Check verifies the store and lists what is wrong.
	Check() ([]Problem, error)
	// Backup writes a consistent copy of the store to w, where the
	// engine can (bbolt); etcd refuses and names its own snapshot tool.
	Backup(w io.Writer) (int64, error)
	// Path names the store: a bbolt file, or an etcd store URL.
	Path() string
	// ReadOnly reports whether every write is refused.
	ReadOnly() bool
	// Close releases the store; closing twice is harmless.
	Close() error
}

// Reader is the read half of the contract.
type Reader interface {
	Get(ns, id string) (Record, error)
	GetVersion(ns, id string, version int) (Record, error)
	History(ns, id string) ([]Record, error)
	Head(ns, id string) (Record, error)
	Heads(ns string, ids []string) ([]Record, error)
	Bodies(ns string, ids []string) (map[string]string, error)
	List(opts ListOptions) ([]Record, string, error)
	Recent(ns string, n int) ([]Record, error)
	ForEach(ns string, fn func(Record) error) error
	ForEachLink(ns string, fn func(Link) error) error
	Links(ns, id string, dir Direction) ([]Link, error)
	Neighbors(ns, id string, hops int, rels []string) ([]Neighbor, error)
	NeighborsOf(ns string, ids []string, rels []string) (map[string][]Neighbor, error)
	Namespaces() ([]string, error)
	Stats(ns string) (Stats, error)
	// Vectors reads every vector of ns with the change-log sequence
	// number its snapshot holds; VectorsOf those of some records;
	// VectorDim the dimension of ns's vectors (0: none).
	Vectors(ns string) (VectorSet, error)
	VectorsOf(ns string, ids []string) ([]VectorEntry, error)
	VectorDim(ns string) (int, error)
}

var _ Backend = (*Store)(nil)
