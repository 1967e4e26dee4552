package packet

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
)

// fixed reports whether candidate i may not be dropped by Fit: protected
// ranks and pinned records.
func (b *builder) fixed(i int) bool { return b.cands[i].protected || b.cands[i].pinned }

// frame is the fixed part as Fit sees it: the frame plus a note for every
// candidate (each one appears either as an entry or as a note); when notes
// are grouped, the share they may take plus the group lines.
func (b *builder) frame() int {
	if b.grouping {
		return max(0, b.base+b.groupCost-b.frameCredit)
	}
	f := b.base
	for i := range b.cands {
		f += b.note[i]
	}
	return max(0, f-b.frameCredit)
}

// itemTokens is what keeping candidate i in its current form adds over
// deferring it.
func (b *builder) itemTokens(i int) int {
	switch b.forms[i] {
	case formFull:
		if b.grouping {
			return b.cost[i][formFull]
		}
		return max(0, b.cost[i][formFull]-b.note[i])
	case formOut:
		return 0
	default:
		return b.cost[i][b.forms[i]] // the note stays: the summary is listed as deferred too
	}
}

// fixedTotal is the frame plus every fixed candidate in its current form.
func (b *builder) fixedTotal() int {
	t := b.frame()
	for i := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut {
			t += b.itemTokens(i)
		}
	}
	return t
}

// fitOnce runs budget.Fit over the candidates in their current forms.
func (b *builder) fitOnce(limit int) (budget.Result, error) {
	items := make([]budget.Item, 0, len(b.cands)+len(b.cands)/8) // a few rests of excerpts beside
	var loadErr error
	var places map[int]float64 // where the rest of an excerpted body goes
	if b.grows() {
		places = b.upgradePlaces()
	}
	for i, c := range b.cands {
		if b.forms[i] == formOut {
			continue
		}
		it := budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Tokens: b.itemTokens(i), Rank: c.rank, Score: c.score,
			Order: int64(i), Pinned: b.fixed(i), Action: b.cfg.Overflow[c.rec.Kind], Late: c.deep}
		if it.Pinned || b.forms[i] != formFull {
			it.Action = budget.Drop
		}
		if it.Action == budget.Truncate {
			if err := b.loadBodies([]string{c.rec.ID}); err != nil {
				return budget.Result{}, err
			}
			it.Text = b.bodies[c.rec.ID]
			it.MinTokens = min(c.tc.Body, 32)
		}
		items = append(items, it)
		if up, ok := b.upgradeItem(i, places); ok {
			items = append(items, up)
		}
	}
	b.upgraded = nil // the fit's own renders say by their items
	res, err := budget.Fit(budget.Request{
		Items: items, Limit: limit, Counter: b.memo.fitCounter(), Frame: b.frame(), Prefix: b.monotone(), Grow: b.grows(),
		Render: func(kept []budget.Fitted) string {
			p, err := b.assemble(kept, nil)
			if err != nil {
				loadErr = err
				return ""
			}
			return render(b.req.Format, view{p: p, tokens: b.req.Budget, hash: placeholderHash})
		},
	})
	if loadErr != nil {
		return res, loadErr
	}
	return res, err
}

// anyFixed reports whether any candidate is protected or pinned.
func (b *builder) anyFixed() bool {
	for i := range b.cands {
		if b.fixed(i) {
			return true
		}
	}
	return false
}

// monotone reports whether the profile keeps its packets a prefix of the
// packet order (Profile.Monotone).
func (b *builder) monotone() bool { return b.cfg.Profiles[b.req.ranking].Monotone }

