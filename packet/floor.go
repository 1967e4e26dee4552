package packet

import (
	"cmp"
	"strings"

	"github.com/lorekeep/lore/budget"
)

// The floor: the least packet the ladder may write.
//
// The ladder decides on estimates: an entry priced alone, a frame priced
// as its largest (a note for every candidate, or group lines with the
// widest figures). Those add up over the real count, by a little on a
// big packet and by a third on a small one (the demo's scene-03 was
// refused at 1,370 tokens as needing 1,427, and written at 1,371 in
// 1,371). So before the ladder refuses, it renders the floor packet and
// counts it whole, every record it does not hold deferred:
//
//   - where an unprotected record's kind has the overflow action fail,
//     the first such record the fitting engine's walk meets and every
//     record it defers after that one (the more important ones), all
//     whole, with every protected and pinned record whole: fail content
//     is never dropped, the walk drops the least important first, and a
//     record of ranks 6 to 10 never stays whole while one of ranks 2 to 5
//     is shortened;
//   - otherwise, every protected and pinned record in the shortest form
//     a ladder step may give it (builder.reducible; never rank 1 or a
//     pinned record), and nothing else: step 1 drops every other record
//     before any step shortens.
//
// When the floor fits the budget it is the ladder's packet, and the
// put-back (rebase, restore, arrange) fills the room it leaves as it
// does for any packet; only a floor over the budget is refused. A
// refusal therefore means that no allowed form of what the budget may
// not drop fits, and the floor's count at the refused budget is where
// the search for the least budget that works starts
// (builder.minimumBudget).

// refuse is the ladder's last word at limit, for a cause (nil for
// protected content, or the fitting engine's error): the floor packet
// when it fits the budget, else the refusal (ladder step 5), whose cause
// names the fail content the floor kept when none is given.
func (b *builder) refuse(limit int, cause error) (counted, error) {
	floor, fail, err := b.floorPacket()
	if err != nil {
		return counted{}, err
	}
	if fits(floor.n, b.req.Budget) {
		return floor, nil
	}
	b.floorCount = floor.n
	if cause == nil && fail >= 0 {
		c := b.cands[fail]
		cause = &budget.OverflowError{Cause: budget.CauseFail, IDs: []string{c.rec.ID}, Kinds: []string{c.rec.Kind}, Limit: limit}
	}
	return counted{}, &refusal{limit: limit, cause: cause}
}

// refusal is a refusal inside a build: fit makes it the *SplitError
// (with the search for the least budget and the proposals) once, where it
// ends the build, and not where a step that may still recover meets it
// (calibrateFrame).
type refusal struct {
	limit int
	cause error
}

func (r *refusal) Error() string { return ErrCannotFit.Error() }
func (r *refusal) Unwrap() error { return ErrCannotFit }

// floorPacket sets every candidate to the floor's form, assembles the
// floor packet (see above), renders it and counts it whole in the
// request's format; fail is the candidate of a fail kind the floor
// starts from, or -1. The packet's step is the last one whose form the
// floor uses (1 when it shortens nothing), so the put-back rebuilds it
// as it would the ladder's packet at that step.
func (b *builder) floorPacket() (floor counted, fail int, err error) {
	fail = -1
	for i, c := range b.cands { // the unprotected record of a fail kind the walk meets first
		if !b.fixed(i) && b.cfg.Overflow[c.rec.Kind] == budget.Fail && (fail < 0 || b.walkCompare(i, fail) < 0) {
			fail = i
		}
	}
	step := 1 // step 1 drops every record it may
	for i := range b.cands {
		b.forms[i], b.step[i] = formFull, 0
		if b.fixed(i) && fail < 0 {
			b.forms[i], b.step[i] = b.reducible(i, 4)
			step = max(step, b.step[i])
		}
	}
	var kept []budget.Fitted
	for i, c := range b.cands {
		keep := b.fixed(i) && b.forms[i] != formOut
		if !b.fixed(i) && fail >= 0 {
			keep = b.walkCompare(i, fail) >= 0
		}
		if keep {
			kept = append(kept, budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][b.forms[i]]})
		}
	}
	p, err := b.assemble(kept, nil)
	if err != nil {
		return counted{}, -1, err
	}
	b.kept, b.defs = kept, nil
	p.Step = step
	return b.count(p), fail, nil
}

// walkCompare orders unprotected candidates i and j as the fitting
// engine's walk defers them (budget rule 2: the higher rank, the lower
// score, the larger item, then the id, first): negative when i goes
// before j.
func (b *builder) walkCompare(i, j int) int {
	x, y := b.cands[i], b.cands[j]
	if c := cmp.Compare(y.rank, x.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(x.score, y.score); c != 0 {
		return c
	}
	if c := cmp.Compare(b.itemTokens(j), b.itemTokens(i)); c != 0 {
		return c
	}
	return strings.Compare(x.rec.ID, y.rec.ID)
}
