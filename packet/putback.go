package packet

import (
	"math"

	"github.com/lorekeep/lore/budget"
)

// rebase rebuilds a packet the ladder fitted at step 2 or later from one
// base for that step: every record the steps up to it may shorten or
// leave out, shortened or left out; every record step 1 may drop,
// dropped (a record its kind truncates keeps its cut). Then, most
// important first, each record takes the best form that fits by the
// estimates, calibrated by the real count of the ladder's packet; the
// whole is counted again and the last upgrades undone while it is over.
// The ladder's own result depends on where each step's estimates ran out
// (a bigger budget could narrow fewer two-hop records and leave a more
// important record summarised); from one base, a bigger budget gives up
// nothing a smaller one packed before it gives up something less
// important.
func (b *builder) rebase(c counted) (counted, error) {
	r := &rebaser{b: b, p: c.p, keep: keptByID(b.kept), defs: b.defs}
	r.offset = c.n - r.est()
	saved := b.saveState()
	r.base()
	if err := r.upgrade(); err != nil {
		return counted{}, err
	}
	q, err := r.undoOver()
	if err != nil {
		return counted{}, err
	}
	if !fits(q.n, b.req.Budget) {
		// The base itself is over: keep the ladder's packet.
		b.restoreState(saved)
		return c, nil
	}
	return q, nil
}

// rebaser is the state of one rebase.
type rebaser struct {
	b      *builder
	p      *Packet                    // the ladder's packet
	keep   map[string]budget.Fitted   // the records in, by id
	defs   map[string]budget.Deferred // the ladder's notes
	offset int                        // the real count less the estimate, last calibrated
	cur    int                        // the estimate of the packet as it stands
	margin int                        // near the budget the real count decides
	failAt int                        // an estimate at which a real count was over
	checks int                        // real counts made
	walked int                        // the first count of the last undoOver
	// changes are the upgrades made, in order.
	changes []rebaseChange
}

// rebaseChange is one upgrade, with what it replaced.
type rebaseChange struct {
	i         int
	form      form
	wasKept   bool
	wasForm   form
	wasStep   int
	wasFitted budget.Fitted
}

// keptByID indexes fitted records by id.
func keptByID(kept []budget.Fitted) map[string]budget.Fitted {
	keep := make(map[string]budget.Fitted, len(kept))
	for _, k := range kept {
		keep[k.ID] = k
	}
	return keep
}

// leastFirst is the candidates' indexes, least important first.
func (b *builder) leastFirst() []int {
	order := make([]int, len(b.cands))
	for i := range order {
		order[i] = i
	}
	b.sortLeastFirst(order)
	return order
}

// share is what candidate i adds to the estimate as it stands.
func (r *rebaser) share(i int) int {
	b := r.b
	k, ok := r.keep[b.cands[i].rec.ID]
	switch {
	case !ok:
		return 0
	case b.forms[i] == formFull && k.Truncated:
		if !b.grouping {
			return k.Tokens - b.note[i]
		}
		return k.Tokens
	}
	return b.itemTokens(i)
}

// est is the estimate of the whole packet: the frame and every share.
func (r *rebaser) est() int {
	t := r.b.frame()
	for i := range r.b.cands {
		t += r.share(i)
	}
	return t
}

func (r *rebaser) fitted(i int, f form) budget.Fitted {
	c := r.b.cands[i]
	return budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: r.b.cost[i][f]}
}

// base sets every record to the base of the ladder's step: what the
// steps up to it may shorten or leave out, shortened or out; what step 1
// may drop, dropped; a record its kind truncates keeps its cut.
func (r *rebaser) base() {
	b := r.b
	for i, c := range b.cands {
		id := c.rec.ID
		if k, ok := r.keep[id]; ok && k.Truncated {
			continue
		}
		if !b.fixed(i) {
			delete(r.keep, id)
			b.forms[i], b.step[i] = formFull, 0
			continue
		}
		f, st := b.reducible(i, r.p.Step)
		b.forms[i], b.step[i] = f, st
		if f == formOut {
			delete(r.keep, id)
		} else {
			r.keep[id] = r.fitted(i, f)
		}
	}
}

