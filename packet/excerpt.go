package packet

import (
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
)

// Excerpts: the passage of a long body that a query matches.
//
// A record of 2,000 tokens at the top of the hits once blocked a packet
// of 500 tokens: whole, it did not fit, and the fill stopped there. A
// reader who asks about one sentence of it needs that sentence, with
// enough around it to read, and a handle for the rest (the context-budget
// skill's ladder, step 2: cite the record rather than quote it). So where
// a profile sets Profile.Excerpt, a hit or neighbour whose body is more
// than a fifth longer than the excerpt's size is shown by an excerpt:
// its units (lines, cut into sentences where a line is long) are scored
// by the query's terms, analysed as the index analyses them, each term
// weighted by how few of the record's units hold it; the best unit is
// the seed and the passage grows around it, towards the better-scoring
// side, until it holds the excerpt's size. Where another unit, away from
// that passage, scores as well, the excerpt shows two passages, one
// around each (passages). A body the query does not match opens the
// passage at its start. The lead record (the first in packet order) gets
// a third more room (leadExcerptSize): it is the one most likely to hold the
// answer, and the answer often lies a few sentences past the words the
// query shares with it.
//
// The passages are the record's own text, one or two stretches of it, in
// its order: nothing is invented or reordered. Gap markers ("[…]") stand
// where text before, between or after them is left out, and the entry's
// Omitted counts the tokens left out; `lore get` prints the whole. The
// excerpt is chosen before fitting, the same at every budget, so the
// packet stays monotone: a record shown by its excerpt at one budget is
// shown so at every bigger one, or whole where every candidate fits
// whole (fitsWhole).

// gapMarker stands for body text an excerpt leaves out.
const gapMarker = "[…]"

// formExcerpt is Entry.Form of a record shown by its excerpt.
const formExcerpt = "excerpt"

// minExcerpt is the smallest excerpt a profile may ask for: a passage
// shorter than a few sentences seldom holds an answer with its context.
const minExcerpt = 32

// excerpt is the part of a body an entry shows.
type excerpt struct {
	text    string // the passage, with a gap marker where text is left out
	tokens  int    // text's count
	omitted int    // tokens of the body left out (whole body less the passage's units)
	// body and bodyTokens are the whole body and its count, for a fill
	// that shows it whole after all (upgrade.go).
	body       string
	bodyTokens int
}

// makeExcerpt returns the excerpt of body for the query terms q that
// holds about size tokens, and false when the body is too short to be
// worth one (at most a fifth over size) or the passage would not save
// 15% of it. bodyTokens is the body's count.
func makeExcerpt(body string, bodyTokens int, q map[string]bool, size int, counter budget.Counter) (excerpt, bool) {
	if size <= 0 || bodyTokens <= size+size/5 {
		return excerpt{}, false
	}
	bt := termsOf(body)
	units := bt.score(q)
	if len(units) < 2 {
		return excerpt{}, false
	}
	spans, shown := passages(units, size, bt.unitCounts(body, counter))
	if 100*shown > 85*bodyTokens {
		return excerpt{}, false
	}
	var b strings.Builder
	next := 0 // the first unit after the passages written
	for k, sp := range spans {
		if k > 0 {
			b.WriteString(" ")
		}
		if sp[0] > next {
			b.WriteString(gapMarker + " ")
		}
		b.WriteString(body[units[sp[0]].start:units[sp[1]].end])
		next = sp[1] + 1
	}
	if next < len(units) {
		b.WriteString(" " + gapMarker)
	}
	text := b.String()
	return excerpt{text: text, tokens: counter.Count(text), omitted: max(0, bodyTokens-shown), body: body, bodyTokens: bodyTokens}, true
}

