package packet

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// A refusal's working budget (the need its "larger budget" proposal
// quotes) jumps to the fitting engine's own ask instead of climbing from
// its estimate a token at a time, and the refusal is the same either way:
// the budgets it skips are refused. Built at the need, the packet fits.
func TestWorkingBudgetJumpsWhereItClimbed(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	build := func(req Request) (*SplitError, error) {
		_, err := Build(context.Background(), env.st, env.ix, req)
		var se *SplitError
		if !errors.As(err, &se) {
			return nil, err
		}
		return se, nil
	}
	refused, jumped := 0, 0
	for k, focus := range [][]string{{"scene-12"}, {"scene-12", "tomas"}, {"mara", "tl-13"}, {"scene-11", "scene-12"}, {"scene-12"}} {
		for b := 40; b <= 3000; b += 37 {
			req := fxSceneRequest(b)
			req.Focus, req.Counter = focus, counter
			if k == 4 {
				req.Hops = 2
			}
			got, err := build(req)
			if got == nil {
				continue
			}
			refused++
			req.climb = true
			want, err2 := build(req)
			if want == nil {
				t.Fatalf("focus %v at %d: refused when jumping, not when climbing: %v %v", focus, b, err, err2)
			}
			if got.fitAsked > want.Budget+1 {
				jumped++
			}
			got.fitAsked, want.fitAsked = 0, 0
			if !reflect.DeepEqual(got, want) || got.Error() != want.Error() {
				t.Errorf("focus %v at %d: jumping gives\n%+v\nclimbing gives\n%+v", focus, b, got, want)
			}
			req.climb, req.Budget = false, got.Need
			if p, err := Build(context.Background(), env.st, env.ix, req); err != nil || p.Tokens > got.Need {
				t.Errorf("focus %v at %d: the working budget %d does not fit: %v", focus, b, got.Need, err)
			}
		}
	}
	if refused < 20 || jumped == 0 {
		t.Fatalf("%d refusals, %d with an ask above the budget: the budgets no longer test the jump", refused, jumped)
	}
	t.Logf("%d refusals, %d with an ask above the budget", refused, jumped)
}
