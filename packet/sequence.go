package packet

import (
	"cmp"
	"slices"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// Sequence context. A record in a sequence (a turn of a conversation, a
// scene of a chapter: records chained by "next" links) is rarely read
// alone: a short reply ("Yes, last May!") matches few words of a question,
// while the turns around it carry the rest. So a hit's score is raised by
// the hits around it in its sequence:
//
//	score + ContextShare% × (score of the hit before + score of the hit after)
//	      + WindowShare% × (best score among the hits within two steps)
//
// Only hits count: a record the search did not find adds nothing. The
// neighbours a packet fetches for every hit anyway tell who is within two
// steps (two hits are two steps apart when they share a neighbour), so this
// costs no store read. Measured on question-answer data with known evidence
// (docs/bench-history, "Evidence recall on agent memory").
//
// Monotone in budget. A bigger budget searches deeper (the pool ladder of
// search), and deeper hits would change the scores and the order of the
// shallower ones. So the pool starts deep (sequencePool hits, enough for
// budgets up to about 20k) and is read in tiers, the steps of that ladder
// (the first 320 hits, the next 960, ...): a hit counts only
// the hits of its own tier and shallower ones, and a tier's hits, with
// their neighbours, all come before the next tier's. Of the hits so
// ordered, a packet prices only as many as its budget can use
// (candidateHits), again in steps that each come after the one before. A
// bigger budget then keeps the order of a smaller one and only adds to
// its end.

// hitNeighbors holds the one-hop neighbours of each hit, as fetched.
type hitNeighbors map[string][]store.Neighbor

// tieredHit is a hit with its tier and its score in sequence context.
type tieredHit struct {
	index.Hit
	tier  int     // 0 for the first depth of the pool, then one per ladder step
	score float64 // the search score raised by its sequence context
}

// hitTier is the tier of the hit at position pos of the search: the
// ladder step (first × 4^k) that first holds it.
func hitTier(pos, first int) int {
	tier, depth := 0, first
	for pos >= depth {
		tier++
		depth *= 4
	}
	return tier
}

// tierSpan is what separates two tiers' scores: more than any hit's
// score in sequence context (a record with many "next" links can gain
// more than the hits beside it in a chain would give), so no score of a
// deeper tier reaches a shallower one's.
func tierSpan(hits []tieredHit) float64 {
	best := 0.0
	for _, h := range hits {
		best = max(best, h.score, h.Score)
	}
	return best + 1
}

// sequenceRel is the relation that chains records into a sequence.
const sequenceRel = "next"

// inSequence reports whether a record with neighbours nbs is one "next"
// link from another, in either direction.
func inSequence(nbs []store.Neighbor) bool {
	return slices.ContainsFunc(nbs, func(nb store.Neighbor) bool { return nb.Via.Rel == sequenceRel })
}

// withSequenceContext scores hits (one namespace's, with their tiers, in
// search order) in their sequence context and returns them in packet
// order: by tier, then best score first, ties in search order. nbs holds
// each hit's neighbours.
//
// The gain is scaled by shortness(hit) (gatherer.shortness): beside a
// short turn, the hits around it are the same exchange; a long message
// that happens to sit between two hits holds its own answer or not, and
// once lifted by them it pushed strong isolated hits out of a packet.
//
// A gain that comes mainly through long records (perLength below 1: a
// long reply beside the hit, or the hit two steps off across one) does
// not carry a hit past the best hits by their own score
// (keepOwnPlaces).
func withSequenceContext(hits []tieredHit, nbs hitNeighbors, cfg Config, shortness, perLength func(id string) float64) []tieredHit {
	ctx := newSequenceGraph(hits, nbs, perLength)
	ctxShare, winShare := max(0, float64(cfg.ContextShare)/100), max(0, float64(cfg.WindowShare)/100)
	out := slices.Clone(hits)
	throughLong := make([]bool, len(out)) // gained mainly through long records
	for i, h := range out {
		self := ctx.at[h.ID]
		counts := func(j int) float64 { // what hit j gives h: a hit of its tier or a shallower one
			if j >= 0 && hits[j].tier <= h.tier && j != self {
				return hits[j].Score
			}
			return 0
		}
		// around and best as the sequence gives them; aroundShort and
		// bestShort through short records alone.
		around, best, aroundShort, bestShort := 0.0, 0.0, 0.0, 0.0
		for _, k := range ctx.adjacent(i) {
			x := &ctx.nodes[k]
			cx := counts(x.hit)
			around += cx
			best = max(best, cx)
			if !x.long {
				aroundShort += cx
				bestShort = max(bestShort, cx)
			}
			for _, j := range ctx.touching(k) {
				cy := counts(j)
				best = max(best, cy)
				if !x.long && ctx.scales[j] >= 1 {
					bestShort = max(bestShort, cy)
				}
			}
		}
		gain := (ctxShare*around + winShare*best) * shortness(h.ID)
		short := (ctxShare*aroundShort + winShare*bestShort) * shortness(h.ID)
		out[i].score = h.Score + gain
		throughLong[i] = gain-short > short
	}
	keepOwnPlaces(out, throughLong, ctx.scales)
	// By tier, then score, ties in search order: a stable sort's order,
	// sorted faster by position.
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if out[a].tier != out[b].tier {
			return out[a].tier - out[b].tier
		}
		if c := cmp.Compare(out[b].score, out[a].score); c != 0 {
			return c
		}
		return a - b
	})
	sorted := make([]tieredHit, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted
}

