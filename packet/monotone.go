package packet

import (
	"math"
	"slices"

	"github.com/lorekeep/lore/budget"
)

// Monotone in budget with protected records that have shorter forms.
//
// The ladder and its put-backs prefer a protected record whole to an
// unprotected one (ranks 6 and up) beside it: where the whole does not
// fit, the put-back fills the room with the next unprotected records. A
// bigger budget that fits the protected record whole then has less room
// left, and the unprotected records the smaller budget held go: the
// bigger packet is no superset of the smaller one.
//
// arrange keeps that preference where it can, and the superset always.
// It works on the entries' prices (as Fit does), scaled once to the real
// count of the whole (calibrate):
//
//   - the base: every protected record in its shortest form, every other
//     record out (the unprotected ones, and the protected ones two hops
//     away, which step 3 leaves out), counted whole;
//   - in a room r over the base, the put-back restores the protected
//     records whole, most important first, each if it fits in what is
//     left, and then brings the other records in, in order, while the
//     room it leaves holds them; an unprotected record (ranks 6 and up)
//     only once every protected record is whole: the context-budget
//     skill's ladder drops ranks 10 to 6 before it shortens any of ranks
//     2 to 5, and a record once in never goes, so it may not come in
//     beside a summary that a bigger budget would restore;
//   - walking r up from 0, a record comes in at the first room where
//     that room left holds it, and never goes again (runAt): the records
//     in at budget B are those in at every smaller budget, and more;
//   - at B, with those records in, each protected record, most important
//     first, takes the best form that still fits, by the real count near
//     the budget (rebaser.upgradeOne).

// arrangement is the base of arrange and what it prices.
type arrangement struct {
	// ups are the protected records with a shorter form, most important
	// first; free the records a packet holds or not, in the order they
	// come in; in the form each of free comes in (a protected record two
	// hops away in its shorter form first).
	ups, free []int
	in        map[int]form
	// deltas[k] is what restoring ups[k] whole adds; needs[k] its place
	// in free when it is one of them (it counts once it is in), else -1;
	// prices[k] what free[k] adds in its form.
	deltas, needs, prices []int
}

// arrange rebuilds an incomplete packet of a monotone profile as above.
// It applies to requests with a protected record a ladder step can
// shorten (else the put-back already keeps the superset) and no
// unprotected record of a kind that truncates.
func (b *builder) arrange(c counted) (counted, error) {
	if !b.monotone() || c.p.FrameOnly || !c.p.Incomplete() || !b.anyShorter() || b.anyTruncates() {
		return c, nil
	}
	saved := b.saveState()
	keepLadder := func() (counted, error) {
		b.restoreState(saved)
		return c, nil
	}
	r := &rebaser{standing: standing{b: b, step: arrangeStep, keep: map[string]budget.Fitted{}, defs: b.defs}}
	a := r.base4()
	base, err := r.modelCount()
	if err != nil {
		return counted{}, err
	}
	if !fits(base, b.req.Budget) {
		return keepLadder()
	}
	a.price(b)
	if err := r.calibrate(a, base); err != nil {
		return counted{}, err
	}
	after := a.unprotected(b)
	run := runAt(a.upgrades(), a.prices, after, b.req.Budget-base)
	if a.holds(b, saved.kept, run) && !skillOrderBroken(b, saved.forms, saved.kept) {
		return keepLadder() // the ladder's packet holds those records: its forms stand
	}
	for _, i := range a.free[:run] {
		r.put(i, a.in[i])
	}
	res, err := r.upgradeFixed(a.ups)
	for err == nil && run > 0 && after[run-1] && a.anyShort(b) {
		// Prices said every protected record fits whole beside it; the
		// count says not: ranks 10 to 6 go first.
		run--
		r.leave(a.free[run])
		res, err = r.upgradeFixed(a.ups)
	}
	for err == nil && !fits(res.n, b.req.Budget) && run > 0 { // a price that was short: the count rules
		run--
		r.leave(a.free[run])
		res, err = r.count()
	}
	if err != nil {
		return counted{}, err
	}
	if !fits(res.n, b.req.Budget) {
		return keepLadder()
	}
	r.commit()
	return res, nil
}

