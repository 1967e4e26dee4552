package packet

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
)

// frameOnly is the packet for a limit below the frame: everything
// deferred, a warning, or ErrCannotFit when pinned records exist.
func (b *builder) frameOnly(limit int) (*Packet, error) {
	for _, c := range b.cands {
		if c.pinned {
			return nil, b.splitError(limit, fmt.Errorf("pinned record %q cannot be deferred and the budget is below the frame", c.rec.ID))
		}
	}
	defs := make(map[string]budget.Deferred, len(b.cands))
	for _, c := range b.cands {
		defs[c.rec.ID] = budget.Deferred{Rule: budget.RuleFrame}
	}
	p, err := b.assemble(nil, defs)
	if err != nil {
		return nil, err
	}
	p.FrameOnly = true
	p.Warnings = append(slices.Clone(p.Warnings), b.frameWarning())
	p.frameWarn = len(p.Warnings) - 1
	return p, nil
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

// command is the `lore packet` line for this request with another focus
// and extra flags, at the request's budget.
func (b *builder) command(focus, extra []string) string {
	return b.commandFor(b.req, focus, extra)
}

// commandFor is the `lore packet` line of r with focus and extra flags
// (a "--scope" among them stands for the budget). It uses only flags the
// command has; story time follows the focus, as it does by default.
func (b *builder) commandFor(r Request, focus, extra []string) string {
	args := []string{"lore", "packet", "--ns", shellQuote(r.NS)}
	if len(focus) > 0 {
		args = append(args, "--focus", shellQuote(strings.Join(focus, ",")))
	}
	set := func(flag string) bool { return slices.Contains(extra, flag) }
	if r.Hops > 1 && !set("--hops") {
		args = append(args, "--hops", fmt.Sprint(r.Hops))
	}
	if r.MentionsDepth > 1 {
		args = append(args, "--mentions-depth", fmt.Sprint(r.MentionsDepth))
	}
	if r.ScanQuery && r.Query != "" {
		args = append(args, "--scan-query")
	}
	if r.Task != "" {
		args = append(args, "--task", shellQuote(r.Task))
	}
	if len(r.When) > 0 {
		args = append(args, "--when", shellQuote(strings.Join(r.When, ",")))
	}
	if r.Profile != "" && r.Profile != b.cfg.DefaultProfile {
		args = append(args, "--profile", shellQuote(r.Profile))
	}
	if len(r.Kinds) > 0 && !set("--kind") {
		args = append(args, "--kind", shellQuote(strings.Join(r.Kinds, ",")))
	}
	if len(r.ExcludeKinds) > 0 && !set("--exclude-kind") {
		args = append(args, "--exclude-kind", shellQuote(strings.Join(r.ExcludeKinds, ",")))
	}
	for k := 0; k+1 < len(extra); k += 2 {
		v := extra[k+1]
		if extra[k] == "--exclude-kind" && len(r.ExcludeKinds) > 0 {
			v = strings.Join(append(slices.Clone(r.ExcludeKinds), v), ",")
		}
		args = append(args, extra[k], shellQuote(v))
	}
	if r.Format != "" && r.Format != "md" {
		args = append(args, "--format", r.Format)
	}
	if r.Encoding != "" && r.Encoding != defaultEncoding {
		args = append(args, "--encoding", shellQuote(r.Encoding))
	}
	if !set("--scope") {
		args = append(args, "--budget", fmt.Sprint(r.Budget))
	}
	if r.Query != "" {
		args = append(args, shellQuote(r.Query))
	}
	return strings.Join(args, " ")
}

// splitError is ladder step 5: what could not be trimmed, and a split.
func (b *builder) splitError(limit int, cause error) error {
	e := &SplitError{NS: b.req.NS, Budget: b.req.Budget, Cause: cause}
	e.Need = b.splitNeed()
	// The budget was not met, so whatever the counts say, the need is
	// above it (the deferral notes can be what tipped it over).
	e.Need = max(e.Need, e.Budget+1)
	byOrigin, movable, protected := b.splitProtected(e)
	if len(e.Protected) == 0 && b.refusedFrame > 0 {
		e.Need = max(e.Budget+1, b.refusedFrame) // nothing protected: the frame is all it needs
		e.Cause = fmt.Errorf("the budget is below this packet's frame of %s tokens (its heading and the notes of what it leaves out)", numfmt.Thousands(b.refusedFrame))
	}
	if !b.req.climb {
		// The engine's own ask: budgets below it fail as this one did,
		// so the working budget starts there rather than climbing to it
		// a token at a time. A nested refusal's need holds its own ask.
		e.Need = max(e.Need, b.fitAsked)
	}
	// The packets a kinds proposal builds are checked on another
	// goroutine while the working budget is found (splitkinds.go).
	kinds := b.checkKindsAhead(e.Need, movable, limit)
	e.Need = b.workingBudget(e.Need)
	e.Frame = max(e.Need-protected, 0)
	// Every proposal ends with the command lines that carry it out, with
	// flags `lore packet` has.
	b.proposeFocus(e, byOrigin)
	b.proposeKinds(e, kinds, movable, limit)
	b.proposeScenes(e)
	if b.req.Hops > 1 {
		e.Proposals = append(e.Proposals, "narrow the walk"+splitCmds(b.command(b.req.Focus, []string{"--hops", "1"})))
	}
	b.proposeLarger(e)
	return e
}

// splitCmds ends a proposal with the command lines that carry it out.
func splitCmds(lines ...string) string { return ":\n      " + strings.Join(lines, "\n      ") }

// splitNeed is the real need: the packet of the protected records alone,
// in their last forms, rendered and counted whole (estimates add up
// under it).
func (b *builder) splitNeed() int {
	need := b.fixedTotal()
	var kept []budget.Fitted
	for i, c := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut {
			kept = append(kept, budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][b.forms[i]]})
		}
	}
	if p, err := b.assemble(kept, nil); err == nil {
		_, n := p.settleAs(b.req.Format, false)
		need = max(need, n)
	}
	return need
}