// upgrade gives each record, most important first, the best form that
// fits by the estimate.
func (r *rebaser) upgrade() error {
	order := r.b.leastFirst()
	r.margin = max(8, r.b.req.Budget/100)
	r.failAt = math.MaxInt
	r.cur = r.est() // kept up to date one candidate at a time: est is linear
	for k := len(order) - 1; k >= 0; k-- {
		if err := r.upgradeOne(order[k]); err != nil {
			return err
		}
	}
	return nil
}

// upgradeOne tries record i whole, then (out at step 3) in its shorter
// form, as a step-2 put-back does.
func (r *rebaser) upgradeOne(i int) error {
	b := r.b
	c := b.cands[i]
	cur, kept := r.keep[c.rec.ID]
	if kept && (b.forms[i] == formFull || cur.Truncated) {
		return nil
	}
	opts := []form{formFull}
	if f, st := b.reducible(i, r.p.Step); st > 0 && f == formOut && b.forms[i] == formOut {
		if short := b.shorter(c); b.cost[i][short] < b.cost[i][formFull] {
			opts = append(opts, short)
		}
	}
	was := r.share(i)
	for _, f := range opts {
		ch := rebaseChange{i: i, form: f, wasKept: kept, wasForm: b.forms[i], wasStep: b.step[i], wasFitted: cur}
		b.setForm(i, f)
		r.keep[c.rec.ID] = r.fitted(i, f)
		t := r.cur - was + r.share(i)
		fits, err := r.fits(t)
		if err != nil {
			return err
		}
		if fits {
			r.changes = append(r.changes, ch)
			r.cur = t
			return nil
		}
		r.undo(ch)
	}
	return nil
}

// setForm gives record i form f and the ladder step that form stands for.
func (b *builder) setForm(i int, f form) {
	b.forms[i] = f
	switch {
	case f == formFull:
		b.step[i] = 0
	case b.cands[i].history:
		b.step[i] = 4
	default:
		b.step[i] = 2
	}
}

// fits says whether the packet at estimate t fits: by the estimate far
// from the budget, by the real count (which recalibrates) near it. A
// check that failed at an estimate fails above it too: the packet only
// grows. Checks are few on a large store.
func (r *rebaser) fits(t int) (bool, error) {
	b := r.b
	at := t + r.offset
	if fits(at, b.req.Budget-r.margin) {
		return true, nil
	}
	if !fits(at, b.req.Budget+r.margin) || at >= r.failAt || r.checks >= maxRebaseChecks {
		return false, nil
	}
	r.checks++
	b.trial = true
	q, err := r.render()
	b.trial = false
	if err != nil {
		return false, err
	}
	if !fits(q.n, b.req.Budget) {
		r.failAt = at
		return false, nil
	}
	r.offset = q.n - t
	return true, nil
}

// undo puts back what one upgrade replaced.
func (r *rebaser) undo(ch rebaseChange) {
	b := r.b
	id := b.cands[ch.i].rec.ID
	b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
	if ch.wasKept {
		r.keep[id] = ch.wasFitted
	} else {
		delete(r.keep, id)
	}
}

// undoOver renders the packet and, while it is over, undoes the least
// important upgrades: counting with stand-ins first (no body read for
// what goes back out), then for real.
func (r *rebaser) undoOver() (counted, error) {
	var q counted
	r.walked = -1
	for _, trial := range []bool{true, false} {
		for {
			r.b.trial = trial
			var err error
			q, err = r.render()
			r.b.trial = false
			if err != nil {
				return counted{}, err
			}
			if trial && r.walked < 0 {
				r.walked = q.n
			}
			if fits(q.n, r.b.req.Budget) || len(r.changes) == 0 {
				break
			}
			r.undo(r.changes[len(r.changes)-1])
			r.changes = r.changes[:len(r.changes)-1]
		}
	}
	return q, nil
}

// render assembles and counts the packet as it stands; the ladder's
// notes stay for the records still out. A trial render (stand-ins in)
// is counted, and its output left empty.
func (r *rebaser) render() (counted, error) {
	b := r.b
	q, kept, defs, err := r.assemble()
	if err != nil {
		return counted{}, err
	}
	o, m := q.settleAs(b.req.Format, !b.trial)
	b.kept, b.defs = kept, defs
	return counted{p: q, out: o, n: m}, nil
}