// sequenceGraph is the hits' "next" links read once, by position, for
// withSequenceContext: its loops ask every neighbour of every hit, and
// of every hit beside it, whether it is a hit and whether it is long,
// and those lookups by id were most of its time. The lists are kept
// flat (a list per hit and per node cost an allocation each, a third of
// the graph's build).
type sequenceGraph struct {
	at         map[string]int // a hit's position in hits (the last, for an id found twice)
	nodes      []sequenceNode // the records one step from a hit
	adj        []int          // the nodes one step from hits[i] are adj[adjStart[i]:adjStart[i+1]], in the neighbours' order
	adjStart   []int
	touch      []int // the hits one step from nodes[k] are touch[touchStart[k]:touchStart[k+1]], in hits' order
	touchStart []int
	scales     []float64 // perLength of hits[j]: below 1 for a long one
}

// sequenceNode is a record one step from a hit.
type sequenceNode struct {
	hit  int  // its position in hits, -1 if it is no hit
	long bool // perLength below 1
}

// adjacent lists the nodes one step from hits[i].
func (g *sequenceGraph) adjacent(i int) []int { return g.adj[g.adjStart[i]:g.adjStart[i+1]] }

// touching lists the hits one step from nodes[k].
func (g *sequenceGraph) touching(k int) []int { return g.touch[g.touchStart[k]:g.touchStart[k+1]] }

func newSequenceGraph(hits []tieredHit, nbs hitNeighbors, perLength func(id string) float64) *sequenceGraph {
	g := &sequenceGraph{at: make(map[string]int, len(hits)), adjStart: make([]int, len(hits)+1),
		adj: make([]int, 0, 2*len(hits)), scales: make([]float64, len(hits))}
	for i, h := range hits {
		g.at[h.ID] = i
		g.scales[i] = perLength(h.ID)
	}
	node := make(map[string]int, 2*len(hits))
	var touches []int // per node, how many hits it is one step from
	for i, h := range hits {
		for _, nb := range nbs[h.ID] {
			if nb.Via.Rel != sequenceRel {
				continue
			}
			k, ok := node[nb.ID]
			if !ok {
				k = len(g.nodes)
				node[nb.ID] = k
				j, isHit := g.at[nb.ID]
				if !isHit {
					j = -1
				}
				g.nodes = append(g.nodes, sequenceNode{hit: j, long: perLength(nb.ID) < 1})
				touches = append(touches, 0)
			}
			g.adj = append(g.adj, k)
			touches[k]++
		}
		g.adjStart[i+1] = len(g.adj)
	}
	g.touchStart = make([]int, len(g.nodes)+1)
	for k, n := range touches {
		g.touchStart[k+1] = g.touchStart[k] + n
	}
	g.touch = make([]int, len(g.adj))
	next := slices.Clone(g.touchStart[:len(g.nodes)]) // the next free place in each node's list
	for i, h := range hits {
		self := g.at[h.ID]
		for _, k := range g.adjacent(i) {
			g.touch[next[k]] = self
			next[k]++
		}
	}
	return g
}

// ownPlaces is how many of the best hits by their own score keep their
// places against hits lifted through long records (keepOwnPlaces):
// about what a packet of 500 tokens holds. Measured on long
// user/assistant chats (docs/bench-history, 2026-12-07): 6 to 8 hold the
// same evidence at 500 tokens, 10 lost it at 1,000 and 2,000, 3 and 4
// kept less of the knowledge-update questions' evidence.
const ownPlaces = 7

// keepOwnPlaces raises each of the ownPlaces best hits of the first tier,
// by their own search score per length, just above every other hit of
// that tier whose sequence gain came mainly through long records
// (throughLong), where its score in sequence context had put that hit
// first.
//
// In a chat of short questions and long replies, a long reply that
// repeats the question's words many times lifts the short messages
// beside it, and the message two steps off across it, above a short
// message that states the answer itself; where the records around a hit
// are short (turns of a conversation), the gain is the same exchange and
// nothing moves. The raised hits keep their order by own score; hits
// lifted through short records keep theirs. It reads the first tier
// alone, so a bigger budget orders it the same way. perLength[i] is
// out[i]'s (gatherer.perLength).
func keepOwnPlaces(out []tieredHit, throughLong []bool, perLength []float64) {
	var first []int
	for i, h := range out {
		if h.tier == 0 {
			first = append(first, i)
		}
	}
	byOwn := slices.Clone(first)
	slices.SortStableFunc(byOwn, func(a, b int) int {
		return cmp.Compare(out[b].Score*perLength[b], out[a].Score*perLength[a])
	})
	byOwn = byOwn[:min(ownPlaces, len(byOwn))]
	top := 0.0 // the best score of a hit lifted through long records
	for _, i := range first {
		if throughLong[i] && !slices.Contains(byOwn, i) {
			top = max(top, out[i].score)
		}
	}
	if top <= 0 {
		return
	}
	for _, i := range byOwn {
		if out[i].score <= top {
			// Just above top, in the order of their own scores. The
			// neighbours of a hit take their scores from its score
			// (gatherer.hits), so the step can matter beyond this order:
			// measured, a step of a billionth of top in place of this
			// millionth of the own score gave these hits the same order,
			// yet one knowledge-update packet at 500 tokens lost a
			// record (docs/bench-history).
			out[i].score = top + 1e-6*out[i].Score*perLength[i]
		}
	}
}
