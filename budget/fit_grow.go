package budget

import "slices"

// The growing fill (Request.Grow): the put-back's replacement for a
// caller whose packets must stay monotone in the limit without one large
// item blocking every item after it.

// grow refills the non-pinned items as a limit growing from the room of
// the frame and pinned items would (Request.Grow). The room grows in
// steps; at each step every item out, most important first, comes in
// while the room left holds it (first fit), up to the first late item
// (from GrowFuller on, up to the first late item that is not a small
// enough rest of an item: see GrowFuller; from GrowLead the rest of the
// most important item comes first: see GrowLead; and, where the room is
// a large share of the items, the rests of the next few: see GrowShare);
// past the last step below the limit, the items out come in most
// important first until one does not fit (a prefix). Each step only adds
// to the one before, and where the steps fall depends on the items alone,
// never on the limit, so a larger limit keeps every item a smaller one
// does.
//
// A step is the room the most important item out needs, with GrowSlack
// to spare for what fits beside it, and at most double the step before
// (GrowFirst for the first): the most important item comes in at the
// first step that can hold it, and a large one does not hold the room
// back from everything after it for long.
//
// Why not every size: filling at every size (the smallest limit at
// which anything more fits, then the next) lets the smallest items in
// first whatever their importance, and a packet of 500 tokens then held
// the tiniest records and not the best hit. Measured on the agent packet
// (docs/bench-history): steps at fixed doublings from 128 lost the best hit
// to smaller ones at 500 tokens, and no first fit at all (a prefix) left
// a fifth of the room unused behind long records.
//
// An item whose action is Fail that the fill leaves out fails the fit, as
// it does when the walk meets it: the fill refills from nothing, and the
// walk that reached the limit before it may have stopped short of a Fail
// item the fill then has no room for.
func (f *fitter) grow() error {
	base := f.req.Frame
	for i, it := range f.items {
		if it.Pinned {
			base += it.Tokens
		}
		if f.state[i] == kept && !it.Pinned {
			f.deferItem(i, RuleBudget, "dropped: over budget")
		}
	}
	f.cuts = nil // an item comes in whole or not at all
	// Most important first, the late items after all the others: a
	// larger limit may bring late items a smaller one lacks, and they
	// must not come between the items both have. Of the late items, the
	// rests of items that are not late come first: a limit that has
	// their items has them, whatever the ranks of the late items a
	// larger limit brings (a deeper search's hits may outrank a recent
	// record whose rest a smaller limit held).
	extended := f.extendedIndex()
	class := func(i int) int {
		switch it := &f.items[i]; {
		case !it.Late:
			return 0
		case it.Extends != "" && !f.items[extended[i]].Late:
			return 1
		}
		return 2
	}
	out := make([]int, 0, len(f.order))
	for c := range 3 {
		for p := len(f.order) - 1; p >= 0; p-- {
			if class(f.order[p]) == c {
				out = append(out, f.order[p])
			}
		}
	}
	used, n := base, 0
	var in []int // in the order they came in
	// The early rests come first once a step reaches theirs (earlyRests):
	// the lead's (the most important item out at the start) from
	// GrowLead; where the room is a large share of the first search's
	// items (GrowShare), the next items' too.
	early := f.earlyRests(out, extended, class)
	// fuller reports whether item i is the rest of an item (Extends)
	// that a step of size lets in by first fit, late as it is.
	fuller := func(i, size int) bool {
		if k := slices.IndexFunc(early, func(e earlyRest) bool { return e.rest == i }); k >= 0 && (early[k].at(size) || !early[k].shared) {
			// The lead's rest comes in at its step, not before; the
			// others, before theirs, as any rest does.
			return early[k].at(size)
		}
		it := &f.items[i]
		return it.Extends != "" && size >= GrowFuller && it.Tokens <= f.items[extended[i]].Tokens
	}
	// restFirst moves the early rests that a step of size takes first,
	// while they are out and their items in, to the front of the items
	// out, in the order of their items. (Before its item, a rest would be
	// passed over and a prefix would go on past it, taking what a larger
	// limit, with the rest in, has no room for.)
	restFirst := func(size int) bool {
		var move []int
		for _, e := range early {
			if e.at(size) && f.state[extended[e.rest]] == kept && slices.Contains(out, e.rest) {
				move = append(move, e.rest)
			}
		}
		if len(move) == 0 || len(move) <= len(out) && slices.Equal(out[:len(move)], move) {
			return false
		}
		others := slices.DeleteFunc(slices.Clone(out), func(i int) bool { return slices.Contains(move, i) })
		out = append(append(out[:0], move...), others...)
		return true
	}
	fill := func(limit int, prefix bool) {
		rest := out[:0]
		for k, i := range out {
			it := &f.items[i]
			if it.Extends != "" && f.state[extended[i]] != kept {
				// Not before the item it extends: a later step may let
				// both in. (In a prefix that item came first and did
				// not fit, so the prefix has ended already.)
				rest = append(rest, i)
				continue
			}
			if prefix && used+it.Tokens > limit || !prefix && it.Late && !fuller(i, limit-base) {
				// The prefix ends at the first item that does not fit; a
				// first fit at the first late item, so that what a
				// smaller limit's prefix held past it is held here too.
				rest = append(rest, out[k:]...)
				break
			}
			if used+it.Tokens <= limit {
				f.restore(i)
				used += it.Tokens
				n++
				in = append(in, i)
				continue
			}
			rest = append(rest, i)
		}
		out = rest
	}
	for size := 0; len(out) > 0; {
		first := out[0]
		step := func() int {
			next := used - base + f.items[first].Tokens + GrowSlack
			return max(size+1, min(next, max(2*size, GrowFirst)))
		}
		next := step()
		for moves := 0; moves < 4 && restFirst(next); moves++ {
			// The steps from here, and the prefix of a limit short of
			// the next one, take the early rests first (late items:
			// their step is at least GrowFuller, below). A step sized
			// for a moved rest may let in more (a larger step), or
			// fewer (a smaller one: those moved stay in front).
			first = out[0]
			next = step()
		}
		if f.items[first].Late {
			// Of the late items only a rest comes in at a step.
			if next = max(next, GrowFuller); !fuller(first, next) {
				break
			}
		}
		if base+next > f.req.Limit {
			break
		}
		size = next
		fill(base+size, false)
	}
	fill(f.req.Limit, true)
	for _, i := range out {
		if it := &f.items[i]; it.Action == Fail && it.Tokens > 0 {
			return f.failError(i, used+it.Tokens)
		}
	}
	f.holdBack(out, f.req.Limit-used)
	f.used = used
	slices.Reverse(in)
	f.grown = in
	f.diag("grew the limit from the frame: %d items in", n)
	return nil
}

