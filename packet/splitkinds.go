package packet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/internal/numfmt"
)

// kindsPlan is what a kinds proposal sets apart for a need: the kinds,
// the protected records of them that move, and the two packets'
// requests, which must both fit.
type kindsPlan struct {
	kinds, moved  []string
	first, second Request
}

// planKinds plans setting whole kinds of protected records apart in a
// second packet (the largest first) until the first one fits:
// --exclude-kind leaves them out of the first, and the second takes them
// as its focus. ok is false when no such split can help.
func (b *builder) planKinds(need int, movable []int, limit int) (p kindsPlan, ok bool) {
	movedKinds, moved, rest := b.splitMoveKinds(need, movable, limit)
	if len(moved) == 0 || !fits(rest, limit-limit/20) || len(b.req.Focus) == 0 || b.req.proposing {
		return p, false
	}
	if !fits(b.focusFloor(moved), b.req.Budget) {
		return p, false // the second packet cannot fit: no need to build either
	}
	slices.Sort(moved)
	p.kinds, p.moved = movedKinds, moved
	p.first, p.second = b.proposalBase(), b.proposalBase()
	p.first.ExcludeKinds = sortedSet(append(slices.Clone(p.first.ExcludeKinds), movedKinds...))
	p.second.Focus, p.second.Kinds = moved, sortedSet(movedKinds)
	return p, true
}

func (p kindsPlan) same(q kindsPlan) bool {
	return slices.Equal(p.kinds, q.kinds) && slices.Equal(p.moved, q.moved)
}

// kindsCheck is a plan's two packets built: their tokens, and whether
// both fit.
type kindsCheck struct {
	n1, n2 int
	ok     bool
}

// checkKinds builds the plan's packets with the request work w. Offered
// only when both packets, built, fit: the records set apart bring their
// own neighbours, which no estimate here sees. The second is built
// first: holding every record set apart as its focus, it is the one that
// fails most.
func (b *builder) checkKinds(ctx context.Context, p kindsPlan, w *requestWork) kindsCheck {
	p.first.work, p.second.work = w, w // writes gives each build heads of its own
	n2, ok := b.sizeOf(ctx, p.second)
	if !ok {
		return kindsCheck{}
	}
	n1, ok := b.sizeOf(ctx, p.first)
	return kindsCheck{n1: n1, n2: n2, ok: ok}
}

// kindsAhead is a kinds plan checked on another goroutine while the
// least budget is searched, for the floor's count at the refused budget
// (which the search mostly moves by a few tokens, and the plan seldom
// with it).
type kindsAhead struct {
	plan   kindsPlan
	cancel context.CancelFunc
	done   chan kindsCheck
}

// kindsAheadOn is false only in tests that compare refusals without the
// check ahead; kindsAheadSkew, set only by tests, plans the check ahead
// for a need that far off, so that its plan is not the one used.
var (
	kindsAheadOn   = true
	kindsAheadSkew = 0
)

// checkKindsAhead starts checking the kinds plan for need, when there is
// one and the source may be read from two goroutines; nil otherwise. Its
// builds use a fork of the request work, since the search's builds use
// the request's own at the same time.
func (b *builder) checkKindsAhead(need int, movable []int, limit int) *kindsAhead {
	if _, memo := b.srch.(*searchMemo); !kindsAheadOn || !readsConcurrently(b.src) || (b.srch != nil && !memo) {
		return nil // the memo is what calls the Searcher one search at a time
	}
	p, ok := b.planKinds(need+kindsAheadSkew, movable, limit)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(b.ctx)
	a := &kindsAhead{plan: p, cancel: cancel, done: make(chan kindsCheck, 1)}
	w := b.req.work.fork()
	go func() { a.done <- b.checkKinds(ctx, p, w) }()
	return a
}

// finish ends the check made ahead and returns it when it checked plan
// p (ok false: no plan), else cancels it; either way it is waited for, so
// no build outlives the refusal. A nil check serves nothing.
func (a *kindsAhead) finish(p kindsPlan, ok bool) (kindsCheck, bool) {
	if a == nil {
		return kindsCheck{}, false
	}
	if !ok || !a.plan.same(p) {
		a.cancel()
		<-a.done
		return kindsCheck{}, false
	}
	c := <-a.done
	a.cancel()
	return c, true
}

// proposeKinds proposes two packets, some kinds of protected records set
// apart, when both fit (planKinds, checkKinds), taking the check made
// ahead where it planned the same.
func (b *builder) proposeKinds(e *SplitError, ahead *kindsAhead, movable []int, limit int) {
	p, ok := b.planKinds(e.Need, movable, limit)
	c, served := ahead.finish(p, ok)
	if !ok {
		return
	}
	if !served {
		c = b.checkKinds(b.ctx, p, b.req.work)
	}
	if !c.ok {
		return
	}
	e.Proposals = append(e.Proposals, fmt.Sprintf("two packets, the %s records apart (%s tokens, then %s)", strings.Join(p.kinds, ", "),
		numfmt.Thousands(c.n1), numfmt.Thousands(c.n2))+splitCmds(b.commandFor(p.first), b.commandFor(p.second)))
}

// focusFloor is the least a packet holds whose focus is the records ids:
// their bodies, whole (a focus is never summarised, truncated or
// dropped), less a token either side of each for the way text counts
// across a boundary.
func (b *builder) focusFloor(ids []string) int {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	floor := 0
	for _, c := range b.cands {
		if set[c.rec.ID] {
			floor += bodyFloor(c.tc)
		}
	}
	return floor
}

// splitMoveKinds picks the kinds to set apart, largest first, until the
// estimate of what stays is under the target (the limit less a margin:
// estimates add up a little under the rendered whole). It returns the
// kinds, the movable records of them, and the need that stays.
func (b *builder) splitMoveKinds(need int, movable []int, limit int) (movedKinds, moved []string, rest int) {
	byKind := map[string]int{}
	for _, i := range movable {
		byKind[b.cands[i].rec.Kind] += b.cost[i][b.forms[i]]
	}
	// A kind that holds a rank-1 or pinned record besides the focus stays:
	// excluding it would lose that record.
	for _, c := range b.cands {
		if c.fidx == len(b.req.Focus) && (c.rank == 1 || c.pinned) {
			delete(byKind, c.rec.Kind)
		}
	}
	kinds := sortedKeys(byKind)
	slices.SortStableFunc(kinds, func(x, y string) int { return cmp.Compare(byKind[y], byKind[x]) })
	target := limit - limit/20
	for _, k := range kinds {
		if fits(need, target) {
			break
		}
		movedKinds = append(movedKinds, k)
		for i, c := range b.cands {
			if c.rec.Kind != k || c.fidx < len(b.req.Focus) {
				continue
			}
			if b.fixed(i) && b.forms[i] != formOut {
				need -= b.itemTokens(i)
				if slices.Contains(movable, i) {
					moved = append(moved, c.rec.ID)
				}
			}
			if !b.grouping {
				need -= b.note[i] // not loaded at all: no note either
			}
		}
	}
	return movedKinds, moved, need
}
