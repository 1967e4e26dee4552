package packet

import (
	"math"
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
	r := &rebaser{standing: standing{b: b, step: c.p.Step, keep: keptByID(b.kept), defs: b.defs}}
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
	r.commit()
	return q, nil
}

// maxRebaseChecks bounds the whole counts a rebase makes near the budget.
const maxRebaseChecks = 12

// rebaser is the state of one rebase (and of arrange, which walks the
// same way from its own base: monotone.go).
type rebaser struct {
	standing
	offset int // the real count less the estimate, last calibrated
	cur    int // the estimate of the packet as it stands
	margin int // near the budget the real count decides
	failAt int // an estimate at which a real count was over
	checks int // real counts made
	walked int // the first count of the last undoOver
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
		f, st := b.reducible(i, r.step)
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
	if f, st := b.reducible(i, r.step); st > 0 && f == formOut && b.forms[i] == formOut {
		if short := b.shorter(c); b.cost[i][short] < b.cost[i][formFull] {
			opts = append(opts, short)
		}
	}
	was := r.share(i)
	for _, f := range opts {
		r.try(i, f)
		t := r.cur - was + r.share(i)
		fits, err := r.fits(t)
		if err != nil {
			return err
		}
		if fits {
			r.cur = t
			return nil
		}
		r.undo()
	}
	return nil
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
	q, err := r.countTrial()
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

// undoOver counts the packet and, while it is over, undoes the least
// important upgrades: counting with stand-ins first (no body read for
// what goes back out), then for real. The real pass counts again the
// packet the trial pass ended with: a stand-in counts a token or two
// off the body it stands for, and only the real count says (rule 6).
func (r *rebaser) undoOver() (counted, error) {
	var q counted
	r.walked = -1
	for _, trial := range []bool{true, false} {
		for {
			var err error
			if trial {
				q, err = r.countTrial()
			} else {
				q, err = r.count()
			}
			if err != nil {
				return counted{}, err
			}
			if trial && r.walked < 0 {
				r.walked = q.n
			}
			if fits(q.n, r.b.req.Budget) || len(r.log) == 0 {
				break
			}
			r.undo()
		}
	}
	return q, nil
}
