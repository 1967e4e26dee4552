package packet

import (
	"errors"
	"strings"
	"testing"
)

// demoFullCosts builds req with a budget that holds everything and
// returns each record's cost in full form.
func demoFullCosts(t *testing.T, env fxEnv, req Request) map[string]int {
	t.Helper()
	req.Budget = 100000
	p, _ := fxBuild(t, env, req)
	if p.Incomplete() {
		t.Fatalf("%v at 100,000 tokens: something deferred\n%s", req.Focus, p.Report())
	}
	out := map[string]int{}
	for _, e := range p.Records {
		out[e.ID] = e.Tokens
	}
	return out
}

// TestLadderShorterFormsCostLess: no step replaces a record by a form that
// costs more than the record itself (timeline-02-surveyor costs 95 whole
// and 184 as its summary), neither in a packet nor in a split report, and
// no note claims a saving of zero or less.
func TestLadderShorterFormsCostLess(t *testing.T) {
	env := fxDemo(t)
	for _, hops := range []int{1, 2} {
		for _, focus := range []string{"scene-03", "scene-06"} {
			req := demoRequest(focus, hops, 0)
			full := demoFullCosts(t, env, req)
			if focus == "scene-03" && full["timeline-02-surveyor"] == 0 {
				t.Fatalf("timeline-02-surveyor is not in the scene-03 packet: the case this test is about is gone")
			}
			for _, s := range sweep(t, env, req, 3000, 600, 20) {
				if s.err != nil {
					var se *SplitError
					if !errors.As(s.err, &se) {
						t.Fatalf("%s hops %d budget %d: %v", focus, hops, s.budget, s.err)
					}
					for _, pr := range se.Protected {
						if pr.Form != "full" && pr.Tokens >= full[pr.ID] {
							t.Errorf("%s hops %d budget %d: split lists %s as %s at %d tokens; whole it costs %d", focus, hops, s.budget, pr.ID, pr.Form, pr.Tokens, full[pr.ID])
						}
					}
					continue
				}
				for _, e := range s.p.Records {
					if e.Form != "full" && e.Tokens >= full[e.ID] {
						t.Errorf("%s hops %d budget %d: %s as %s costs %d; whole it costs %d", focus, hops, s.budget, e.ID, e.Form, e.Tokens, full[e.ID])
					}
				}
				for _, n := range s.p.Deferred {
					if strings.Contains(n.Reason, "saves -") || strings.Contains(n.Reason, "saves 0") || n.Saves < 0 {
						t.Errorf("%s hops %d budget %d: note %q (saves %d)", focus, hops, s.budget, n.Reason, n.Saves)
					}
				}
			}
		}
	}
}
