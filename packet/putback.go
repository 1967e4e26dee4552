package packet

import (
	"math"
	"slices"
	"strings"

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
func (b *builder) rebase(p *Packet, out string, n int) (*Packet, string, int, error) {
	keep := make(map[string]budget.Fitted, len(b.kept))
	for _, k := range b.kept {
		keep[k.ID] = k
	}
	// share is what candidate i adds to the estimate as it stands.
	share := func(i int) int {
		k, ok := keep[b.cands[i].rec.ID]
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
	est := func() int {
		t := b.frame()
		for i := range b.cands {
			t += share(i)
		}
		return t
	}
	offset := n - est()
	savedForms, savedSteps := slices.Clone(b.forms), slices.Clone(b.step)
	savedKept, savedDefs := b.kept, b.defs
	fitted := func(i int, f form) budget.Fitted {
		c := b.cands[i]
		return budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][f]}
	}
	// The base.
	for i, c := range b.cands {
		id := c.rec.ID
		if k, ok := keep[id]; ok && k.Truncated {
			continue
		}
		if !b.fixed(i) {
			delete(keep, id)
			b.forms[i], b.step[i] = formFull, 0
			continue
		}
		f, st := b.reducible(i, p.Step)
		b.forms[i], b.step[i] = f, st
		if f == formOut {
			delete(keep, id)
		} else {
			keep[id] = fitted(i, f)
		}
	}
	// Most important first, the best form that fits by the estimate.
	order := make([]int, len(b.cands))
	for i := range order {
		order[i] = i
	}
	b.sortLeastFirst(order)
	type change struct {
		i         int
		form      form
		wasKept   bool
		wasForm   form
		wasStep   int
		wasFitted budget.Fitted
	}
	render := func() (*Packet, string, int, error) {
		kept := make([]budget.Fitted, 0, len(keep))
		defs := map[string]budget.Deferred{}
		for _, c := range b.cands {
			if k, ok := keep[c.rec.ID]; ok {
				kept = append(kept, k)
			} else if d, ok := savedDefs[c.rec.ID]; ok {
				defs[c.rec.ID] = d
			}
		}
		q, err := b.assemble(kept, defs)
		if err != nil {
			return nil, "", 0, err
		}
		q.Step = p.Step
		o, m := q.settle(b.req.Format)
		b.kept, b.defs = kept, defs
		return q, o, m, nil
	}
	var changes []change
	// Near the budget the real count decides (and recalibrates).
	margin := max(8, b.req.Budget/100)
	failAt, checks := math.MaxInt, 0
	// The estimate of the packet as it stands, kept up to date one
	// candidate at a time (est is linear in the candidates).
	cur0 := est()
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		c := b.cands[i]
		id := c.rec.ID
		cur, kept := keep[id]
		if kept && (b.forms[i] == formFull || cur.Truncated) {
			continue
		}
		opts := []form{formFull}
		if f, st := b.reducible(i, p.Step); st > 0 && f == formOut && b.forms[i] == formOut {
			if short := b.shorter(c); b.cost[i][short] < b.cost[i][formFull] {
				opts = append(opts, short) // out at step 3: its shorter form, as a step-2 put-back does
			}
		}
		was := share(i)
		for _, f := range opts {
			ch := change{i: i, form: f, wasKept: kept, wasForm: b.forms[i], wasStep: b.step[i], wasFitted: cur}
			b.forms[i] = f
			b.step[i] = 0
			if f != formFull {
				b.step[i] = 2
				if c.history {
					b.step[i] = 4
				}
			}
			keep[id] = fitted(i, f)
			t := cur0 - was + share(i)
			fits := t+offset <= b.req.Budget-margin
			// A check that failed at an estimate fails above it too: the
			// packet only grows. Checks are few on a large store.
			if !fits && t+offset <= b.req.Budget+margin && t+offset < failAt && checks < maxRebaseChecks {
				checks++
				b.trial = true
				_, _, m, err := render()
				b.trial = false
				if err != nil {
					return nil, "", 0, err
				}
				if fits = m <= b.req.Budget; fits {
					offset = m - t
				} else {
					failAt = t + offset
				}
			}
			if fits {
				changes = append(changes, ch)
				cur0 = t
				break
			}
			b.forms[i], b.step[i] = ch.wasForm, ch.wasStep
			if kept {
				keep[id] = cur
			} else {
				delete(keep, id)
			}
		}
	}
	// Over: undo the least important upgrades, counting with stand-ins
	// first (no body read for what goes back out), then for real.
	var q *Packet
	var o string
	var m int
	for _, trial := range []bool{true, false} {
		for {
			b.trial = trial
			var err error
			q, o, m, err = render()
			b.trial = false
			if err != nil {
				return nil, "", 0, err
			}
			if m <= b.req.Budget || len(changes) == 0 {
				break
			}
			ch := changes[len(changes)-1]
			changes = changes[:len(changes)-1]
			id := b.cands[ch.i].rec.ID
			b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
			if ch.wasKept {
				keep[id] = ch.wasFitted
			} else {
				delete(keep, id)
			}
		}
	}
	if m > b.req.Budget {
		// The base itself is over: keep the ladder's packet.
		copy(b.forms, savedForms)
		copy(b.step, savedSteps)
		b.kept, b.defs = savedKept, savedDefs
		return p, out, n, nil
	}
	return q, o, m, nil
}