// passages chooses the units an excerpt shows, as spans of unit indexes
// [first, last] in the body's order, and the tokens of their units, each
// counted alone. One passage grows from the best unit (seedUnit) to half
// the size; where a unit outside it, and not next to it, scores as well
// as the best, a second passage grows from it with the rest of the size,
// and the first then takes what the second's side of the body could not
// hold; else the first grows to the whole size. A body that matches the
// question as well in two places is shown at both: measured on story
// passages (docs/bench-history, 2026-12-07), the answer was in the
// packet more often at every budget (.810 .883 .946 .987 -> .815 .887
// .951 .989 from 500 to 4,000 tokens), the evidence the same. A second
// place that scores at all lost answers (.893 -> .880 at 1,000 on 1,500
// questions): the answer lies more often just after the best one.
func passages(units []textUnit, size int, count func(unit int) int) (spans [][2]int, total int) {
	seed := seedUnit(units)
	lo, hi, t1 := growPassage(units, seed, size/2, 0, len(units)-1, count)
	second := -1
	for i, u := range units {
		if (i < lo-1 || i > hi+1) && u.score > 0 && u.score >= units[seed].score && (second < 0 || u.score > units[second].score) {
			second = i
		}
	}
	if second < 0 || t1 >= size {
		lo, hi, total = growPassage(units, seed, size, 0, len(units)-1, count)
		return [][2]int{{lo, hi}}, total
	}
	var a, b [2]int
	var t2 int
	if second < lo {
		a[0], a[1], t2 = growPassage(units, second, size-t1, 0, lo-2, count)
		b[0], b[1], t1 = growPassage(units, seed, size-t2, a[1]+2, len(units)-1, count)
		return [][2]int{a, b}, t1 + t2
	}
	b[0], b[1], t2 = growPassage(units, second, size-t1, hi+2, len(units)-1, count)
	a[0], a[1], t1 = growPassage(units, seed, size-t2, 0, b[0]-2, count)
	return [][2]int{a, b}, t1 + t2
}

// fitsWhole reports whether every candidate, whole, fits the budget by
// its cached counts and a frame of wholeFrame tokens: then no excerpt is
// made, and the packet shows every record whole. A bigger budget holds
// them too (the candidates are all the search found: a pool the budget
// could not hold would have gone deeper), so a record shown whole at a
// budget is shown whole at every bigger one.
func (b *builder) fitsWhole() bool {
	sum := wholeFrame
	for _, c := range b.cands {
		sum += c.tc.Title + c.tc.Body + c.tc.Summary + wholeEntry
		if !fits(sum, b.req.Budget) {
			return false
		}
	}
	return true
}

// wholeFrame and wholeEntry price the frame and each entry's heading for
// fitsWhole, generously: short of the budget, the excerpts stay.
const (
	wholeFrame = 200
	wholeEntry = 12
)

// maxExcerpts bounds the excerpts a packet makes: the most important
// long candidates get them, the shallow hits' before the deep ones', the
// rest are shown whole. The order of the shallow ones is the same at
// every budget (a bigger budget only adds deeper hits after them), so
// which records are excerpted does not depend on the budget. Measured
// on long chats: every long candidate, about 250 a packet, took 17 ms a
// packet; the first 64 take 9.5 with the same recall at every budget
// (32: .005 less at 8k).
const maxExcerpts = 64

// seedUnit is the best-scoring unit, the first of equals: 0 when none
// scores.
func seedUnit(units []textUnit) int {
	best := 0
	for i, u := range units {
		if u.score > units[best].score {
			best = i
		}
	}
	return best
}

// growPassage grows the passage from the seed, a unit at a time, towards
// the better-scoring neighbour (before it, on a tie, while nothing before
// the seed is in: a line of context reads better than none), within the
// units first to last, until it holds size tokens; total is the tokens
// of its units, each counted alone (count).
func growPassage(units []textUnit, seed, size, first, last int, count func(unit int) int) (lo, hi, total int) {
	tokens := func(i int) int {
		if units[i].tokens < 0 {
			units[i].tokens = count(i)
		}
		return units[i].tokens
	}
	lo, hi = seed, seed
	total = tokens(seed)
	for total < size && (lo > first || hi < last) {
		next := hi < last
		if next && lo > first {
			a, b := units[lo-1].score, units[hi+1].score
			next = b > a || (b == a && lo < seed)
		}
		if next {
			hi++
			total += tokens(hi)
		} else {
			lo--
			total += tokens(lo)
		}
	}
	return lo, hi, total
}

// queryTerms is the set of terms of the query text, as the index
// analyses them.
func queryTerms(query string) map[string]bool {
	q := map[string]bool{}
	for _, t := range index.Terms(query) {
		q[t.Term] = true
	}
	return q
}

