package packet

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
)

// The terms of a body's units, kept for the process.
//
// Scoring an excerpt's units reads the terms each unit holds
// (scoreUnits), and the same long records come up again and again: as
// hits of the next question about the same subject, and of the same
// question at another budget. A body's units and the units each term is
// in do not depend on the question, so they are worked out once per body
// and kept for every later packet: a question then looks up its own few
// terms rather than analyse the units again. What is kept is a function
// of the body alone, so the same store and request give the same
// excerpt whatever packets the process built before.
//
// This replaced a prefilter that analysed only the units whose text held
// a query term less its last letter at the start of a word. It was
// faster than analysing every unit each time, but it missed words whose
// term is short and not a prefix of them ("lady" is filed as "ladi").
// Without it, 134 of the long chats' 2,145 rows changed (mostly the
// excerpts' counts; 10 hold other records) and 1,192 of the stories'
// 128,220, the short turns' none; every mean the same within .0002.
// Measured on the long chats (the recall benchmark, 715 packets): in
// its CPU profile the scoring took 3.19 s before and 1.35 s after, 0.87 s
// of it working out bodies not kept yet; run side by side with the
// commit before, the build's p50 went from 21.8 to 20.6 ms for each
// question's first packet (500 tokens) and from 22-24 to 13-17 ms for
// the same question at 1k-8k tokens (BenchmarkExcerpt: a body of 2,400
// tokens new, 0.36-0.42 ms; kept, 0.03 ms).

// bodyTerms is what scoring keeps of one body: its units, as splitUnits
// cuts it, and where each term of them is.
type bodyTerms struct {
	units []textUnit // scores 0, tokens -1: score scores a copy
	// terms are the body's distinct terms, sorted; the units that hold
	// terms[i] are postings[first[i]:first[i+1]], in the body's order,
	// each once.
	terms    []string
	first    []int32
	postings []posting

	// counts keeps each unit's token count by counter name, counted the
	// first time a passage reaches the unit (count+1; 0 while not
	// counted): a count depends on the unit's text alone, and the next
	// packet's passages reach the same units. Not in bytes: 4 bytes a
	// unit and encoding.
	countsMu sync.Mutex
	counts   map[string][]atomic.Int32
}

// posting is one unit that holds a term: its index, and the term's place
// among the unit's distinct terms in text order (what score sums in).
type posting struct{ unit, place int32 }

// bodyCache keeps bodyTerms by two hashes of the body, under seeds drawn
// in the process (a false match needs 128 bits to collide by chance), in
// two generations: a body found in the old one moves to the new, and a
// new one that holds bodyGeneration bodies or bodyGenerationBytes
// becomes the old, the old one dropped. So a body in use stays, and the
// cache holds at most twice the bound (a message of 700 tokens of prose
// keeps about 7 KB, so 1,024 of them fill a generation).
var bodyCache struct {
	mu       sync.Mutex
	seeds    [2]maphash.Seed
	cur, old map[[2]uint64]*bodyTerms
	curBytes int
}

const (
	bodyGeneration      = 1024
	bodyGenerationBytes = 8 << 20
)

func init() {
	bodyCache.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
}

// termsOf returns the kept bodyTerms of body, worked out and kept when
// none is.
func termsOf(body string) *bodyTerms {
	c := &bodyCache
	key := [2]uint64{maphash.String(c.seeds[0], body), maphash.String(c.seeds[1], body)}
	c.mu.Lock()
	bt, ok := c.cur[key]
	if !ok {
		bt, ok = c.old[key]
	}
	c.mu.Unlock()
	if !ok {
		bt = newBodyTerms(body) // outside the lock: two packets may both work it out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, in := c.cur[key]; !in {
		if c.cur == nil || len(c.cur) >= bodyGeneration || c.curBytes+bt.bytes() > bodyGenerationBytes {
			c.old, c.cur, c.curBytes = c.cur, make(map[[2]uint64]*bodyTerms), 0
		}
		c.cur[key] = bt
		c.curBytes += bt.bytes()
	}
	return bt
}

