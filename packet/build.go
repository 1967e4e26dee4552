package packet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
)

// Packet is a built Context Packet: what is in it, what was left out and
// why. It is safe for concurrent reads once Build returns.
type Packet struct {
	// Request is the request as normalized (defaults applied, lists
	// sorted).
	Request Request
	// Budget is the token limit; Tokens is the count of the packet
	// rendered in Request.Format, counted whole, as the packet states it:
	// the real count, or when the stated number itself flips the count, a
	// few tokens over it (never under).
	Budget, Tokens int
	// Records are the included records, most important first.
	Records []Entry
	// Deferred are the deferral notes, in the order the ladder made them.
	Deferred []Note
	// Grouped counts, by kind, the notes the rendered packet does not list
	// one by one (see NoteGroup); empty when it lists them all.
	Grouped []NoteGroup
	// Skipped are candidates that were not loaded at all (condition false,
	// kind filter, story time, dangling link), sorted by id.
	Skipped []Skip
	// Superseded are the candidates left out because they no longer hold
	// at the request's time and a record that holds supersedes them,
	// sorted by id: the packet names them (the first few) with the
	// handle that fetches each.
	Superseded []Superseded
	// FrameOnly is set when the budget is below the packet's frame: the
	// frame is written with a warning and everything is deferred.
	FrameOnly bool
	// Warnings for the reader, in the packet and the report.
	Warnings []string
	// Step is the last ladder step the packet needed in the end: the
	// highest step among its deferral notes (0 when everything fitted).
	Step int
	// Hash is "sha256:<hex>" of the rendered packet without its hash line.
	Hash string

	counter  budget.Counter
	rendered string // in Request.Format
	listed   []Note // the notes rendered one by one
	// frameWarn is the index in Warnings of the frame-only warning that
	// quotes the packet's size; -1 (or 0 with FrameOnly unset) for none.
	frameWarn int
	// ladderStep is the step at which the ladder fitted, before the
	// final put-back (Step is what the packet needed in the end).
	ladderStep int
}

// Incomplete reports whether anything was deferred: the CLI exits 2.
func (p *Packet) Incomplete() bool { return p.FrameOnly || len(p.Deferred) > 0 }

// ExitCode maps a Build outcome to the CLI's exit code: 0 complete, 2
// written with deferrals, 3 the budget cannot be met (ErrCannotFit), 1 any
// other error.
func ExitCode(p *Packet, err error) int {
	switch {
	case errors.Is(err, ErrCannotFit):
		return 3
	case err != nil:
		return 1
	case p != nil && p.Incomplete():
		return 2
	}
	return 0
}

// Render returns the packet in format "md" (or ""), "xml" or "json". The
// budget holds for Request.Format; another format is counted again and
// refused with an error wrapping ErrCannotFit when it would exceed the
// budget (build the packet for that format instead).
func (p *Packet) Render(format string) ([]byte, error) {
	if format == "" {
		format = "md"
	}
	if !slices.Contains(validFormats, format) {
		return nil, badvalue.Errorf(format, "%w %q: want md, xml or json", ErrFormat, format)
	}
	if format == p.Request.Format {
		return []byte(p.rendered), nil
	}
	out, n := p.settle(format)
	if !fits(n, p.Budget) && !p.FrameOnly {
		return nil, &SplitError{NS: p.Request.NS, Budget: p.Budget, Need: n,
			Cause: fmt.Errorf("the packet was fitted as %s; as %s it counts %d tokens: build it with format %q", p.Request.Format, format, n, format)}
	}
	return []byte(out), nil
}

// Build makes the Context Packet for req: candidates, ranks, measure, the
// deferral ladder, bodies, render, re-count. srch may be nil when
// req.Query is empty. Errors: ErrInvalidRequest for bad request values,
// ErrFocusNotFound, ErrCannotFit (a *SplitError) when the budget cannot be
// met, or the source's own errors.
func Build(ctx context.Context, src Source, srch Searcher, req Request) (*Packet, error) {
	if src == nil {
		return nil, invalidf("no source: give the store to read from")
	}
	req, cfg, err := req.normalize()
	if err != nil {
		return nil, err
	}
	srch = memoized(srch) // shared with the builds of a split's proposals
	if req.work == nil {
		req.work = &requestWork{} // and so is this
	}
	bg := startHelpers(ctx)
	defer bg.stop()
	b, skips, err := prepare(ctx, bg, src, srch, req, cfg)
	if err != nil {
		return nil, err
	}
	p, err := b.fit()
	if err != nil {
		return nil, err
	}
	p.Skipped = skips
	p.counter = req.Counter // the memo is not safe for concurrent Renders
	return p, nil
}

// prepare runs the pipeline up to the fit (candidates, ranks, measure):
// the builder that fits the packet, and the records the gather skipped.
// req and cfg are normalized.
func prepare(ctx context.Context, bg *helpers, src Source, srch Searcher, req Request, cfg Config) (*builder, []Skip, error) {
	g := &gatherer{ctx: ctx, bg: bg, src: src, srch: srch, req: req, cfg: cfg, prof: cfg.Profiles[req.ranking],
		cands: map[string]*candidate{}, heads: req.work.headsOf(req.NS)}
	if err := g.gather(); err != nil {
		return nil, nil, err
	}
	cands := g.rank()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := g.flagContradictions(cands); err != nil {
		return nil, nil, err
	}
	flagged := g.startTextContradictions(cands)
	slices.SortFunc(g.superseded, func(a, c Superseded) int { return cmp.Compare(a.ID, c.ID) })
	b := &builder{ctx: ctx, bg: bg, srch: srch, req: g.req, asked: req, cfg: cfg, src: src, cands: cands, bodies: map[string]string{},
		memo: newMemoCounter(req.Counter), superseded: g.superseded, flagged: flagged}
	if err := b.measure(); err != nil {
		return nil, nil, err
	}
	skips := g.skips
	slices.SortFunc(skips, func(a, c Skip) int { return cmp.Compare(a.ID, c.ID) })
	b.warns = dedupe(g.warns)
	return b, skips, nil
}

func dedupe(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}
