package packet

import (
	"cmp"
	"slices"

	"github.com/lorekeep/lore/budget"
)

// Excerpts shown whole where the budget has room for them. An excerpt
// lets a long record in where its body would not fit, and holds what the
// question matched; the rest of the body may hold the answer. So in a
// growing fill each excerpted record also offers the rest of its body,
// as an item of its own (budget.Item.Extends) that comes in only beside
// its excerpt, and late (budget.Item.Late): once every record of the
// first search step is in, in the order of their records, before the
// records of a deeper search; from budget.GrowFuller on, a rest no
// larger than its excerpt comes in by first fit (past a larger one that
// does not fit), so a story's passages are shown whole where they fit;
// the lead's rest, and where the budget is a large share of the first
// search's records the next few records' rests, come first from a step
// of their own (budget.GrowLead, budget.GrowShare).
// A larger budget shows each record in the same form or whole. Measured
// (docs/bench-history, issue 36): on story passages the answer is in the
// packet more often at 1,000 to 4,000 tokens (.874 -> .877, .901 ->
// .930, .958 -> .995), evidence the same on every set; the rest let in
// by first fit, or a fixed number of records after its own, showed more
// answers at 1,000 and 2,000 tokens but held fewer records (stories .944
// -> .927 at 1,000, long chats .571 -> .558 at 2,000).

// upgradeSuffix makes the id of the item that stands for the rest of a
// record's body: ids never hold a NUL.
const upgradeSuffix = "\x00whole"

// upgradePlaces orders the rest of each excerpted body among the late
// items of its rank: after every candidate of the rank that is not deep,
// in the order of their records. It returns, by candidate index, the
// score of its place, in (lowest-1, lowest-0.5] where lowest is the
// rank's lowest score, falling with the record's place. A score is a
// tie-break within a rank and carries the search tier, so the places are
// set below the rank's scores rather than as a share of the record's.
func (b *builder) upgradePlaces() map[int]float64 {
	byRank := map[int][]int{} // the candidates in, not deep, by rank
	any := false
	for i, c := range b.cands {
		if b.forms[i] == formOut || c.deep {
			continue
		}
		byRank[c.rank] = append(byRank[c.rank], i)
		any = any || c.excerpt != nil && b.forms[i] == formFull
	}
	if !any {
		return nil
	}
	out := map[int]float64{}
	for _, order := range byRank {
		slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(b.cands[y].score, b.cands[x].score) })
		lowest := b.cands[order[len(order)-1]].score
		for p, i := range order {
			if c := b.cands[i]; c.excerpt != nil && b.forms[i] == formFull {
				out[i] = lowest - 1 + 1/float64(p+2)
			}
		}
	}
	return out
}

// upgradeItem is the item for the rest of candidate i's body at its
// place (upgradePlaces), and false when it has none: the candidate is
// not shown by its excerpt, is deep, or is out.
func (b *builder) upgradeItem(i int, places map[int]float64) (budget.Item, bool) {
	c := b.cands[i]
	score, ok := places[i]
	if !ok {
		return budget.Item{}, false
	}
	// The body counted alone less the excerpt counted alone: over what
	// the entry grows by, for the excerpt's gap markers and its heading's
	// "excerpt" go (the re-count has the last word).
	rest := max(1, c.excerpt.bodyTokens-c.excerpt.tokens)
	return budget.Item{ID: c.rec.ID + upgradeSuffix, Kind: c.rec.Kind, Tokens: rest, Rank: c.rank,
		Score: score, Order: int64(i), Action: budget.Drop, Late: true, Extends: c.rec.ID}, true
}

// foldUpgrades takes the items for the rest of a body out of kept and
// adds their tokens to their records' own, and records which records
// are shown whole (builder.upgraded); assemble then renders them so. The
// other steps (put-back, notes) see one item a record, as they do
// without excerpts.
func (b *builder) foldUpgrades(kept []budget.Fitted) []budget.Fitted {
	b.upgraded = nil
	var rest map[string]int
	for _, k := range kept {
		if k.Extends != "" {
			if rest == nil {
				rest = map[string]int{}
			}
			rest[k.Extends] = k.Tokens
		}
	}
	if rest == nil {
		return kept
	}
	b.upgraded = make(map[string]bool, len(rest))
	out := make([]budget.Fitted, 0, len(kept)-len(rest))
	for _, k := range kept {
		if k.Extends != "" {
			continue
		}
		if t, ok := rest[k.ID]; ok {
			k.Tokens += t
			b.upgraded[k.ID] = true
		}
		out = append(out, k)
	}
	return out
}

// shownWhole reports whether candidate c, shown by an excerpt, is shown
// whole in a packet: by the rest of its body among the kept (restKept),
// as Fit's re-count renders it, or as folded by foldUpgrades.
func (b *builder) shownWhole(c *candidate, restKept bool) bool {
	if c.excerpt == nil {
		return false
	}
	return restKept || b.upgraded[c.rec.ID]
}
