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
// A text is kept by two 64-bit hashes of it under its encoding's two
// seeds, drawn in the process, not by itself, so an entry costs the same
// whatever the text's length (a false match needs 128 bits to collide by
// chance). Each shard keeps its counts in two generations: when the
// newer fills, it becomes the older and the older is dropped, and a
// count met in the older is carried into the newer. The cost of the
// bound is a recount, never a wrong count.

// maxFragments bounds the counts kept per generation (two generations:
// about 25 MB at most), and maxSharedChunk the length of a chunk of a
// whole render (memoCounter) that is kept: headings, notes, frame lines
// and the paragraphs of bodies. The cache is split in fragmentShards
// parts by the first hash, each with its own lock and generations, so
// that the pricing goroutines of concurrent builds seldom wait on each
// other.
const (
	maxFragments   = 1 << 18
	maxSharedChunk = 4096
	fragmentShards = 16
	shardFragments = maxFragments / fragmentShards
)

// fragmentKey is a text's two hashes under its encoding's seeds: two
// fixed words, so a lookup hashes and compares 16 bytes.
type fragmentKey struct{ h1, h2 uint64 }

// fragmentSeeds holds two seeds per encoding name, drawn when the name
// is first met: keys of one text under two encodings are unrelated.
var fragmentSeeds sync.Map // encoding name -> *[2]maphash.Seed

func seedsOf(encoding string) *[2]maphash.Seed {
	if s, ok := fragmentSeeds.Load(encoding); ok {
		return s.(*[2]maphash.Seed)
	}
	s, _ := fragmentSeeds.LoadOrStore(encoding, &[2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()})
	return s.(*[2]maphash.Seed)
}

func keyWith(seeds *[2]maphash.Seed, text string) fragmentKey {
	return fragmentKey{maphash.String(seeds[0], text), maphash.String(seeds[1], text)}
}

type fragmentShard struct {
	sync.Mutex
	counts, older map[fragmentKey]int // the newer generation, the older
}

var fragments struct {
	shards       [fragmentShards]fragmentShard
	hits, misses atomic.Int64
}

func shardOf(k fragmentKey) *fragmentShard { return &fragments.shards[k.h1%fragmentShards] }

// FragmentStats reports how often a fragment's count came from the
// process's cache (hits) and how often it was counted (misses).
func FragmentStats() (hits, misses int64) {
	return fragments.hits.Load(), fragments.misses.Load()
}

// lookupFragment returns the kept count of k, carrying one from the
// older generation into the newer.
func lookupFragment(k fragmentKey) (int, bool) {
	sh := shardOf(k)
	sh.Lock()
	defer sh.Unlock()
	if n, ok := sh.counts[k]; ok {
		return n, true
	}
	n, ok := sh.older[k]
	if ok {
		sh.keepLocked(k, n)
	}
	return n, ok
}

func keepFragment(k fragmentKey, n int) {
	sh := shardOf(k)
	sh.Lock()
	sh.keepLocked(k, n)
	sh.Unlock()
}

func (sh *fragmentShard) keepLocked(k fragmentKey, n int) {
	if sh.counts == nil || len(sh.counts) >= shardFragments {
		sh.older, sh.counts = sh.counts, make(map[fragmentKey]int, shardFragments/4)
	}
	sh.counts[k] = n
}

// resetFragments empties the cache (tests).
func resetFragments() {
	for i := range fragments.shards {
		sh := &fragments.shards[i]
		sh.Lock()
		sh.counts, sh.older = nil, nil
		sh.Unlock()
	}
}

// fragmentCounter counts fragments for one build: through the process's
// cache for the budget package's BPE counters, directly for any other.
type fragmentCounter struct {
	c     budget.Counter
	seeds *[2]maphash.Seed // nil: not shared
}

func newFragmentCounter(c budget.Counter) fragmentCounter {
	if !exactBPE(c) {
		return fragmentCounter{c: c}
	}
	return sharedFragmentCounter(c)
}

// sharedFragmentCounter counts through the process's cache; c must be
// one of the budget package's BPE counters (exactBPE).
func sharedFragmentCounter(c budget.Counter) fragmentCounter {
	return fragmentCounter{c: c, seeds: seedsOf(c.Name())}
}

// Count returns the tokens of s, as the build's counter would.
func (f fragmentCounter) Count(s string) int {
	if f.seeds == nil {
		return f.c.Count(s)
	}
	k := keyWith(f.seeds, s)
	if n, ok := lookupFragment(k); ok {
		fragments.hits.Add(1)
		return n
	}
	fragments.misses.Add(1)
	n := f.c.Count(s)
	keepFragment(k, n)
	return n
}