// assemble is the packet as it stands, not yet rendered, with the
// records in and the notes of those out.
func (r *rebaser) assemble() (*Packet, []budget.Fitted, map[string]budget.Deferred, error) {
	b := r.b
	kept := make([]budget.Fitted, 0, len(r.keep))
	defs := map[string]budget.Deferred{}
	for _, c := range b.cands {
		if k, ok := r.keep[c.rec.ID]; ok {
			kept = append(kept, k)
		} else if d, ok := r.defs[c.rec.ID]; ok {
			defs[c.rec.ID] = d
		}
	}
	q, err := b.assemble(kept, defs)
	if err != nil {
		return nil, nil, nil, err
	}
	q.Step = r.p.Step
	return q, kept, defs, nil
}

// restore is the final put-back (engine rule 5) against the real budget
// with the real count: the ladder's steps carry their estimates' slack
// from one to the next and put back only within a step, so a packet built
// for a bigger budget could hold less than one built for a smaller one.
// Walking every record not in the packet whole, most important first, it
// tries the best form first (whole, then, for a record a ladder step
// shortened, its shorter form) and keeps the first that leaves the
// rendered packet within the budget. out and n are p rendered and its
// count.
func (b *builder) restore(c counted) (counted, error) {
	r := &restorer{b: b, at: c, keep: keptByID(b.kept), defs: make(map[string]budget.Deferred, len(b.defs)),
		order: b.leastFirst(), failed: map[string]bool{}, failAt: math.MaxInt}
	for id, d := range b.defs {
		r.defs[id] = d
	}
	for round := 0; round < 4; round++ {
		r.byEstimate = round == 0
		if err := r.walk(); err != nil {
			return counted{}, err
		}
		if len(r.changes) == 0 {
			break
		}
		done, err := r.recount()
		if err != nil {
			return counted{}, err
		}
		if done {
			break
		}
	}
	b.kept = b.kept[:0]
	for _, cc := range b.cands {
		if k, ok := r.keep[cc.rec.ID]; ok {
			b.kept = append(b.kept, k)
		}
	}
	b.defs = r.defs
	return r.at, nil
}

// restorer is the state of one final put-back.
type restorer struct {
	b *builder
	// at is the packet as it stands; its count only, after a put-back
	// taken on its price (byEstimate).
	at     counted
	keep   map[string]budget.Fitted   // the records in, by id
	defs   map[string]budget.Deferred // the notes of the records out
	order  []int                      // least important first
	failed map[string]bool            // counted in with a stand-in, over for real
	tries  int
	failAt int // the packet only grows: an estimate at a real count that was over is over too
	// byEstimate lets the first walk take a record far below the budget
	// by its price alone, without rendering the packet for it: the count
	// after the walk (recount) has the last word, and later walks, after
	// a count that was over, render every try.
	byEstimate bool
	// changes are this walk's put-backs, in order.
	changes []restoreChange
}

// restoreChange is one put-back, with what it replaced.
type restoreChange struct {
	i            int
	cur          budget.Fitted
	kept, hadDef bool
	wasForm      form
	wasStep      int
	wasDef       budget.Deferred
}

// build assembles and counts the packet as it stands; with trial, bodies
// not read yet are stand-ins of their cached size.
func (r *restorer) build(trial bool) (counted, error) {
	b := r.b
	kept := make([]budget.Fitted, 0, len(r.keep))
	for _, cc := range b.cands {
		if k, ok := r.keep[cc.rec.ID]; ok {
			kept = append(kept, k)
		}
	}
	b.trial = trial
	q, err := b.assemble(kept, r.defs)
	b.trial = false
	if err != nil {
		return counted{}, err
	}
	q.Step = r.at.p.Step
	return b.count(q), nil
}

// undo takes one put-back out again.
func (r *restorer) undo(ch restoreChange) {
	b := r.b
	id := b.cands[ch.i].rec.ID
	b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
	if ch.kept {
		r.keep[id] = ch.cur
	} else {
		delete(r.keep, id)
	}
	if ch.hadDef {
		r.defs[id] = ch.wasDef
	}
}

// walk tries every record not in whole, most important first; in the
// monotone profile it stops at the first that does not go in (a prefix:
// nothing less important takes its place).
func (r *restorer) walk() error {
	for k := len(r.order) - 1; k >= 0 && r.tries < maxRestoreTries; k-- {
		stop, err := r.place(r.order[k])
		if err != nil {
			return err
		}
		if stop {
			break
		}
	}
	return nil
}