// earlyRest is a rest (an item that extends another) that comes before
// the other items out from a step of from tokens (see earlyRests); where
// shared, only once the step is a large share of the first search's
// items (pool tokens whole: GrowShare).
type earlyRest struct {
	rest, from int
	shared     bool
	pool       int
}

// at reports whether a step of size takes the rest first.
func (e earlyRest) at(size int) bool {
	return size >= e.from && (!e.shared || e.pool <= GrowShare*size)
}

// earlyRests are the rests that come first, in the order of their
// items: the rest of the lead (out[0], the most important item out at
// the start) from GrowLead, and, where the step is a large share of the
// first search's items (GrowShare), the rests of the next
// GrowFullerRests items from GrowFuller and those of the GrowMoreRests
// after them from GrowMore. out is the items out, most important first;
// class is grow's (0 for the items that are not late, 1 for their
// rests). An item with more than one rest offers its first.
func (f *fitter) earlyRests(out []int, extended map[int]int, class func(int) int) []earlyRest {
	if len(extended) == 0 || len(out) == 0 {
		return nil
	}
	restOf := make(map[int]int, len(extended))
	for i, j := range extended {
		if r, ok := restOf[j]; !ok || i < r {
			restOf[j] = i
		}
	}
	pool := 0 // the items not late, and their rests
	for _, i := range out {
		if class(i) < 2 {
			pool += f.items[i].Tokens
		}
	}
	var early []earlyRest
	for p, i := range out[:min(len(out), 1+GrowFullerRests+GrowMoreRests)] {
		if p > 0 && class(i) != 0 {
			break
		}
		r, ok := restOf[i]
		if !ok {
			continue
		}
		switch {
		case p == 0:
			early = append(early, earlyRest{rest: r, from: GrowLead})
		case p <= GrowFullerRests:
			early = append(early, earlyRest{rest: r, from: GrowFuller, shared: true, pool: pool})
		default:
			early = append(early, earlyRest{rest: r, from: GrowMore, shared: true, pool: pool})
		}
	}
	return early
}

