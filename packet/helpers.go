package packet

import (
	"context"
	"sync"
)

// helpers are the goroutines one Build starts beside its own work: the
// first search (searchahead.go), the best hits' bodies counted
// (warmhits.go), the likely-kept bodies read ahead (bodiesahead.go) and
// arrange's model counted ahead (ahead.go). Build stops them before it
// returns, whatever path it returns by: their context is cancelled and
// Build waits for them, so none reads the store after Build has returned
// (a caller may close it then) and none races a later build's work or
// counts into the process's fragment cache beside it.
type helpers struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startHelpers returns the helpers of a build run under ctx.
func startHelpers(ctx context.Context) *helpers {
	h := &helpers{}
	h.ctx, h.cancel = context.WithCancel(ctx)
	return h
}

// Go runs fn on a goroutine of its own with the helpers' context, which
// is done once the build has returned.
func (h *helpers) Go(fn func(ctx context.Context)) {
	h.wg.Go(func() { fn(h.ctx) })
}

// stop cancels the helpers and waits for them to return.
func (h *helpers) stop() {
	h.cancel()
	h.wg.Wait()
}