// excerpts shows the long bodies of the candidates a profile may shorten
// by their excerpts (Profile.Excerpt): the candidates that are neither
// protected nor pinned, of a kind that does not truncate, the first
// maxExcerpts of them, whatever the budget (a record's form must not
// depend on it, or the fill would not be monotone). Each such candidate's body becomes its excerpt, counted,
// so every later step prices and renders the excerpt as the record's
// text.
func (b *builder) excerpts() error {
	size := b.cfg.Profiles[b.req.ranking].Excerpt
	if size <= 0 || strings.TrimSpace(b.req.Query) == "" {
		return nil
	}
	if b.fitsWhole() {
		return nil
	}
	// The most important first, in packet order (compareCandidates), the
	// hits of a deeper search after all the others: only a bigger budget
	// has them.
	var picked []*candidate
	var ids []string
	for _, deep := range []bool{false, true} {
		for _, c := range b.cands {
			if c.deep == deep && len(picked) < maxExcerpts && b.excerptable(c, size) {
				picked = append(picked, c)
				ids = append(ids, c.rec.ID)
			}
		}
	}
	if len(picked) == 0 {
		return nil
	}
	bodies, err := b.readBodies(ids)
	if err != nil {
		return err
	}
	q := queryTerms(b.req.Query)
	lead := b.lead()
	made := make([]*excerpt, len(picked))
	onCores(len(picked), minParallelExcerpts, func() struct{} { return struct{}{} }, func(k int, _ struct{}) {
		c := picked[k]
		sz := size
		if c == lead {
			sz = leadExcerptSize(size)
		}
		if ex, ok := makeExcerpt(bodies[c.rec.ID], c.tc.Body, q, sz, b.req.Counter); ok {
			made[k] = &ex
		}
	})
	for k, c := range picked {
		if ex := made[k]; ex != nil {
			c.excerpt = ex
			c.tc.Body = ex.tokens
			b.bodies[c.rec.ID] = ex.text
		}
	}
	return nil
}

// minParallelExcerpts is the number of excerpts from which a packet
// makes them on all cores (makeExcerpt is a function of its body and
// the query alone). A packet's first question about a subject meets
// most of its long bodies for the first time, and their analysis was
// about 5 ms of a long chat's packet of 500 tokens. Measured on the long
// chats (runs in turns with the commit before, every row the same): p50
// at 500 tokens 11.88 / 12.76 -> 10.81 / 11.62 ms, where a goroutine
// had analysed the second half of the bodies ahead of the caller; at
// 1k-8k, where the bodies are analysed already, within the runs' drift.
const minParallelExcerpts = 8

// leadExcerptSize is the size of the lead record's excerpt: a third
// larger than the profile's size (140 tokens for the agent's 105).
// A body up to a fifth over that size is then shown whole. Measured on
// story passages (docs/bench-history, 2026-12-07; 8,548 questions), the
// answer was in the packet more often at 500 / 1k / 2k tokens (.815
// .887 .951 -> .824 .901 .957), the evidence .826 .936 .985 -> .808 .933
// .984 (its bars: .792 .924 .949); long chats the same but .675 -> .674
// at 8k, short turns the same. A half or two thirds more lost .011-.016
// more evidence at 500 (first 1,500 questions) for at most .005 more
// answers; the first two excerpted records a third more, .021 more
// evidence at 500; every excerpt at 120 or 140 tokens, less evidence
// (.801 and .787 at 500) for fewer answers than the lead's larger
// excerpt alone; the first excerpted record rather than the lead, long
// chats' evidence (.568 -> .561 at 2k), where short records lead.
func leadExcerptSize(size int) int { return size + size/3 }

// lead is the first candidate in packet order of the first search (a
// deeper search's hits come only at bigger budgets, so it is the same at
// every budget); nil when there is none.
func (b *builder) lead() *candidate {
	for _, c := range b.cands {
		if !c.deep {
			return c
		}
	}
	return nil
}

// excerptable reports whether candidate c may be shown by an excerpt of
// size tokens: neither protected nor pinned, of a kind that does not
// truncate, with a text body more than a fifth longer than size.
func (b *builder) excerptable(c *candidate, size int) bool {
	return !c.protected && !c.pinned && !c.rec.Binary && c.tc.Body > size+size/5 &&
		b.cfg.Overflow[c.rec.Kind] != budget.Truncate
}
