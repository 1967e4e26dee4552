package packet

import (
	"sync"
	"sync/atomic"

	"github.com/lorekeep/lore/budget"
)

// Work shared across packets. Pricing a candidate counts the short texts
// its entry and its note render to (a heading, a note line) before any
// body is read: for a packet of 8,000 tokens, hundreds of them. A server
// builds many packets over one store, and the same record renders the
// same heading in each, so the counts are kept for the process. A count
// is a function of the text and the encoding alone, so nothing kept can go
// stale, whatever the store does; only the budget package's own BPE
// counters are trusted to be that (a caller's counter may count as it
// likes). When the texts kept pass maxFragmentBytes the cache starts
// again empty: the cost is a recount, never a wrong count.

// maxFragmentBytes bounds the text kept, and maxSharedChunk the length
// of a chunk of a whole render (memoCounter) that is kept with it:
// headings, notes and frame lines, not bodies.
const (
	maxFragmentBytes = 16 << 20
	maxSharedChunk   = 256
)

type fragmentKey struct{ encoding, text string }

var fragments = struct {
	sync.Mutex
	counts       map[fragmentKey]int
	bytes        int // of the texts in counts
	hits, misses atomic.Int64
}{counts: map[fragmentKey]int{}}

// FragmentStats reports how often a fragment's count came from the
// process's cache (hits) and how often it was counted (misses).
func FragmentStats() (hits, misses int64) {
	return fragments.hits.Load(), fragments.misses.Load()
}

// fragmentCounter counts fragments for one build: through the process's
// cache for the budget package's BPE counters, directly for any other.
type fragmentCounter struct {
	c      budget.Counter
	shared bool
}

func newFragmentCounter(c budget.Counter) fragmentCounter {
	return fragmentCounter{c: c, shared: exactBPE(c)}
}

// Count returns the tokens of s, as the build's counter would.
func (f fragmentCounter) Count(s string) int {
	if !f.shared {
		return f.c.Count(s)
	}
	k := fragmentKey{f.c.Name(), s}
	fragments.Lock()
	n, ok := fragments.counts[k]
	fragments.Unlock()
	if ok {
		fragments.hits.Add(1)
		return n
	}
	fragments.misses.Add(1)
	n = f.c.Count(s)
	fragments.Lock()
	if fragments.bytes+len(s) > maxFragmentBytes {
		clear(fragments.counts)
		fragments.bytes = 0
	}
	if _, ok := fragments.counts[k]; !ok {
		fragments.counts[k] = n
		fragments.bytes += len(s)
	}
	fragments.Unlock()
	return n
}
