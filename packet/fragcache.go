package packet

import (
	"hash/maphash"
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
// likes).
//
// A text is kept by two 64-bit hashes of it under seeds drawn at start,
// not by itself, so an entry costs the same whatever the text's length
// (a false match needs 128 bits to collide by chance). The counts live in
// two generations of maxFragments each: when the newer fills, it becomes
// the older and the older is dropped, and a count met in the older is
// carried into the newer. The cost of the bound is a recount, never a
// wrong count.

// maxFragments bounds the counts kept per generation (two generations:
// about 40 MB at most), and maxSharedChunk the length of a chunk of a
// whole render (memoCounter) that is kept: headings, notes, frame lines
// and the paragraphs of bodies.
const (
	maxFragments   = 1 << 18
	maxSharedChunk = 4096
)

type fragmentKey struct {
	encoding string
	h1, h2   uint64
}

var fragmentSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func keyOf(encoding, text string) fragmentKey {
	return fragmentKey{encoding, maphash.String(fragmentSeeds[0], text), maphash.String(fragmentSeeds[1], text)}
}

var fragments = struct {
	sync.Mutex
	counts, older map[fragmentKey]int // the newer generation, the older
	hits, misses  atomic.Int64
}{counts: map[fragmentKey]int{}}

// FragmentStats reports how often a fragment's count came from the
// process's cache (hits) and how often it was counted (misses).
func FragmentStats() (hits, misses int64) {
	return fragments.hits.Load(), fragments.misses.Load()
}

// lookupFragment returns the kept count of k, carrying one from the
// older generation into the newer.
func lookupFragment(k fragmentKey) (int, bool) {
	fragments.Lock()
	defer fragments.Unlock()
	if n, ok := fragments.counts[k]; ok {
		return n, true
	}
	n, ok := fragments.older[k]
	if ok {
		keepFragmentLocked(k, n)
	}
	return n, ok
}

func keepFragmentLocked(k fragmentKey, n int) {
	if len(fragments.counts) >= maxFragments {
		fragments.older, fragments.counts = fragments.counts, make(map[fragmentKey]int, maxFragments/4)
	}
	fragments.counts[k] = n
}

// resetFragments empties the cache (tests).
func resetFragments() {
	fragments.Lock()
	fragments.counts, fragments.older = map[fragmentKey]int{}, nil
	fragments.Unlock()
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
	k := keyOf(f.c.Name(), s)
	if n, ok := lookupFragment(k); ok {
		fragments.hits.Add(1)
		return n
	}
	fragments.misses.Add(1)
	n := f.c.Count(s)
	fragments.Lock()
	keepFragmentLocked(k, n)
	fragments.Unlock()
	return n
}
