package packet

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unsafe"

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
// A text is counted as the sum of its chunks (see chunks), and a chunk
// is kept by two 64-bit hashes of it under its encoding's two
// seeds, drawn in the process, not by itself, so an entry costs the same
// whatever the text's length (a false match needs 128 bits to collide by
// chance). The counts sit in a fixed table of small sets, chosen by the
// first hash: a new count goes first in its set and the oldest falls
// out, so the table never grows and the cost of its bound is a recount,
// never a wrong count. Each set carries a version (a sequence lock): a
// writer makes it odd while it writes, and a reader that sees it odd or
// changed takes the count as missing. Lookups take no lock and touch one
// set; they are most of the cache's use (a packet's pricing looks up
// hundreds of fragments on both cores).

// The table holds fragmentWays counts a set, 72 bytes. It is made on
// the first count with fragmentSets sets (about 19 MB) and grows, up to
// maxFragmentSets (about 75 MB), to a set for each record of the largest
// store the process builds packets from (SizeFragmentCache): the
// fragments worth keeping grow with the records that can come up (at
// 1M records, a chapter packet that followed a scene packet of the same
// query found 73% of its counts kept with 2^18 sets and 89% with 2^20).
// Every chunk of a whole render (memoCounter) is kept, whatever its
// length: headings, notes, frame lines and the paragraphs of bodies,
// which bodiesahead.go counts before the render needs them.
const (
	fragmentSets    = 1 << 18
	maxFragmentSets = 1 << 20
	fragmentWays    = 4
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

// fragmentSlot is one kept count in two words: tag holds the high half
// of h1 above the count plus one (a tag of 0 is an empty slot), h2 the
// second hash. The low half of h1 chose the set, so the key is still
// checked on 96 bits beside the set's 18 to 20. Both words are read and
// written atomically, so a reader racing a writer sees old or new
// words, and the set's version tells it which.
type fragmentSlot struct {
	tag, h2 atomic.Uint64
}

// maxKeptCount bounds the counts a slot can hold (the tag's low half);
// a chunk of more tokens is counted each time.
const maxKeptCount = 1<<32 - 2

// tagOf is the tag of k with count n.
func tagOf(k fragmentKey, n int) uint64 { return k.h1&^0xffffffff | uint64(n+1) }

// holds reports whether sl keeps the count of k.
func (sl *fragmentSlot) holds(k fragmentKey) bool {
	tag := sl.tag.Load()
	return tag&0xffffffff != 0 && tag&^0xffffffff == k.h1&^0xffffffff && sl.h2.Load() == k.h2
}

type fragmentSet struct {
	version atomic.Uint64
	slots   [fragmentWays]fragmentSlot
}

var fragments struct {
	mu           sync.Mutex // held to make or grow the table
	table        atomic.Pointer[[]fragmentSet]
	hits, misses atomic.Int64
}

// fragmentTable returns the table, made on the first call. Its length
// is a power of two.
func fragmentTable() []fragmentSet {
	if t := fragments.table.Load(); t != nil {
		return *t
	}
	growFragments(fragmentSets)
	return *fragments.table.Load()
}

// growFragments replaces the table by an empty one of n sets (a power
// of two) if it has fewer. The counts it held are dropped: a lookup on
// either table gets a kept count or a miss, and a miss is a recount.
func growFragments(n int) {
	fragments.mu.Lock()
	defer fragments.mu.Unlock()
	if t := fragments.table.Load(); t == nil || len(*t) < n {
		sets := make([]fragmentSet, n)
		fragments.table.Store(&sets)
	}
}

// SizeFragmentCache lets the process's cache of fragment counts grow to
// a set of counts for each of records (a store's size), between 2^18
// and 2^20 sets; it never shrinks. The first call that grows it drops
// the counts it held.
func SizeFragmentCache(records uint64) {
	n := fragmentSets
	for n < maxFragmentSets && uint64(n) < records {
		n *= 2
	}
	if t := fragments.table.Load(); t == nil || len(*t) < n {
		growFragments(n)
	}
}

func setOf(k fragmentKey) *fragmentSet {
	t := fragmentTable()
	return &t[k.h1&uint64(len(t)-1)]
}

// FragmentStats reports how often a fragment's count came from the
// process's cache (hits) and how often it was counted (misses).
func FragmentStats() (hits, misses int64) {
	return fragments.hits.Load(), fragments.misses.Load()
}

// lookupFragment returns the kept count of k; a set being written counts
// as a miss.
func lookupFragment(k fragmentKey) (int, bool) {
	set := setOf(k)
	v := set.version.Load()
	if v&1 != 0 {
		return 0, false
	}
	tag := uint64(0)
	for i := range set.slots {
		if sl := &set.slots[i]; sl.holds(k) {
			tag = sl.tag.Load()
			break
		}
	}
	if tag == 0 || set.version.Load() != v {
		return 0, false
	}
	return int(tag&0xffffffff) - 1, true
}

// keepFragment puts the count of k first in its set, unless the set
// holds it already (two builds counted it at once). A set another writer
// holds is left as it is: the count is kept another time.
func keepFragment(k fragmentKey, n int) {
	if n < 0 || uint64(n) > maxKeptCount {
		return
	}
	set := setOf(k)
	v := set.version.Load()
	if v&1 != 0 || !set.version.CompareAndSwap(v, v+1) {
		return
	}
	for i := range set.slots {
		if set.slots[i].holds(k) {
			set.version.Store(v + 2)
			return
		}
	}
	for i := len(set.slots) - 1; i > 0; i-- {
		from, to := &set.slots[i-1], &set.slots[i]
		to.tag.Store(from.tag.Load())
		to.h2.Store(from.h2.Load())
	}
	first := &set.slots[0]
	first.tag.Store(tagOf(k, n))
	first.h2.Store(k.h2)
	set.version.Store(v + 2)
}

// resetFragments empties the cache and gives it its first size (tests;
// no count is being kept).
func resetFragments() {
	sets := make([]fragmentSet, fragmentSets)
	fragments.table.Store(&sets)
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

// Count returns the tokens of s, as the build's counter would. A shared
// counter counts s as the sum of its chunks (see chunks), each through
// the cache: an entry's heading line names why it is in this packet, but
// the summary or body lines below it read the same in every packet, so
// they are counted once for the process, not once for each reason.
func (f fragmentCounter) Count(s string) int {
	if f.seeds == nil {
		return f.c.Count(s)
	}
	total := 0
	for chunk := range chunks(s) {
		total += f.countChunk(chunk)
	}
	return total
}

// countBytes is Count of the text in b, which it does not keep: b may be
// written again once it returns.
func (f fragmentCounter) countBytes(b []byte) int {
	if f.seeds == nil {
		return f.c.Count(string(b)) // a caller's counter may keep its text
	}
	// A view of b, not a copy: it is hashed, and counted by one of the
	// budget package's BPE counters, which keep nothing of their input.
	return f.Count(unsafe.String(unsafe.SliceData(b), len(b)))
}

// countChunk returns the tokens of chunk, one chunk of a text as chunks
// cuts it, through the cache; f must be shared.
func (f fragmentCounter) countChunk(chunk string) int {
	k := keyWith(f.seeds, chunk)
	if n, ok := lookupFragment(k); ok {
		fragments.hits.Add(1)
		return n
	}
	fragments.misses.Add(1)
	n := f.c.Count(chunk)
	keepFragment(k, n)
	return n
}
