package packet

import (
	"context"
	"runtime"
	"slices"

	"github.com/lorekeep/lore/budget"
)

// arrange's model with every record in, counted on another core while
// the ladder runs.
//
// calibrate counts the packet with every candidate in (bodies stood in)
// once per build: on a large store the biggest render a build makes,
// hundreds of entries. That count depends on the candidates and their
// prices alone, never on what the ladder, its put-backs or the budget
// decide (that is what keeps arrange monotone), so it can start before
// the ladder does, on a copy of the builder, and the ladder's core never
// waits for it. The count is the same number either way: the copy runs
// the very code calibrate would (base4, then allIn), with its own forms,
// memo and stand-ins, and reads nothing the ladder writes.

// modelAhead is the count being made, or made.
type modelAhead struct {
	done chan struct{}
	all  countBounds
	err  error
}

// wait returns the count once it is bounded; its exact count is then the
// caller's to make (the copy is done with its memo).
func (m *modelAhead) wait() (countBounds, error) {
	<-m.done
	return m.all, m.err
}

// startModelAhead starts counting arrange's every-record model when
// arrange may need it and a second core is there to count it; nil
// otherwise (calibrate then counts in place). It must be called before
// the ladder writes anything the copy reads.
func (b *builder) startModelAhead() *modelAhead {
	if runtime.GOMAXPROCS(0) < 2 || b.req.fitsOnly || !b.monotone() || !b.anyShorter() || b.anyTruncates() || b.allFitByPrice() {
		return nil // arrange will not run (a fitsOnly build ends before it), or not need the model
	}
	for _, c := range b.cands {
		b.fetchOf(c) // made here, so that neither goroutine writes a candidate
	}
	m := &modelAhead{done: make(chan struct{})}
	cp := b.modelCopy()
	// A build helper (helpers.go): a build that returns without the
	// model (its packet complete, or refused) cuts the count short and
	// waits for it, so that it counts nothing into the process's cache
	// after Build has returned, beside a later build's work.
	b.bg.Go(func(ctx context.Context) {
		defer close(m.done)
		if m.err = ctx.Err(); m.err != nil {
			return // the build returned before this goroutine ran
		}
		cp.memo.stop = ctx
		r := &rebaser{standing: standing{b: cp, step: arrangeStep, keep: map[string]budget.Fitted{}}}
		m.all, m.err = r.allIn(r.base4())
		if err := ctx.Err(); err != nil && m.err == nil {
			m.err = err // a count cut short is no count
		}
		cp.memo.stop = nil // the exact count, if made, is made on the build's goroutine
	})
	return m
}

// allFitByPrice reports whether every candidate fits whole by the
// prices: then the ladder's packet is complete, arrange does not run,
// and a model counted ahead would be thrown away. (A re-count can still
// leave something out; calibrate then counts in place.)
func (b *builder) allFitByPrice() bool {
	t := b.frame()
	for i := range b.cands {
		t += b.cost[i][formFull]
	}
	return fits(t, b.req.Budget)
}

// modelCopy is a builder for counting models beside b: it shares what
// no render writes (the request, the candidates, their prices) and has
// its own forms, steps, memo, stand-ins and outcome. It reads no bodies
// (a model stands in for every one).
func (b *builder) modelCopy() *builder {
	cp := *b
	cp.forms, cp.step = slices.Clone(b.forms), slices.Clone(b.step)
	cp.bodies, cp.counted, cp.stands = map[string]string{}, nil, nil
	cp.kept, cp.defs = nil, nil
	cp.memo = newMemoCounter(b.req.Counter)
	return &cp
}