// arrangeStep is the step arrange's packets carry: every ladder step may
// have shortened a record of the base.
const arrangeStep = 4

// base4 sets every record to the base of arrange: protected records in
// their shortest form (steps 2 to 4), the rest out.
func (r *rebaser) base4() *arrangement {
	b := r.b
	a := &arrangement{in: map[int]form{}}
	order := b.leastFirst()
	slices.Reverse(order) // most important first
	for _, i := range order {
		b.forms[i], b.step[i] = formFull, 0 // out of keep: dropped
		if !b.fixed(i) {
			a.free = append(a.free, i)
			a.in[i] = formFull
			continue
		}
		f, st := b.reducible(i, 4)
		if st > 0 && f != formFull {
			a.ups = append(a.ups, i)
		}
		b.forms[i], b.step[i] = f, st
		if f != formOut {
			r.keep[b.cands[i].rec.ID] = r.fitted(i, f)
			continue
		}
		a.free = append(a.free, i)
		a.in[i] = formFull
		if short := b.shorter(b.cands[i]); b.cost[i][short] < b.cost[i][formFull] {
			a.in[i] = short
		}
	}
	return a
}

// price fills in the deltas, needs and prices from the entries' prices.
func (a *arrangement) price(b *builder) {
	a.deltas, a.needs = make([]int, len(a.ups)), make([]int, len(a.ups))
	for k, i := range a.ups {
		f := b.forms[i]
		a.needs[k] = slices.Index(a.free, i)
		if a.needs[k] >= 0 {
			b.forms[i] = a.in[i]
		}
		was := b.itemTokens(i)
		b.forms[i] = formFull
		a.deltas[k] = b.itemTokens(i) - was
		b.forms[i] = f
	}
	a.prices = make([]int, len(a.free))
	for k, i := range a.free {
		f := b.forms[i]
		b.forms[i] = a.in[i]
		a.prices[k] = b.itemTokens(i)
		b.forms[i] = f
	}
}

// holds reports whether kept holds exactly the records of the base and
// the first run of free.
func (a *arrangement) holds(b *builder, kept []budget.Fitted, run int) bool {
	want := map[string]bool{}
	for i, c := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut {
			want[c.rec.ID] = true
		}
	}
	for _, i := range a.free[:run] {
		want[b.cands[i].rec.ID] = true
	}
	if len(kept) != len(want) {
		return false
	}
	for _, k := range kept {
		if !want[k.ID] {
			return false
		}
	}
	return true
}

// upgrades are the deltas as runAt takes them.
func (a *arrangement) upgrades() []upgrade {
	out := make([]upgrade, len(a.deltas))
	for k := range a.deltas {
		out[k] = upgrade{a.deltas[k], a.needs[k]}
	}
	return out
}

// leave takes record i out again, as the base has it.
func (r *rebaser) leave(i int) {
	b := r.b
	delete(r.keep, b.cands[i].rec.ID)
	if b.fixed(i) {
		b.forms[i], b.step[i] = formOut, 3
	} else {
		b.forms[i], b.step[i] = formFull, 0
	}
}

// calibrate scales the prices to the real count: entries priced alone
// add up to more than the whole, by a few percent, and a room filled by
// prices alone would be left part empty. The packet with every record in
// is counted once (with stand-ins), and every price is scaled by what
// the records really add over the base; the scale depends on the request
// alone, not on the budget, so the runs stay monotone.
func (r *rebaser) calibrate(a *arrangement, base int) error {
	b := r.b
	est := 0
	for _, d := range a.deltas {
		est += d
	}
	for _, p := range a.prices {
		est += p
	}
	if est <= 0 {
		return nil
	}
	var all countBounds
	var err error
	if b.ahead != nil {
		all, err = b.ahead.wait() // counted beside the ladder (ahead.go)
	} else {
		all, err = r.allIn(a)
	}
	if err != nil || all.lo-base >= est || all.hi <= base {
		return err // no scale, by the bounds alone (the common case)
	}
	n := all.exact()
	if n-base >= est || n <= base {
		return nil
	}
	scale := func(v int) int { return (v*(n-base) + est - 1) / est }
	for k := range a.deltas {
		a.deltas[k] = scale(a.deltas[k])
	}
	for k := range a.prices {
		a.prices[k] = scale(a.prices[k])
	}
	return nil
}