// holdBack gives the items out that fit the room the fill left their
// own rule (RuleHeldBack): "over budget" would not be true of them. Each
// comes after an item the last part's prefix ended at, which is more
// important and does not fit. An item that extends one out is left as it
// is: it could not come in without that one.
func (f *fitter) holdBack(out []int, room int) {
	for _, i := range out {
		if it := &f.items[i]; it.Tokens <= room && it.Extends == "" && f.state[i] == deferred {
			f.deferItem(i, RuleHeldBack, "held back: fits, but follows a more important item that does not")
		}
	}
}

// extendedIndex maps each item that extends another (Item.Extends) to
// the index of that item; nil when none does.
func (f *fitter) extendedIndex() map[int]int {
	var byID map[string]int
	var out map[int]int
	for i, it := range f.items {
		if it.Extends == "" {
			continue
		}
		if byID == nil {
			byID = make(map[string]int, len(f.items))
			for j, o := range f.items {
				byID[o.ID] = j
			}
			out = map[int]int{}
		}
		out[i] = byID[it.Extends]
	}
	return out
}

// GrowSlack is the room a Request.Grow step leaves beside the item it is
// for; GrowFirst bounds the first step. Measured on the agent packet
// (slack 0, 32, 96, 160, 256: 96 held the most evidence across short
// turns, long messages and story passages; docs/bench-history).
//
// GrowFuller is the step from which the rest of an item (Item.Extends)
// that costs no more than the item itself comes in by first fit, late
// as it is, once it is the most important item out: below it, items
// are worth more than a fuller form of one (a packet of 1,000 tokens
// holds more evidence with more records), and a rest larger than its
// item (the rest of a long message) would take the room of several.
// Measured on the agent packet (docs/bench-history, 2026-12-07): story
// passages' answers at 2,000 tokens .949 -> .962, the rest the same
// within .002; from 512 on, evidence fell at 1,000 tokens.
//
// GrowLead is the step from which the rest of the lead (the most
// important item out when the fill starts) is the first item out, at
// any size: the steps from there, and the prefix of a limit short of
// the next step, take it before any other item (a step sized for it is
// at least GrowFuller, as for any late item). The lead is the item most
// likely to be wanted whole. Measured on the agent packet
// (docs/bench-history, 2026-12-07): story passages' answers at 1,000 and
// 2,000 tokens .901 .957 -> .914 .962, the evidence at 1,000 .933 ->
// .926 (its bar .924), long chats .568 -> .569 at 2,000, short turns
// the same. From 1,024 rather than 768: answers .902 .962, the evidence
// the same. The rests of the first two or four items first (from 1,024)
// lost long chats' evidence at 2,000 (.568 -> .564 / .555).
const (
	GrowSlack  = 96
	GrowFirst  = 256
	GrowFuller = 1024
	GrowLead   = 768
)

// GrowShare, GrowFullerRests, GrowMore and GrowMoreRests bring the
// rests of the items after the lead first (earlyRests) where the room is
// a large share of what the first search found: once a step is at least
// a quarter of the items that are not late, whole (their excerpts and
// rests), the rests of the second and third items come first from
// GrowFuller, and those of the fourth to the sixth from GrowMore. There
// a packet holds most of those items anyway, and the best of them whole
// hold the answer more often than the excerpts of the last few; where
// the first search found many times the room (a long chat: 19 to 67
// times the limit at 2,000 and 4,000 tokens), each rest would take the
// room of a deeper hit, and nothing changes. Measured on the agent
// packet (docs/bench-history, 2026-12-07; story passages, whose items
// are 1.05 to 2.9 times the limit there): the answer in the packet at
// 1,000 / 2,000 / 4,000 tokens .914 .962 .989 -> .916 .973 .995, the
// evidence .926 .984 .998 -> .926 .979 .998 (its bar at 2,000 is bm25's
// .949); long chats the same row for row, short turns the same (they
// have no excerpts). The second item's rest alone from GrowFuller gave
// .969 answers at 2,000 for .982 evidence, bm25's answers being .970;
// the second to the fourth, .975 for .976. The fourth to the sixth from
// GrowMore, rather than the fourth alone, bought .002 more answers at
// 4,000.
const (
	GrowShare       = 4
	GrowFullerRests = 2
	GrowMore        = 3072
	GrowMoreRests   = 3
)
