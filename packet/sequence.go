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

// sequenceAdjacent lists the ids one "next" link away from id, in either
// direction.
func sequenceAdjacent(nbs []store.Neighbor) []string {
	var out []string
	for _, nb := range nbs {
		if nb.Via.Rel == "next" {
			out = append(out, nb.ID)
		}
	}
	return out
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
func withSequenceContext(hits []tieredHit, nbs hitNeighbors, cfg Config, shortness func(id string) float64) []tieredHit {
	type scored struct {
		score float64
		tier  int
	}
	hit := make(map[string]scored, len(hits))
	touching := map[string][]string{} // the hits one step from a record
	for _, h := range hits {
		hit[h.ID] = scored{h.Score, h.tier}
		for _, x := range sequenceAdjacent(nbs[h.ID]) {
			touching[x] = append(touching[x], h.ID)
		}
	}
	ctxShare, winShare := max(0, float64(cfg.ContextShare)/100), max(0, float64(cfg.WindowShare)/100)
	out := slices.Clone(hits)
	for i, h := range out {
		counts := func(id string) float64 {
			if o, ok := hit[id]; ok && o.tier <= h.tier && id != h.ID {
				return o.score
			}
			return 0
		}
		around, best := 0.0, 0.0
		for _, x := range sequenceAdjacent(nbs[h.ID]) {
			around += counts(x)
			best = max(best, counts(x))
			for _, y := range touching[x] {
				best = max(best, counts(y))
			}
		}
		out[i].score = h.Score + (ctxShare*around+winShare*best)*shortness(h.ID)
	}
	slices.SortStableFunc(out, func(a, b tieredHit) int {
		if a.tier != b.tier {
			return a.tier - b.tier
		}
		return cmp.Compare(b.score, a.score)
	})
	return out
}