// allIn is the model count of the packet with every record of a in: ups
// whole, free in their forms, bounded before it is made exact (see
// countBounds). The forms and records in are as they were after.
func (r *rebaser) allIn(a *arrangement) (countBounds, error) {
	b := r.b
	forms, steps := slices.Clone(b.forms), slices.Clone(b.step)
	keep := make(map[string]budget.Fitted, len(r.keep))
	for id, k := range r.keep {
		keep[id] = k
	}
	for _, i := range a.ups {
		r.put(i, formFull)
	}
	for _, i := range a.free {
		if _, up := r.keep[b.cands[i].rec.ID]; !up {
			r.put(i, a.in[i])
		}
	}
	all, err := r.modelBounds()
	copy(b.forms, forms)
	copy(b.step, steps)
	r.keep = keep
	return all, err
}

// modelBudget is the budget the counts of arrange's model are made at:
// the frame states the budget (and the notes' handles repeat it), and a
// model that moved with those digits would not be the same at every
// budget.
const modelBudget = 100000

// modelCount counts the packet as it stands, with a stand-in for every
// body (read or not), as if the budget were modelBudget: the same at
// every budget.
func (r *rebaser) modelCount() (int, error) {
	m, err := r.modelBounds()
	if err != nil {
		return 0, err
	}
	return m.exact(), nil
}

// modelBounds is modelCount bounded: the packet assembled and counted
// but for its total line, which holds the hash of the whole (for the
// model with every record in, hundreds of kilobytes to hash). The exact
// count is made only if asked for, from the same render.
func (r *rebaser) modelBounds() (countBounds, error) {
	b := r.b
	budgetWas := b.req.Budget
	b.req.Budget, b.trial, b.standAll = modelBudget, true, true
	q, err := r.assemble()
	b.req.Budget, b.trial, b.standAll = budgetWas, false, false
	if err != nil {
		return countBounds{}, err
	}
	return q.boundCount(b.req.Format), nil
}

// maxLeftRounds bounds the greedy put-backs runAt simulates.
const maxLeftRounds = 256

// anyShorter reports whether a protected record has a shorter form that
// a ladder step may give it.
func (b *builder) anyShorter() bool {
	for i := range b.cands {
		if b.fixed(i) {
			if f, st := b.reducible(i, 4); st > 0 && f != formFull {
				return true
			}
		}
	}
	return false
}

// anyTruncates reports whether an unprotected record is of a kind its
// overflow action truncates: a cut record is in the packet in a form the
// entry prices do not know, and arrange leaves such packets as the
// put-back made them.
func (b *builder) anyTruncates() bool {
	for i, c := range b.cands {
		if !b.fixed(i) && b.cfg.Overflow[c.rec.Kind] == budget.Truncate {
			return true
		}
	}
	return false
}

// upgradeFixed gives each protected record of ups, most important first,
// the best form that fits (rebaser.upgradeOne), with the run of
// unprotected records already in, and undoes the last upgrades while
// the whole counts over. Estimates that ran short undo more than the
// excess: the walk goes again, counting for real that far from the
// budget, while it gains.
func (r *rebaser) upgradeFixed(ups []int) (counted, error) {
	r.margin = max(8, r.b.req.Budget/100)
	q, err := r.countTrial()
	if err != nil {
		return counted{}, err
	}
	at := q.n
	for pass := 0; ; pass++ {
		r.failAt, r.checks, r.log = math.MaxInt, 0, r.log[:0]
		r.cur = r.est()
		r.offset = at - r.cur
		for _, i := range ups {
			if _, in := r.keep[r.b.cands[i].rec.ID]; !in {
				continue // out of the run: not brought in by a form
			}
			if err := r.upgradeOne(i); err != nil {
				return counted{}, err
			}
		}
		made := len(r.log)
		if q, err = r.undoOver(); err != nil {
			return counted{}, err
		}
		at = q.n
		if len(r.log) == made || !fits(at, r.b.req.Budget) || pass == 2 {
			return q, nil // nothing undone: the walk is final
		}
		// The estimates ran short by the excess: the next walk counts
		// for real that far from the budget.
		r.margin = max(r.margin, 2*(r.walked-r.b.req.Budget))
	}
}