// bytes is about the memory bt holds.
func (bt *bodyTerms) bytes() int {
	n := 32*len(bt.units) + 4*len(bt.first) + 8*len(bt.postings)
	for _, t := range bt.terms {
		n += 16 + len(t)
	}
	return n
}

// newBodyTerms cuts body into its units and finds each one's terms.
func newBodyTerms(body string) *bodyTerms {
	units := splitUnits(body)
	// Each unit's distinct terms in text order, as term ids (by first
	// occurrence in the body), with their unit and place.
	type found struct{ id, unit, place int32 }
	ids := map[string]int32{}
	var byID []string
	var all []found
	for k, u := range units {
		from := len(all)
		index.EachTerm(body[u.start:u.end], func(term []byte) {
			id, ok := ids[string(term)]
			if !ok {
				id = int32(len(byID))
				byID = append(byID, string(term))
				ids[byID[id]] = id
			}
			for _, f := range all[from:] {
				if f.id == id {
					return
				}
			}
			all = append(all, found{id, int32(k), int32(len(all) - from)})
		})
	}
	// The terms sorted, and each one's units gathered in the body's
	// order (a counting sort by the term's rank).
	bt := &bodyTerms{units: units, terms: slices.Clone(byID), postings: make([]posting, len(all))}
	slices.Sort(bt.terms)
	rank := make([]int32, len(byID))
	for r, t := range bt.terms {
		rank[ids[t]] = int32(r)
	}
	bt.first = make([]int32, len(bt.terms)+1)
	for _, f := range all {
		bt.first[rank[f.id]+1]++
	}
	for r := range bt.terms {
		bt.first[r+1] += bt.first[r]
	}
	next := slices.Clone(bt.first[:len(bt.terms)])
	for _, f := range all {
		r := rank[f.id]
		bt.postings[next[r]] = posting{f.unit, f.place}
		next[r]++
	}
	return bt
}

// unitCounts returns a counter of body's units by their index, in
// counter's tokens, that keeps what it counts in bt (counts).
func (bt *bodyTerms) unitCounts(body string, counter budget.Counter) func(unit int) int {
	bt.countsMu.Lock()
	cs, ok := bt.counts[counter.Name()]
	if !ok {
		if bt.counts == nil {
			bt.counts = map[string][]atomic.Int32{}
		}
		cs = make([]atomic.Int32, len(bt.units))
		bt.counts[counter.Name()] = cs
	}
	bt.countsMu.Unlock()
	return func(i int) int {
		if n := cs[i].Load(); n > 0 {
			return int(n - 1)
		}
		n := counter.Count(body[bt.units[i].start:bt.units[i].end])
		cs[i].Store(int32(n + 1))
		return n
	}
}

// postingsOf returns the units that hold term t.
func (bt *bodyTerms) postingsOf(t string) []posting {
	i, ok := slices.BinarySearch(bt.terms, t)
	if !ok {
		return nil
	}
	return bt.postings[bt.first[i]:bt.first[i+1]]
}

// scoreUnits returns body's units (splitUnits), each scored by the query
// terms q it holds, each term once, weighted by how few units hold it: a
// term in every line of the record tells less about where the answer is
// than one in a single line.
func scoreUnits(body string, q map[string]bool) []textUnit {
	return termsOf(body).score(q)
}

// score is scoreUnits with bt's kept terms.
func (bt *bodyTerms) score(q map[string]bool) []textUnit {
	units := slices.Clone(bt.units)
	// Each unit's terms of q, by their places in it, with their weights.
	type held struct {
		unit, place int32
		weight      float64
	}
	var holds []held
	n := float64(len(units))
	for t := range q {
		ps := bt.postingsOf(t)
		w := math.Log(1 + n/float64(len(ps)))
		for _, p := range ps {
			holds = append(holds, held{p.unit, p.place, w})
		}
	}
	// Summed in text order: a sum in q's order could differ in its last
	// bit from one run to the next, and so could the passage.
	slices.SortFunc(holds, func(a, b held) int {
		return cmp.Or(cmp.Compare(a.unit, b.unit), cmp.Compare(a.place, b.place))
	})
	for _, h := range holds {
		units[h.unit].score += h.weight
	}
	return units
}