// stand is text that counts n tokens (or within a token or two of it,
// for a counter it cannot match exactly): "x x x ..." is one token a word
// for the BPE encodings, and the loop corrects for any other counter.
func (b *builder) stand(n int) string {
	if s, ok := b.stands[n]; ok {
		return s
	}
	if b.stands == nil {
		b.stands = map[int]string{}
	}
	words := n
	s := ""
	for range 4 {
		if words <= 0 {
			s = ""
			break
		}
		s = "x" + strings.Repeat(" x", words-1)
		got := b.req.Counter.Count(s)
		if got == n {
			break
		}
		words += n - got
	}
	b.stands[n] = s
	return s
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
func (b *builder) restore(p *Packet, out string, n int) (*Packet, string, int, error) {
	keep := make(map[string]budget.Fitted, len(b.kept))
	for _, k := range b.kept {
		keep[k.ID] = k
	}
	defs := make(map[string]budget.Deferred, len(b.defs))
	for id, d := range b.defs {
		defs[id] = d
	}
	order := make([]int, len(b.cands))
	for i := range order {
		order[i] = i
	}
	b.sortLeastFirst(order)
	build := func(trial bool) (*Packet, string, int, error) {
		kept := make([]budget.Fitted, 0, len(keep))
		for _, cc := range b.cands {
			if k, ok := keep[cc.rec.ID]; ok {
				kept = append(kept, k)
			}
		}
		b.trial = trial
		q, err := b.assemble(kept, defs)
		b.trial = false
		if err != nil {
			return nil, "", 0, err
		}
		q.Step = p.Step
		o, m := q.settle(b.req.Format)
		return q, o, m, nil
	}
	type change struct {
		i            int
		cur          budget.Fitted
		kept, hadDef bool
		wasForm      form
		wasStep      int
		wasDef       budget.Deferred
	}
	undo := func(ch change) {
		id := b.cands[ch.i].rec.ID
		b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
		if ch.kept {
			keep[id] = ch.cur
		} else {
			delete(keep, id)
		}
		if ch.hadDef {
			defs[id] = ch.wasDef
		}
	}
	var changes []change
	failed := map[string]bool{} // counted in with a stand-in, over for real
	tries, failAt := 0, math.MaxInt
	for round := 0; round < 4; round++ {
		for k := len(order) - 1; k >= 0 && tries < maxRestoreTries; k-- {
			i := order[k]
			c := b.cands[i]
			id := c.rec.ID
			cur, kept := keep[id]
			if (kept && b.forms[i] == formFull && !cur.Truncated) || failed[id] {
				continue // whole already
			}
			now := 0 // what the record adds now, over its note
			if kept {
				now = cur.Tokens
			}
			placed := false
			var better []form
			better = append(better, formFull)
			if short := b.shorter(c); b.step[i] > 0 && (!kept || b.forms[i] == formOut) && b.cost[i][short] < b.cost[i][formFull] {
				better = append(better, short) // the ladder shortened it: its shorter form may fit where the whole does not
			}
			for _, f := range better {
				add := b.cost[i][f] - now
				if !kept && f == formFull && !b.grouping {
					add -= b.note[i] // its note goes
				}
				// Entries priced alone add up over the whole (by a tenth or
				// more of a small entry): the count has the last word within
				// a generous margin.
				if n+add > b.req.Budget+max(8, add/4) || n+add >= failAt {
					continue
				}
				tries++
				ch := change{i: i, cur: cur, kept: kept, wasForm: b.forms[i], wasStep: b.step[i]}
				ch.wasDef, ch.hadDef = defs[id]
				b.forms[i] = f
				switch {
				case f == formFull:
					b.step[i] = 0
				case c.history:
					b.step[i] = 4
				default:
					b.step[i] = 2
				}
				keep[id] = budget.Fitted{Item: budget.Item{ID: id, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][f]}
				delete(defs, id)
				// Counted with stand-ins of the cached size for bodies not
				// read yet: no body is read for a record that stays out.
				q, o, m, err := build(true)
				if err != nil {
					return nil, "", 0, err
				}
				if m <= b.req.Budget {
					p, out, n = q, o, m
					changes = append(changes, ch)
					placed = true
					break
				}
				failAt = min(failAt, m) // the packet only grows: an estimate at a real count that was over is over too
				undo(ch)
			}
			if !placed && !kept && b.monotone() && !b.fixed(i) {
				break // a prefix: nothing less important takes its place
			}
		}
		if len(changes) == 0 {
			break
		}
		// The real count, with the real bodies; over (a stand-in counted a
		// token or two short), undo the last put-back and walk again.
		q, o, m, err := build(false)
		if err != nil {
			return nil, "", 0, err
		}
		p, out, n = q, o, m
		if m <= b.req.Budget {
			break
		}
		last := changes[len(changes)-1]
		changes = changes[:len(changes)-1]
		failed[b.cands[last.i].rec.ID] = true
		undo(last)
		if p, out, n, err = build(false); err != nil {
			return nil, "", 0, err
		}
		if n > b.req.Budget {
			// Still over: undo every put-back of this walk.
			for len(changes) > 0 {
				undo(changes[len(changes)-1])
				changes = changes[:len(changes)-1]
			}
			if p, out, n, err = build(false); err != nil {
				return nil, "", 0, err
			}
			break
		}
		changes = changes[:0]
	}
	b.kept = b.kept[:0]
	for _, cc := range b.cands {
		if k, ok := keep[cc.rec.ID]; ok {
			b.kept = append(b.kept, k)
		}
	}
	b.defs = defs
	return p, out, n, nil
}
