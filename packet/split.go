package packet

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
)

// frameOnly is the packet for a limit below the frame: everything
// deferred, with a warning. With protected or pinned records, or records
// of a kind whose overflow action is fail (which may not be deferred
// either), it is the floor packet when that fits (refuse), else a
// refusal.
func (b *builder) frameOnly(limit int) (counted, error) {
	var pinned, protected, fail error
	for i, c := range b.cands {
		switch {
		case c.pinned && pinned == nil:
			pinned = fmt.Errorf("pinned record %q cannot be deferred and the budget is below the frame", c.rec.ID)
		case b.fixed(i):
			protected = errors.New("the budget is below this packet's frame and its protected records")
		case b.cfg.Overflow[c.rec.Kind] == budget.Fail && fail == nil:
			fail = &budget.OverflowError{Cause: budget.CauseFail, IDs: []string{c.rec.ID}, Kinds: []string{c.rec.Kind}, Limit: limit}
		}
	}
	if cause := cmp.Or(pinned, protected, fail); cause != nil {
		return b.refuse(limit, cause)
	}
	defs := make(map[string]budget.Deferred, len(b.cands))
	for _, c := range b.cands {
		defs[c.rec.ID] = budget.Deferred{Rule: budget.RuleFrame}
	}
	// The state is this packet's, not the one an earlier try at a higher
	// limit left: the steps after the ladder read it.
	b.kept, b.defs = nil, defs
	p, err := b.assemble(nil, defs)
	if err != nil {
		return counted{}, err
	}
	p.FrameOnly = true
	p.Warnings = append(slices.Clone(p.Warnings), b.frameWarning())
	p.frameWarn = len(p.Warnings) - 1
	return b.count(p), nil
}

// frameWarning is the warning of a frame-only packet. Inside the packet
// it points at the stated total rather than quoting a number: the warning
// is part of what it would measure, and the content hash in the heading
// tokenizes differently with every change, so a quoted size could not be
// kept equal to the packet's. Report quotes the packet's total.
func (b *builder) frameWarning() string {
	return frameWarningText(b.req.Budget, -1)
}

// frameWarningText is the frame-only warning; size < 0 points at the
// stated total.
func frameWarningText(budgetTokens, size int) string {
	frame := "frame (the total stated above)"
	if size >= 0 {
		frame = fmt.Sprintf("frame of %s tokens", numfmt.Thousands(size))
	}
	return fmt.Sprintf("the budget of %s tokens is below this packet's %s: everything is deferred", numfmt.Thousands(budgetTokens), frame)
}

// splitError is ladder step 5: what could not be trimmed, the least
// budget at which the packet is written, and a split. A build that only
// checks a proposal (proposing) stops at the floor's count: its need is
// where the search of the refusal that made it goes next.
func (b *builder) splitError(limit int, cause error) error {
	e := &SplitError{NS: b.req.NS, Budget: b.req.Budget, Cause: cause}
	var oe *budget.OverflowError
	if errors.As(cause, &oe) && oe.Cause == budget.CauseFail {
		e.Cause = failCause{oe}
	}
	need := max(b.floorCount, e.Budget+1) // the floor's count is over the budget: the least that might work
	movable, protected := b.splitProtected(e)
	if len(e.Protected) == 0 && b.refusedFrame > 0 {
		e.Cause = fmt.Errorf("the budget is below this packet's frame of %s tokens (its heading and the notes of what it leaves out)", numfmt.Thousands(b.refusedFrame))
	}
	if b.req.proposing {
		e.Need, e.Frame = need, max(need-protected, 0)
		return e
	}
	// The packets a kinds proposal builds are checked on another
	// goroutine while the least budget is searched (splitkinds.go).
	kinds := b.checkKindsAhead(need, movable, limit)
	least, found, err := b.minimumBudget(need)
	if err != nil {
		kinds.finish(kindsPlan{}, false)
		return err
	}
	e.Need, e.Frame = need, max(need-protected, 0)
	if found {
		e.Need, e.Frame = least, max(least-protected, 0)
	}
	// Every proposal ends with the command lines that carry it out, with
	// flags `lore packet` has, and is shown only when each of them,
	// built, writes a packet (propose.go).
	b.proposeFocus(e)
	b.proposeKinds(e, kinds, movable, limit)
	b.proposeFailKind(e)
	b.proposeScenes(e)
	b.proposeNarrow(e)
	if found {
		b.proposeLarger(e)
	}
	return e
}

// splitCmds ends a proposal with the command lines that carry it out.
func splitCmds(lines ...string) string { return ":\n      " + strings.Join(lines, "\n      ") }

