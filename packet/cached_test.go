package packet

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/lorekeep/lore/store"
)

// minimalSource is a real store seen through Source alone: none of the
// store's optional readers (Namer, OrderSeeker, ...) and no TokenSetter.
// With hideCounts its cached token counts are hidden too: what a
// read-only process sees when a store was never counted in the request's
// encoding. Both sides of a comparison use it, so the counts are the only
// difference between them.
type minimalSource struct {
	st         *store.Store
	hideCounts bool
}

func (u minimalSource) Heads(ns string, ids []string) ([]store.Record, error) {
	recs, err := u.st.Heads(ns, ids)
	u.strip(recs)
	return recs, err
}

func (u minimalSource) strip(recs []store.Record) {
	if !u.hideCounts {
		return
	}
	for i := range recs {
		recs[i].Tokens = nil
	}
}

func (u minimalSource) Bodies(ns string, ids []string) (map[string]string, error) {
	return u.st.Bodies(ns, ids)
}

func (u minimalSource) Neighbors(ns, id string, hops int, rels []string) ([]store.Neighbor, error) {
	return u.st.Neighbors(ns, id, hops, rels)
}

func (u minimalSource) List(opts store.ListOptions) ([]store.Record, string, error) {
	recs, next, err := u.st.List(opts)
	u.strip(recs)
	return recs, next, err
}

// TestCachedCountsDoNotChangeThePacket: a packet is the same whether the
// store had its token counts cached or Build counted them itself, at every
// budget and in every format. The counts are the same either way; what
// must not differ is how the trial renders stand in for bodies that were
// read only to be counted.
func TestCachedCountsDoNotChangeThePacket(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counted, bare := minimalSource{st: env.st}, minimalSource{st: env.st, hideCounts: true}
	samePackets(t, env, counted, bare, nil, "depends on cached counts")
}

// samePackets builds the scene request of the test canon at every budget
// from 150 to 4,000 (step 23) in every format from want's source and from
// got's, calling before (if not nil) ahead of each build, and fails where
// the two differ (what names what the difference would mean) or where
// too few packets were compared to tell. Refusals on both sides are not
// compared.
func samePackets(t *testing.T, env fxEnv, want, got Source, before func(), what string) {
	t.Helper()
	counter := fxCounter(t)
	compared := 0
	build := func(src Source, req Request) ([]byte, error) {
		if before != nil {
			before()
		}
		return buildBytes(env, src, req)
	}
	for _, format := range validFormats {
		for b := 150; b <= 4000; b += 23 {
			req := fxSceneRequest(b)
			req.Format, req.Counter = format, counter
			w, errWant := build(want, req)
			g, errGot := build(got, req)
			var split *SplitError
			if errors.As(errWant, &split) && errors.As(errGot, &split) {
				continue // refused both ways
			}
			if errWant != nil || errGot != nil {
				t.Fatalf("%s at %d: %v, against %v", format, b, errWant, errGot)
			}
			if !bytes.Equal(w, g) {
				t.Errorf("%s at %d: the packet %s:\n%s\n----\n%s", format, b, what, w, g)
			}
			compared++
		}
	}
	if compared < 100 {
		t.Fatalf("only %d packets compared; the budgets no longer reach the canon", compared)
	}
}

func buildBytes(env fxEnv, src Source, req Request) ([]byte, error) {
	p, err := Build(context.Background(), src, env.ix, req)
	if err != nil {
		return nil, err
	}
	return p.Render(req.Format)
}

// TestProtectedFloorIsAFloor: a check-only build that stops at the
// protected records' floor only ever stops a packet that, built whole,
// would not fit; the floor is checked against the real outcome at every
// budget of several requests on the test canon. It fails when the floor
// ignores the summary form, the narrowed walk or the collapsed timeline
// entry (each tried by hand).
func TestProtectedFloorIsAFloor(t *testing.T) {
	recs, links := fxCanon()
	for i := range recs {
		if recs[i].ID == "tl-13" {
			// A long timeline entry without a summary: step 4 collapses
			// it to its title, which the floor must allow for.
			recs[i].Body = fxProse(12, 700)
		}
	}
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	stopped := 0
	for k, focus := range [][]string{{"scene-12"}, {"scene-12", "tomas"}, {"mara", "tl-13"}, {"scene-11", "scene-12"}, {"scene-12"}, {"tomas"}} {
		for b := 40; b <= 3000; b += 13 {
			req := fxSceneRequest(b)
			req.Focus, req.Counter, req.proposing = focus, counter, true
			if k >= 4 {
				req.Hops = 2 // step 3 may narrow the walk
			}
			whole, errWhole := Build(context.Background(), env.st, env.ix, req)
			req.checkOnly = true
			_, errFast := Build(context.Background(), env.st, env.ix, req)
			if !errors.Is(errFast, errOverFloor) {
				continue
			}
			stopped++
			if errWhole == nil && whole.Tokens <= b {
				t.Errorf("focus %v at %d: the floor stopped a packet that fits (%d tokens)", focus, b, whole.Tokens)
			}
		}
	}
	if stopped == 0 {
		t.Fatal("the floor never stopped a build: the budgets no longer test it")
	}
	t.Logf("the floor stopped %d builds", stopped)
}
