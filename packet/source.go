package packet

import (
	"context"
	"runtime"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// Source is the part of the store a packet reads. *store.Store satisfies
// it. Heads carry cached token counts but no body: Build reads bodies only
// for the records it emits.
type Source interface {
	// Heads returns the records without bodies, skipping missing ids.
	Heads(ns string, ids []string) ([]store.Record, error)
	// Bodies returns the bodies of ids by id.
	Bodies(ns string, ids []string) (map[string]string, error)
	// Neighbors walks links both ways up to hops, sorted (hops, id).
	Neighbors(ns, id string, hops int, rels []string) ([]store.Neighbor, error)
	// List pages through heads of a namespace, sorted by id.
	List(opts store.ListOptions) ([]store.Record, string, error)
}

// SharedHeads is implemented by a Source that can hand out heads that
// share their maps with heads it keeps (*store.Store does, see
// store.Store.HeadsShared): the candidates' heads are read through it,
// and a packet changes no head it reads.
type SharedHeads interface {
	HeadsShared(ns string, ids []string) ([]store.Record, error)
}

// readHeads reads heads from src, sharing them where src can: the
// candidates' heads, which a build only reads.
func readHeads(src Source, ns string, ids []string) ([]store.Record, error) {
	if sh, ok := src.(SharedHeads); ok {
		return sh.HeadsShared(ns, ids)
	}
	return src.Heads(ns, ids)
}

// TokenSetter is implemented by a Source that can cache token counts for
// another encoding (*store.Store does). Build uses it when a record has no
// cached count for the request's encoding: it counts once and caches.
type TokenSetter interface {
	SetTokens(ns, id, counter string, tc store.TokenCount) error
}

// Recenter is implemented by a Source that can list the most recently
// updated records without reading every head (*store.Store does); the
// agent profile's "recent" rule uses it, else it lists the namespace.
type Recenter interface {
	// Recent returns the heads of the n most recently updated records,
	// newest first, equal times by id.
	Recent(ns string, n int) ([]store.Record, error)
}

// OrderSeeker is implemented by a Source that reads the records of a
// kind in story order from a position through secondary keys
// (*store.Store does, see store.Store.Ordered); the timeline rule reads
// only the entries nearest the focus with it, else it lists the kind.
// ok false means this store cannot (a format 1 store opened read-only),
// and the rule lists the kind.
type OrderSeeker interface {
	Ordered(ns, kind string, from int64, backward bool, fn func(store.Record) bool) (ok bool, err error)
}

// DueSeeker is implemented by a Source that reads the open obligations
// of a kind due by a story position through secondary keys (*store.Store
// does, see store.Store.Due); the obligation rule then reads only those
// it may pull, else it lists the kind. ok false means this store cannot
// for this kind, and the rule lists the kind.
type DueSeeker interface {
	Due(ns, kind string, by int64, all bool, fn func(store.Record) bool) (ok bool, err error)
}

// NeighborLister is implemented by a Source that reads the one-hop
// neighbours of many records in one read (*store.Store does); a packet
// asks for those of every search hit. Else Build calls Neighbors per hit.
type NeighborLister interface {
	NeighborsOf(ns string, ids []string, rels []string) (map[string][]store.Neighbor, error)
}

// Searcher finds records by full text within one namespace. *index.Index
// satisfies it. Build makes a request's first search on a goroutine of
// its own while it reads the Source (see searchahead.go): a Searcher and
// a Source are called at the same time, each from one goroutine at a
// time (but see ConcurrentSource).
type Searcher interface {
	Search(ctx context.Context, q index.Query) ([]index.Hit, error)
}

// ConcurrentSource is implemented by a Source whose reads may run on
// several goroutines at once (*store.Store: each read is a transaction
// of its own). When ReadsConcurrently says so, Build reads the bodies of
// the records it will most likely keep on another goroutine beside its
// own reads (bodiesahead.go), and a refused packet checks a proposal's
// packets beside the search for its least budget (splitkinds.go); any
// other Source is read from one goroutine at a time. The Searcher is
// still called from one goroutine at a time.
type ConcurrentSource interface {
	ReadsConcurrently() bool
}

// readsConcurrently reports whether Build may read src from more than
// one goroutine at once, and whether that can help (more than one core).
func readsConcurrently(src Source) bool {
	cs, ok := src.(ConcurrentSource)
	return ok && cs.ReadsConcurrently() && runtime.GOMAXPROCS(0) > 1
}