// splitProtected lists each protected record at what its entry costs in
// its last form (the floor's: the shortest a ladder step may give it),
// and returns the records a second packet could take (not rank 1, not
// pinned) and the total of them all.
func (b *builder) splitProtected(e *SplitError) (movable []int, protected int) {
	for i, c := range b.cands {
		if !b.fixed(i) || b.forms[i] == formOut {
			continue
		}
		t := b.cost[i][b.forms[i]]
		protected += t
		e.Protected = append(e.Protected, Protected{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Why: c.why, Form: b.forms[i].String(), Tokens: t})
		if c.rank != 1 && !c.pinned {
			movable = append(movable, i)
		}
	}
	return movable, protected
}

// bodyFloor is the least a record's body adds to a packet that holds it.
func bodyFloor(tc store.TokenCount) int { return max(tc.Body-2, 0) }

// errOverFloor ends a check-only build (Request.checkOnly) whose
// protected records alone pass its budget: it could only be refused.
var errOverFloor = errors.New("the protected records alone pass the budget")

// protectedFloor is the least the protected records of a markdown packet
// hold, whatever the ladder does: what a record's text adds at the least
// (less a token either side, as bodyFloor), in the shortest form a step
// may give it (ladder.reducible, with either form where a step chooses
// by price). Headings and the frame count nothing, so it is under the
// real need. A record a narrowed walk may drop counts nothing either.
func (b *builder) protectedFloor() int {
	floor := 0
	for i, c := range b.cands {
		if !b.fixed(i) {
			continue
		}
		body := bodyFloor(c.tc)
		switch {
		case c.pinned || c.rank == 1:
			floor += body // never shortened
		case c.hops >= 2:
			// step 3 may leave it out
		case c.rec.Summary != "":
			floor += min(body, max(c.tc.Summary-2, 0)) // steps 2 and 4
		case c.history:
			// step 4 may collapse it to its title
		default:
			floor += body
		}
	}
	return floor
}

// frameRefusal is the answer for a budget below the packet's frame (its
// heading and the notes of every record, grouped), or below the frame and
// the protected records: ErrCannotFit. With nothing protected the frame's
// size is the need; otherwise the protected records and the split say it.
func (b *builder) frameRefusal(frame int) error {
	b.refusedFrame, b.floorCount = frame, frame
	return &refusal{limit: b.req.Budget, cause: errors.New("the budget is below this packet's frame and its protected records")}
}

// maxSearchBuilds bounds the builds one refusal's search for its least
// budget makes; past it the search keeps the least budget it saw
// written.
const maxSearchBuilds = 40

// minimumBudget is the least budget above the request's at which Build,
// given the request as it was given, writes the packet: the "at least N"
// a refusal names. It is searched with the real build (of which only
// whether it is written is asked: Request.fitsOnly), so the number is
// the builder's own, and it rests on what TestRefusalMinimumIsExact
// checks over generated canons, budgets and formats: a budget under one
// that is refused is refused too. Up from guess (the floor's count at
// the refused budget), each refusal's own floor count is where the next
// build goes, at least doubling the step; then down from the first
// budget written, to the count of the packet written there (where the
// least budget most often is, the frame differing only in the digits of
// the budget), the budget just under, then halving. found is false when
// no budget up to budget.MaxBudget is written (or the builds ran out
// before one was).
func (b *builder) minimumBudget(guess int) (least int, found bool, err error) {
	r := b.asked
	r.proposing, r.fitsOnly = true, true
	cfg := b.cfg
	r.Config = &cfg
	builds := 0
	try := func(at int) (written bool, tokens, need int, err error) {
		builds++
		r.Budget, r.work = at, b.asked.work.own()
		p, err := Build(b.ctx, b.src, b.srch, r)
		var se *SplitError
		switch {
		case err == nil:
			return true, p.Tokens, 0, nil
		case errors.As(err, &se):
			return false, 0, se.Need, nil
		}
		return false, 0, 0, err
	}
	lo, hi, hiTokens := b.req.Budget, 0, 0 // refused at lo, written at hi
	for step := 1; hi == 0; step *= 2 {
		at := max(guess, lo+1)
		if at > budget.MaxBudget || builds == maxSearchBuilds {
			return 0, false, nil
		}
		written, tokens, need, err := try(at)
		if err != nil {
			return 0, false, err
		}
		if written {
			hi, hiTokens = at, tokens
			break
		}
		lo, guess = at, max(need, at+step)
	}
	under := false // the budget just under hi tried
	for hi-lo > 1 && builds < maxSearchBuilds {
		at := lo + (hi-lo)/2
		switch {
		case hiTokens > lo && hiTokens < hi:
			at = hiTokens
		case !under:
			at, under = hi-1, true
		}
		written, tokens, _, err := try(at)
		if err != nil {
			return 0, false, err
		}
		if written {
			hi, hiTokens = at, tokens
		} else {
			lo = at
		}
	}
	return hi, true, nil
}