// splitProtected lists each protected record at what its entry costs in
// its last form (the frame is the rest: heading, and the notes of what
// was deferred), and returns those costs by focus, the records a second
// packet could take (not rank 1, not pinned) and their total.
func (b *builder) splitProtected(e *SplitError) (byOrigin map[string]int, movable []int, protected int) {
	byOrigin = map[string]int{}
	for i, c := range b.cands {
		if !b.fixed(i) || b.forms[i] == formOut {
			continue
		}
		t := b.cost[i][b.forms[i]]
		protected += t
		e.Protected = append(e.Protected, Protected{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Why: c.why, Form: b.forms[i].String(), Tokens: t})
		byOrigin[c.origin] += t
		if c.rank != 1 && !c.pinned {
			movable = append(movable, i)
		}
	}
	return byOrigin, movable, protected
}

// proposeFocus proposes one packet per focus, when there are several.
func (b *builder) proposeFocus(e *SplitError, byOrigin map[string]int) {
	if len(b.req.Focus) <= 1 {
		return
	}
	var parts, lines []string
	for _, f := range b.req.Focus {
		parts = append(parts, fmt.Sprintf("--focus %s (about %s tokens)", f, numfmt.Thousands(e.Frame+byOrigin[f])))
		lines = append(lines, b.command([]string{f}, nil))
	}
	e.Proposals = append(e.Proposals, "one packet per focus: "+strings.Join(parts, "; ")+splitCmds(lines...))
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

// proposeScenes proposes a smaller scope: the scenes the focus holds, one
// packet each.
func (b *builder) proposeScenes(e *SplitError) {
	var scenes, sceneCmds []string
	for i, c := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut && c.rank > 1 && c.rec.Kind == "scene" {
			scenes = append(scenes, fmt.Sprintf("--focus %s (about %s tokens)", c.rec.ID, numfmt.Thousands(b.base+b.cost[i][formFull])))
			sceneCmds = append(sceneCmds, b.command([]string{c.rec.ID}, nil))
		}
	}
	if len(scenes) >= 2 {
		e.Proposals = append(e.Proposals, "a smaller scope, one packet per scene: "+strings.Join(scenes, "; ")+splitCmds(sceneCmds...))
	}
}

// proposeLarger proposes the budget that works, and the smallest scope
// that holds it.
func (b *builder) proposeLarger(e *SplitError) {
	scope, size := "", 0
	for _, name := range sortedKeys(b.cfg.Scopes) {
		if s := b.cfg.Scopes[name]; s >= e.Need && (size == 0 || s < size) {
			scope, size = name, s
		}
	}
	larger := b.req
	larger.Budget = e.Need
	if scope != "" {
		e.Proposals = append(e.Proposals, fmt.Sprintf("a larger budget: at least %s tokens (--scope %s is %s)", numfmt.Thousands(e.Need), scope, numfmt.Thousands(size))+
			splitCmds(b.commandFor(larger, b.req.Focus, nil), b.commandFor(larger, b.req.Focus, []string{"--scope", scope})))
		return
	}
	e.Proposals = append(e.Proposals, fmt.Sprintf("a larger budget: at least %s tokens", numfmt.Thousands(e.Need))+splitCmds(b.commandFor(larger, b.req.Focus, nil)))
}

// frameRefusal is the answer for a budget below the packet's frame (its
// heading and the notes of every record, grouped), or below the frame and
// the protected records: ErrCannotFit. With nothing protected the frame's
// size is the need; otherwise the protected records and the split say it.
func (b *builder) frameRefusal(frame int) error {
	b.refusedFrame = frame
	return b.splitError(b.req.Budget, errors.New("the budget is below this packet's frame and its protected records"))
}

// workingBudget is need raised until the request, built at it, fits: the
// frame grows a little with the budget (its stated numbers, the notes),
// so "a larger budget: at least N" is checked by building at N.
func (b *builder) workingBudget(need int) int {
	if b.req.proposing {
		return need
	}
	r := b.req
	r.proposing, r.AsOf = true, 0 // the proposed command lets story time follow the focus
	r.fitsOnly = true             // whether it fits is all this asks
	cfg := b.cfg
	r.Config = &cfg
	for range 6 {
		if need > budget.MaxBudget {
			return need
		}
		r.Budget = need
		p, err := Build(b.ctx, b.src, b.srch, r)
		var se *SplitError
		switch {
		case err == nil && p.Tokens <= need:
			return need
		case errors.As(err, &se) && se.Need > need:
			need = se.Need
		case err != nil && se == nil:
			return need // not a matter of budget: leave the estimate
		default:
			need += max(1, need/50)
		}
	}
	return need
}