// ladder is the deferral ladder (package doc, "Pipeline") against limit:
// its packet, rendered and counted.
func (b *builder) ladder(limit int) (counted, error) {
	for i := range b.forms {
		b.forms[i], b.step[i] = formFull, 0
	}
	if c, ok, err := b.whole(limit); ok || err != nil {
		return c, err
	}
	if !fits(b.frame(), limit) {
		return b.frameOnly(limit)
	}
	// slack is how far Fit's real count ran over the fixed estimate; each
	// step reduces against the limit less the slack seen so far. When the
	// slack grows at the last step, steps 2 to 4 run again with it (a few
	// passes at most) before the ladder gives up: a bigger budget must not
	// fail where a smaller one, taking another path, fitted.
	slack, passSlack, passes, reached := 0, 0, 0, 0
	for step := 1; ; step++ {
		reached = max(reached, step)
		if step > 4 {
			if slack > passSlack && passes < 4 {
				passes++
				passSlack, step = slack, 1
				continue
			}
			return b.refuse(limit, nil)
		}
		b.ladderStep(step, limit-slack)
		res, err := b.fitOnce(limit)
		if err == nil {
			p, err := b.fitted(res, reached)
			if err != nil {
				return counted{}, err
			}
			// Fit counted its renders with a placeholder for the hash and
			// the total, and every note "over budget": the packet as it
			// is written is counted here.
			return b.count(p), nil
		}
		var oe *budget.OverflowError
		if !errors.As(err, &oe) {
			return counted{}, err
		}
		if oe.Cause == budget.CauseFail {
			return b.refuse(limit, err)
		}
		if est := b.fixedTotal(); oe.Needed > est {
			slack = max(slack, oe.Needed-est)
		}
	}
}

// whole is the packet with every record whole, when it fits. Estimates
// add up a little over the whole (entries are priced alone), so near the
// limit the real count decides.
//
// With every record whole, an excerpted one is whole too: a growing fill
// would show it so (upgrade.go), and a packet at a smaller budget may
// have.
func (b *builder) whole(limit int) (counted, bool, error) {
	var places map[int]float64
	if b.grows() {
		places = b.upgradePlaces()
	}
	kept, total := b.keptAll(), b.base
	var rests []budget.Item // the rest of each excerpted body, shown whole here
	for i := range b.cands {
		total += kept[i].Tokens
		if up, ok := b.upgradeItem(i, places); ok {
			total += up.Tokens
			rests = append(rests, up)
		}
	}
	if !fits(total, limit+limit/10) {
		return counted{}, false, nil
	}
	for _, up := range rests {
		kept = append(kept, budget.Fitted{Item: up, Tokens: up.Tokens})
	}
	b.kept, b.defs = b.foldUpgrades(kept), nil
	p, err := b.assemble(b.kept, nil)
	if err != nil {
		return counted{}, false, err
	}
	// Near the limit the count with a placeholder hash decides, as Fit's
	// do; the draft it is counted from is the one settled, so the packet
	// is rendered once.
	d := p.draft(b.req.Format)
	if fits(d.countStating(b.req.Budget, placeholderHash), limit) {
		out, n := d.settle(true)
		return counted{p: p, out: out, n: n}, true, nil
	}
	return counted{}, false, nil
}

// ladderStep runs one step of the deferral ladder against target: 1
// drops (in the engine), 2 replaces long prose by its summary, 3 narrows
// the walk to one hop, 4 collapses history to its summaries.
func (b *builder) ladderStep(step, target int) {
	switch step {
	case 2:
		b.reduce(target, step, func(i int, c *candidate) bool {
			return c.rank != 1 && !c.history && c.rec.Summary != "" && c.tc.Body >= b.cfg.LongProse &&
				b.cost[i][formSummary] < b.cost[i][formFull]
		}, formSummary)
	case 3:
		b.reduce(target, step, func(i int, c *candidate) bool { return c.rank != 1 && c.hops >= 2 }, formOut)
	case 4:
		b.reduce(target, step, func(i int, c *candidate) bool {
			return c.rank != 1 && c.history && b.cost[i][b.shorter(c)] < b.cost[i][formFull]
		}, formSummary)
	}
}