// place tries record i whole, then, for a record a ladder step shortened,
// in its shorter form, and keeps the first that leaves the packet within
// the budget. stop says the walk ends at it.
func (r *restorer) place(i int) (stop bool, err error) {
	b := r.b
	c := b.cands[i]
	cur, kept := r.keep[c.rec.ID]
	if (kept && b.forms[i] == formFull && !cur.Truncated) || r.failed[c.rec.ID] {
		return false, nil // whole already
	}
	if !kept && b.grows() && !b.fixed(i) {
		// The fill grew the budget from nothing; a record it left out
		// would come in here by the slack of this budget's real count
		// alone, and a bigger budget, whose fill let in others first,
		// might not hold it.
		return true, nil
	}
	better := []form{formFull}
	if short := b.shorter(c); b.step[i] > 0 && (!kept || b.forms[i] == formOut) && b.cost[i][short] < b.cost[i][formFull] {
		better = append(better, short) // the ladder shortened it: its shorter form may fit where the whole does not
	}
	for _, f := range better {
		placed, err := r.tryForm(i, f, cur, kept)
		if err != nil || placed {
			return false, err
		}
	}
	return !kept && b.monotone() && !b.fixed(i), nil
}

// tryForm puts record i in form f if the packet, counted with stand-ins
// for bodies not read yet, stays within the budget.
func (r *restorer) tryForm(i int, f form, cur budget.Fitted, kept bool) (bool, error) {
	b := r.b
	c := b.cands[i]
	id := c.rec.ID
	add := b.cost[i][f] // what the record adds now, over its note
	if kept {
		add -= cur.Tokens
	}
	if !kept && f == formFull && !b.grouping {
		add -= b.note[i] // its note goes
	}
	// Entries priced alone add up over the whole (by a tenth or more of a
	// small entry): the count has the last word within a generous margin.
	if !fits(r.at.n+add, b.req.Budget+max(8, add/4)) || r.at.n+add >= r.failAt {
		return false, nil
	}
	r.tries++
	ch := restoreChange{i: i, cur: cur, kept: kept, wasForm: b.forms[i], wasStep: b.step[i]}
	ch.wasDef, ch.hadDef = r.defs[id]
	b.setForm(i, f)
	r.keep[id] = budget.Fitted{Item: budget.Item{ID: id, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][f]}
	delete(r.defs, id)
	if r.byEstimate && fits(r.at.n+add, b.req.Budget-max(32, b.req.Budget/10)) {
		r.at.n += add
		r.changes = append(r.changes, ch)
		return true, nil
	}
	q, err := r.build(true)
	if err != nil {
		return false, err
	}
	if fits(q.n, b.req.Budget) {
		r.at = q
		r.changes = append(r.changes, ch)
		return true, nil
	}
	r.failAt = min(r.failAt, q.n)
	r.undo(ch)
	return false, nil
}

// recount counts the packet with the real bodies. Over (a stand-in
// counted a token or two short), it undoes the last put-back, which is
// not tried again, and the walk goes again; still over, it undoes every
// put-back of this walk. done says the walks end.
func (r *restorer) recount() (done bool, err error) {
	b := r.b
	if r.at, err = r.build(false); err != nil {
		return false, err
	}
	if fits(r.at.n, b.req.Budget) {
		return true, nil
	}
	if r.byEstimate {
		// Prices taken on trust added up to more than the count: take
		// the walk back whole, and the next walk renders every try.
		if err := r.undoAll(); err != nil {
			return false, err
		}
		return false, nil
	}
	last := r.changes[len(r.changes)-1]
	r.changes = r.changes[:len(r.changes)-1]
	r.failed[b.cands[last.i].rec.ID] = true
	r.undo(last)
	if r.at, err = r.build(false); err != nil {
		return false, err
	}
	if !fits(r.at.n, b.req.Budget) {
		return true, r.undoAll()
	}
	r.changes = r.changes[:0]
	return false, nil
}

// undoAll takes back every put-back of the walk and counts the packet.
func (r *restorer) undoAll() (err error) {
	for len(r.changes) > 0 {
		r.undo(r.changes[len(r.changes)-1])
		r.changes = r.changes[:len(r.changes)-1]
	}
	r.at, err = r.build(false)
	return err
}