// upgrade is one restoration to whole in the greedy put-back: what it
// adds, and the place of the record it needs in, or -1.
type upgrade struct{ gain, needs int }

// greedyAt is the greedy put-back of ups (each taken, in order, if it
// fits in what is left; those that need a record past the first in do
// not count) at room x: what it uses, and the next room above x at which
// its choice changes (math.MaxInt for none). Between the two the room it
// leaves grows one for one.
func greedyAt(ups []upgrade, in, x int) (used, next int) {
	next = math.MaxInt
	for _, u := range ups {
		switch {
		case u.needs >= in:
		case u.gain <= x-used:
			used += u.gain
		default:
			next = min(next, used+u.gain) // the room at which it would fit here
		}
	}
	return used, next
}

// firstLeaving is the smallest room from x to limit at which the greedy
// put-back of ups, with the first in records in, leaves at least c
// unused.
func firstLeaving(ups []upgrade, in, x, c, limit int) (int, bool) {
	for range maxLeftRounds {
		if x > limit {
			return 0, false
		}
		used, next := greedyAt(ups, in, x)
		if y := max(x, c+used); y < next && y <= limit {
			return y, true
		}
		x = next
	}
	return 0, false
}

// runAt is how many of the records priced prices (in order) a packet
// holds in room over the base: the greedy put-back of ups first, then
// the records in order while the room it leaves holds them, with the
// records a smaller room held kept. Walking the room up from 0, record
// k+1 comes in at the first room at which the greedy put-back, in what
// the first k leave, leaves its price; it never goes. A record marked
// after (an unprotected one) comes in only once every protected record
// is whole: the skill's ladder drops ranks 10 to 6 before it shortens
// one of ranks 2 to 5, and a record that came in could not go again.
func runAt(ups []upgrade, prices []int, after []bool, room int) int {
	at, held := 0, 0 // the room at which the last record came in; the prices of the records in
	for k, price := range prices {
		var x int
		ok := true
		if after[k] {
			x = max(at-held, wholeGain(ups, k)+price)
			ok = x <= room-held
		} else {
			x, ok = firstLeaving(ups, k, at-held, price, room-held)
		}
		if !ok {
			return k
		}
		at, held = x+held, held+price
	}
	return len(prices)
}

// wholeGain is what restoring every protected record of ups whole adds,
// with the first in records of the run in (an upgrade that needs a
// record past them cannot be made).
func wholeGain(ups []upgrade, in int) int {
	sum := 0
	for _, u := range ups {
		if u.needs < in {
			sum += u.gain
		}
	}
	return sum
}

// skillOrderBroken reports whether the records kept, in forms, show a
// protected record shortened beside an unprotected one.
func skillOrderBroken(b *builder, forms []form, kept []budget.Fitted) bool {
	in := keptByID(kept)
	short, whole := false, false
	for i, c := range b.cands {
		if _, ok := in[c.rec.ID]; !ok {
			continue
		}
		switch {
		case b.fixed(i) && forms[i] != formFull:
			short = true
		case !b.fixed(i):
			whole = true
		}
	}
	return short && whole
}

// anyShort reports whether a protected record of a's ups is in the
// packet in a shorter form.
func (a *arrangement) anyShort(b *builder) bool {
	return slices.ContainsFunc(a.ups, func(i int) bool { return b.forms[i] != formFull && b.forms[i] != formOut })
}

// unprotected marks the records of a's run that are not protected.
func (a *arrangement) unprotected(b *builder) []bool {
	out := make([]bool, len(a.free))
	for k, i := range a.free {
		out[k] = !b.fixed(i)
	}
	return out
}
