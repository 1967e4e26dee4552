package packet

import (
	"math"

	"github.com/lorekeep/lore/budget"
)

// restore is the final put-back (engine rule 5) against the real budget
// with the real count: the ladder's steps carry their estimates' slack
// from one to the next and put back only within a step, so a packet built
// for a bigger budget could hold less than one built for a smaller one.
// Walking every record not in the packet whole, most important first, it
// tries the best form first (whole, then, for a record a ladder step
// shortened, its shorter form) and keeps the first that leaves the
// rendered packet within the budget.
func (b *builder) restore(c counted) (counted, error) {
	r := &restorer{standing: standing{b: b, step: c.p.Step, keep: keptByID(b.kept), defs: b.defs}, at: c,
		order: b.leastFirst(), failed: map[string]bool{}, failAt: math.MaxInt}
	for round := 0; round < 4; round++ {
		r.byEstimate = round == 0
		if err := r.walk(); err != nil {
			return counted{}, err
		}
		if len(r.log) == 0 {
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
	r.commit()
	return r.at, nil
}

// maxRestoreTries bounds the renders of the final put-back: each try
// renders and counts the whole packet.
const maxRestoreTries = 40

// restorer is the state of one final put-back.
type restorer struct {
	standing
	// at is the packet as it stands; its count only, after a put-back
	// taken on its price (byEstimate). start is the packet a walk
	// started from, counted for real.
	at, start counted
	order     []int           // least important first
	failed    map[string]bool // counted in with a stand-in, over for real
	tries     int
	failAt    int // the packet only grows: an estimate at a real count that was over is over too
	// byEstimate lets the first walk take a record far below the budget
	// by its price alone, without rendering the packet for it: the count
	// after the walk (recount) has the last word, and later walks, after
	// a count that was over, render every try.
	byEstimate bool
}

// walk tries every record not in whole, most important first; in the
// monotone profile it stops at the first that does not go in (a prefix:
// nothing less important takes its place). Its put-backs are the log.
func (r *restorer) walk() error {
	r.start = r.at
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
	r.try(i, f)
	if r.byEstimate && fits(r.at.n+add, b.req.Budget-max(32, b.req.Budget/10)) {
		r.at.n += add
		return true, nil
	}
	q, err := r.countTrial()
	if err != nil {
		return false, err
	}
	if fits(q.n, b.req.Budget) {
		r.at = q
		return true, nil
	}
	r.failAt = min(r.failAt, q.n)
	r.undo()
	return false, nil
}

// recount counts the packet with the real bodies (the walk's counts had
// stand-ins, or none). Over (a stand-in counted a token or two short),
// it undoes the last put-back, which is not tried again, and the walk
// goes again; still over, it undoes every put-back of this walk. done
// says the walks end.
func (r *restorer) recount() (done bool, err error) {
	b := r.b
	if r.at, err = r.count(); err != nil {
		return false, err
	}
	if fits(r.at.n, b.req.Budget) {
		return true, nil
	}
	if r.byEstimate {
		// Prices taken on trust added up to more than the count: take
		// the walk back whole, and the next walk renders every try.
		r.undoAll()
		return false, nil
	}
	r.failed[b.cands[r.log[len(r.log)-1].i].rec.ID] = true
	r.undo()
	if r.at, err = r.count(); err != nil {
		return false, err
	}
	if !fits(r.at.n, b.req.Budget) {
		r.undoAll()
		return true, nil
	}
	r.log = r.log[:0]
	return false, nil
}

// undoAll takes back every put-back of the walk: the packet is the one
// the walk started from, as it was counted.
func (r *restorer) undoAll() {
	for len(r.log) > 0 {
		r.undo()
	}
	r.at = r.start
}