// fitted assembles the packet of a fit that succeeded at the ladder's
// step reached.
func (b *builder) fitted(res budget.Result, reached int) (*Packet, error) {
	defs := make(map[string]budget.Deferred, len(res.Deferred))
	for _, d := range res.Deferred {
		defs[d.ID] = d
	}
	for id := range defs {
		if strings.HasSuffix(id, upgradeSuffix) {
			delete(defs, id) // its record is in, by its excerpt, or has its own note
		}
	}
	kept := b.foldUpgrades(res.Kept)
	b.kept, b.defs = kept, defs
	p, err := b.assemble(kept, defs)
	if err != nil {
		return nil, err
	}
	p.Step = min(reached, 4) // a rerun keeps what the later steps of the pass before did
	if res.FrameOnly {
		p.FrameOnly = true
		p.Warnings = append(slices.Clone(p.Warnings), b.frameWarning())
		p.frameWarn = len(p.Warnings) - 1
	}
	return p, nil
}

// reducible is the smallest form ladder steps up to last may give
// candidate i, and the step that gives it; formFull, 0 when none may.
func (b *builder) reducible(i, last int) (form, int) {
	c := b.cands[i]
	if !b.fixed(i) || c.pinned || c.rank == 1 {
		return formFull, 0
	}
	short := b.shorter(c)
	switch {
	case last >= 3 && c.hops >= 2:
		return formOut, 3
	case last >= 4 && c.history && b.cost[i][short] < b.cost[i][formFull]:
		return short, 4
	case last >= 2 && !c.history && c.rec.Summary != "" && c.tc.Body >= b.cfg.LongProse && b.cost[i][formSummary] < b.cost[i][formFull]:
		return formSummary, 2
	}
	return formFull, 0
}

// reduce applies one ladder step to the fixed candidates that qualify,
// least important first, while the fixed total is over target; then puts
// back, most important first, every reduction (of any step) that still
// fits.
func (b *builder) reduce(target, step int, ok func(int, *candidate) bool, to form) {
	var order []int
	for i, c := range b.cands {
		if b.fixed(i) && !c.pinned && b.forms[i] != formOut && b.forms[i] != to && ok(i, c) {
			order = append(order, i)
		}
	}
	b.sortLeastFirst(order)
	for _, i := range order {
		if fits(b.fixedTotal(), target) {
			break
		}
		f := to
		if to == formSummary {
			f = b.shorter(b.cands[i])
		}
		b.forms[i], b.step[i] = f, step
	}
	// Put back.
	var reduced []int
	for i := range b.cands {
		if b.step[i] > 0 {
			reduced = append(reduced, i)
		}
	}
	b.sortLeastFirst(reduced)
	for k := len(reduced) - 1; k >= 0; k-- {
		i := reduced[k]
		was, wasStep := b.forms[i], b.step[i]
		b.forms[i], b.step[i] = formFull, 0
		if fits(b.fixedTotal(), target) {
			continue
		}
		if was == formOut && b.cands[i].rec.Summary != "" && b.cost[i][formSummary] < b.cost[i][formFull] {
			b.forms[i] = formSummary
			if fits(b.fixedTotal(), target) {
				b.step[i] = 2 // back, as a summary: a step-2 replacement
				continue
			}
		}
		b.forms[i], b.step[i] = was, wasStep
	}
}

// shorter is the form that stands for c when it is shortened: its
// summary, or its title and a citation when it has none. A ladder step
// uses it only where it costs less than the full form (a short record
// with a long summary is cheaper whole).
func (b *builder) shorter(c *candidate) form {
	if c.rec.Summary == "" {
		return formTitle
	}
	return formSummary
}

// sortLeastFirst sorts candidate indexes least important first: higher
// rank, lower score, larger saving, then id.
func (b *builder) sortLeastFirst(idx []int) {
	slices.SortFunc(idx, func(x, y int) int {
		a, c := b.cands[x], b.cands[y]
		if r := cmp.Compare(c.rank, a.rank); r != 0 {
			return r
		}
		if r := cmp.Compare(a.score, c.score); r != 0 {
			return r
		}
		if r := cmp.Compare(b.cost[y][formFull], b.cost[x][formFull]); r != 0 {
			return r
		}
		return strings.Compare(a.rec.ID, c.rec.ID)
	})
}
