package packet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
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

// TestLadderMoreBudgetNeverWorse sweeps the demo canon over budgets and
// checks the monotonicity the ladder guarantees (see builder.rebase and
// builder.restore):
//   - a budget above one that fitted fits too (no ErrCannotFit where a
//     smaller budget packed);
//   - among the budgets at which the ladder stops at the same step, a
//     bigger budget is never worse by importance: walking the records
//     most important first, the first one whose form differs is in a
//     better form (whole > cut > summary or title > left out) at the
//     bigger budget;
//   - the final put-back is complete: no deferred or shortened record
//     would still fit in a better form (within a note's worth of tokens,
//     since the real count of the whole decides);
//   - the review's case: --focus scene-06 --hops 2 at 5,200 packs at
//     least the records and tokens it packs at 5,000, with
//     canon-lamp-bound-mara whole and the rank-3 records of 5,000 kept.
//
// What does not hold: tokens of packed content are not monotone (a more
// important record whole may take the place of less important ones that
// held more tokens), and across a step boundary the ladder's step order rules:
// where step 3 suffices, history stays whole (step 4 does not run) and a
// rank-2 record may stay summarised (step 2), while a smaller budget that
// needs step 4 collapses history and has room to put that record back.
func TestLadderMoreBudgetNeverWorse(t *testing.T) {
	env := fxDemo(t)
	level := func(p *Packet, id string) int {
		e, ok := findEntry(p, id)
		switch {
		case !ok:
			return 0
		case e.Form == "full" && e.Truncated == 0:
			return 3
		case e.Form == "full":
			return 2
		}
		return 1
	}
	// Two hops is where the ladder has the most paths; one hop is
	// sampled more coarsely (the race detector slows every build).
	cases := []struct {
		focus      string
		hops, step int
	}{
		{"scene-01", 2, 45}, {"scene-03", 2, 45}, {"scene-06", 2, 45}, {"scene-08", 2, 45},
		{"scene-03", 1, 90}, {"scene-06", 1, 90},
	}
	for _, tc := range cases {
		focus, hops := tc.focus, tc.hops
		{
			// Importance, most important first, as the put-back walks it
			// (no query: every score is 0): rank, then cheaper, then id.
			full := demoFullCosts(t, env, demoRequest(focus, hops, 0))
			ids := slices.Collect(maps.Keys(full))
			bigP, _ := fxBuild(t, env, demoRequest(focus, hops, 100000))
			rank := map[string]int{}
			for _, e := range bigP.Records {
				rank[e.ID] = e.Rank
			}
			slices.SortFunc(ids, func(a, b string) int {
				if c := cmp.Compare(rank[a], rank[b]); c != 0 {
					return c
				}
				if c := cmp.Compare(full[a], full[b]); c != 0 {
					return c
				}
				return strings.Compare(b, a)
			})
			ss := sweep(t, env, demoRequest(focus, hops, 0), 6800, 1100, tc.step)
			var packed []sample // successes, smallest budget first
			for k := len(ss) - 1; k >= 0; k-- {
				if ss[k].err == nil && !ss[k].p.FrameOnly {
					packed = append(packed, ss[k])
				}
			}
			for x := range packed {
				for y := x + 1; y < len(packed); y++ {
					lo, hi := packed[x], packed[y]
					if lo.p.ladderStep != hi.p.ladderStep || holdsMore(hi.p, lo.p) {
						// A bigger packet that holds a record the smaller
						// one lacks spent room on it that a form could have
						// taken: it keeps what a smaller budget fitted
						// (arrange), which comes before any form.
						continue
					}
					for _, id := range ids {
						if a, b := level(lo.p, id), level(hi.p, id); a != b {
							if b < a {
								t.Errorf("%s hops %d, ladder step %d: %s is in a better form at budget %d than at %d", focus, hops, lo.p.ladderStep, id, lo.budget, hi.budget)
							}
							break
						}
					}
				}
			}
			fitted := 0 // smallest budget seen so far (walking up) that packed records
			for k := len(ss) - 1; k >= 0; k-- {
				s := ss[k]
				if s.err != nil {
					if !errors.Is(s.err, ErrCannotFit) {
						t.Fatalf("%s hops %d budget %d: %v", focus, hops, s.budget, s.err)
					}
					if fitted > 0 {
						t.Errorf("%s hops %d: budget %d cannot fit, budget %d packed: %v", focus, hops, s.budget, fitted, s.err)
					}
					continue
				}
				if s.p.FrameOnly {
					continue
				}
				if fitted == 0 {
					fitted = s.budget
				}
				room := s.budget - s.p.Tokens
				// The records left out come back in order, the most
				// important first, while they fit (the novel profile is
				// monotone): only the first of them must not fit.
				// While a protected record is shortened, the unprotected
				// ones stay out (the skill's ladder: ranks 10 to 6 go
				// first): the head is among the protected.
				shortened := slices.ContainsFunc(s.p.Deferred, func(n Note) bool { return n.Saves > 0 })
				head := ""
				for _, id := range ids {
					if shortened && rank[id] >= 6 {
						continue
					}
					if n, ok := findNote(s.p, id); ok && n.Saves == 0 {
						if _, in := findEntry(s.p, id); !in {
							head = id
							break
						}
					}
				}
				for _, n := range s.p.Deferred {
					gain := n.Tokens // dropped or narrowed: the whole record
					if n.Saves > 0 {
						gain = n.Saves // shortened: back to whole
					} else if n.ID != head {
						continue
					}
					const noteWorth = 40
					if n.Action != "truncated" && gain+noteWorth <= room-noteWorth {
						t.Errorf("%s hops %d budget %d: %s (%s, %d tokens) left out with %d tokens of room", focus, hops, s.budget, n.ID, n.Action, gain, room)
					}
				}
			}
		}
	}
	// plan sees the whole story, so the later scenes are candidates too,
	// as this case was written (drafting hides them: story time).
	req := demoRequest("scene-06", 2, 5000)
	req.Task = "plan"
	small, _ := fxBuild(t, env, req)
	req.Budget = 5200
	big, _ := fxBuild(t, env, req)
	if len(big.Records) < len(small.Records) || big.Tokens < small.Tokens {
		t.Errorf("budget 5,200 packs %d records, %d tokens; 5,000 packs %d, %d:\n%s", len(big.Records), big.Tokens, len(small.Records), small.Tokens, big.Report())
	}
	if e, ok := findEntry(big, "canon-lamp-bound-mara"); !ok || e.Form != "full" {
		t.Errorf("budget 5,200: canon-lamp-bound-mara is %+v; want whole\n%s", e, big.Report())
	}
	for _, e := range small.Records {
		if _, ok := findEntry(big, e.ID); !ok && e.Rank == 3 {
			t.Errorf("budget 5,200 drops %s (rank 3), which 5,000 packs\n%s", e.ID, big.Report())
		}
	}
}

// TestFrameOnlyQuotesWrittenSize: a frame-only packet's report quotes the
// size of the packet as written (after the notes are grouped), and the
// packet itself quotes no stale estimate.
func TestFrameOnlyQuotesWrittenSize(t *testing.T) {
	env := fxDemo(t)
	seen := 0
	for _, format := range []string{"md", "xml", "json"} {
		// Below the frame: refused, and the error quotes the frame.
		// (The agent profile: nothing it pulls here is protected.)
		req := Request{NS: demoNS, Query: "lamp memory", Budget: 20, Format: format, Profile: "agent", Counter: fxCounter(t)}
		_, err := Build(context.Background(), env.st, env.ix, req)
		var se *SplitError
		// (The need is the least budget at which the packet is written,
		// which TestRefusalMinimumIsExact checks: the frame at that budget
		// may count a token more or less than at 20, its notes listed or
		// grouped by another share.)
		var frame int
		if !errors.As(err, &se) || len(se.Protected) != 0 {
			t.Errorf("%s budget 20: %v; want a refusal with nothing protected", format, err)
		} else if _, scanErr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "frame of ")+len("frame of "):], "%d", &frame); scanErr != nil || frame <= 20 || se.Need <= 20 {
			t.Errorf("%s budget 20: %v; want the frame quoted and a need over the budget", format, err)
		}
		// The novel profile protects the open obligations it pulls: below
		// them and the frame, refused too.
		req.Profile = ""
		if _, err := Build(context.Background(), env.st, env.ix, req); !errors.As(err, &se) || se.Need <= 20 || len(se.Protected) == 0 {
			t.Errorf("%s budget 20, novel: %v; want a refusal naming the protected obligations", format, err)
		}
		req.Profile = "agent"
		// At the frame: the frame alone, within the budget.
		for b := 40; b < 400; b += 5 {
			req.Budget = b
			p, err := Build(context.Background(), env.st, env.ix, req)
			if err != nil || !p.FrameOnly {
				continue
			}
			out, _ := p.Render(format)
			seen++
			want := "below this packet's frame of " + numfmt.Thousands(p.Tokens) + " tokens"
			if !strings.Contains(p.Report(), want) {
				t.Errorf("%s budget %d: report does not say %q:\n%s", format, b, want, p.Report())
			}
			if n := fxCounter(t).Count(string(out)); n > p.Tokens || p.Tokens > b {
				t.Errorf("%s budget %d: packet counts %d, states %d", format, b, n, p.Tokens)
			}
			if strings.Contains(string(out), "frame of ") {
				t.Errorf("%s budget %d: the packet quotes a frame size of its own: %s", format, b, out)
			}
		}
	}
	if seen < 3 {
		t.Errorf("only %d frame-only packets: the test lost its cases", seen)
	}
}

// TestTruncatedRecordsGetNotes: a record of a kind whose overflow action is
// truncate, kept but cut, gets a note (action truncated, the tokens
// saved, a fetch handle) and a line in the report.
func TestTruncatedRecordsGetNotes(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(0)
	req.Config = &Config{Overflow: map[string]budget.Action{"theme": budget.Truncate}}
	req.Budget = wholeSize(t, env, req) - 100
	p, out := fxBuild(t, env, req)
	e, ok := findEntry(p, "theme-ash")
	if !ok || e.Truncated == 0 {
		t.Fatalf("theme-ash %+v: want it kept and cut\n%s", e, p.Explain())
	}
	n, ok := findNote(p, "theme-ash")
	if !ok {
		t.Fatalf("truncated theme-ash has no note:\n%s", p.Report())
	}
	full := demoFullCosts(t, env, fxSceneRequest(0))["theme-ash"]
	if n.Action != "truncated" || n.Tokens != full || n.Saves != full-e.Tokens || n.Saves <= 0 || n.Fetch != fetchCmd("novel-a", "theme-ash") {
		t.Errorf("note %+v; want action truncated, tokens %d, saves %d, fetch %q", n, full, full-e.Tokens, fetchCmd("novel-a", "theme-ash"))
	}
	if !strings.Contains(p.Report(), "theme-ash  (rank 10, truncated: saves "+numfmt.Thousands(n.Saves)+")") {
		t.Errorf("report does not list the truncated record:\n%s", p.Report())
	}
	if !strings.Contains(string(out), "theme-ash") || !strings.Contains(string(out), "## Deferred") {
		t.Errorf("packet has no deferral note for theme-ash:\n%s", out)
	}
	if p.Tokens > req.Budget {
		t.Errorf("packet counts %d tokens over %d", p.Tokens, req.Budget)
	}
}

// TestSplitProposalsRunnable: on the demo canon, the cases
// (scene-03 and scene-06 at two hops, both at once), every proposal ends
// with command lines that use only flags of lore packet, and every line,
// built as the CLI reads it, is written: a proposal is never refused in
// turn.
func TestSplitProposalsRunnable(t *testing.T) {
	env := fxDemo(t)
	cases := []Request{demoRequest("scene-03", 2, 1580), demoRequest("scene-06", 2, 2500), demoRequest("scene-06", 1, 2000)}
	two := demoRequest("scene-03", 2, 2500)
	two.Focus = []string{"scene-03", "scene-06"}
	cases = append(cases, two)
	two.Task, two.Hops = "draft", 1
	cases = append(cases, two)
	checked := 0
	for _, req := range cases {
		req.Counter = fxCounter(t)
		// The largest budget from the one given down that the protected
		// content cannot fit.
		var se *SplitError
		for ; req.Budget > 100; req.Budget -= 50 {
			_, err := Build(context.Background(), env.st, env.ix, req)
			if errors.As(err, &se) {
				break
			}
		}
		if se == nil {
			t.Fatalf("%v: no budget from the one given down to 100 gives a split", req.Focus)
		}
		for _, prop := range se.Proposals {
			lines := proposalLines(prop)
			if len(lines) == 0 {
				t.Errorf("proposal without a command line: %q", prop)
			}
			for _, l := range lines {
				r := requestOfLine(t, l, req)
				p, err := Build(context.Background(), env.st, env.ix, r)
				checked++
				if err != nil {
					t.Errorf("%v at %d: proposal %q: %q is not written: %v", req.Focus, req.Budget, strings.SplitN(prop, "\n", 2)[0], l, err)
				} else if p.Tokens > r.Budget {
					t.Errorf("%q: %d tokens over %d", l, p.Tokens, r.Budget)
				}
			}
		}
	}
	if checked < 8 {
		t.Errorf("only %d proposed lines checked", checked)
	}
}

// TestObligationScope: open obligations are pulled when due within the
// scope's horizon past the focus, or overdue; not when due far later.
func TestObligationScope(t *testing.T) {
	ns := "n"
	recs := []store.Record{{NS: ns, ID: "scene-10", Kind: "scene", Order: 10, Body: "The tenth scene."}}
	for _, due := range []string{"5", "10", "12", "13", "40", "1000"} {
		recs = append(recs, store.Record{NS: ns, ID: "owed-" + due, Kind: "obligation", Body: "Something owed by " + due + ".",
			Meta: map[string]string{"due": due, "status": "open"}})
	}
	recs = append(recs, store.Record{NS: ns, ID: "paid-5", Kind: "obligation", Body: "Paid.", Meta: map[string]string{"due": "5", "status": "paid"}},
		store.Record{NS: ns, ID: "owed-sometime", Kind: "obligation", Body: "Owed, no date.", Meta: map[string]string{"status": "open"}})
	env := fxOpen(t, recs, nil, true)
	tests := []struct {
		scope string
		cfg   *Config
		want  []string
	}{
		{"scene", nil, []string{"owed-10", "owed-12", "owed-5", "owed-sometime"}},
		{"chapter", nil, []string{"owed-10", "owed-12", "owed-13", "owed-5", "owed-sometime"}},
		{"arc", nil, []string{"owed-10", "owed-12", "owed-13", "owed-40", "owed-5", "owed-sometime"}},
		{"novel", nil, []string{"owed-10", "owed-1000", "owed-12", "owed-13", "owed-40", "owed-5", "owed-sometime"}},
		{"", nil, []string{"owed-10", "owed-1000", "owed-12", "owed-13", "owed-40", "owed-5", "owed-sometime"}},
		{"scene", &Config{ObligationHorizon: map[string]int{"scene": 0}}, []string{"owed-10", "owed-5", "owed-sometime"}},
	}
	for _, tt := range tests {
		req := Request{NS: ns, Focus: []string{"scene-10"}, Budget: 8000, Scope: tt.scope, Config: tt.cfg}
		p, _ := fxBuild(t, env, req)
		var got []string
		for _, e := range p.Records {
			if e.Kind == "obligation" {
				got = append(got, e.ID)
				if e.Rank != 4 {
					t.Errorf("scope %q: %s rank %d; want 4", tt.scope, e.ID, e.Rank)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("scope %q: obligations %v; want %v", tt.scope, got, tt.want)
		}
		if p.Incomplete() {
			t.Errorf("scope %q: incomplete at 8,000 tokens (exit %d):\n%s", tt.scope, ExitCode(p, nil), p.Report())
		}
		if e, ok := findEntry(p, "owed-5"); !ok || e.Why != "overdue since 5" {
			t.Errorf("scope %q: owed-5 %+v; want why %q", tt.scope, e, "overdue since 5")
		}
	}
	if err := (Config{ObligationHorizon: map[string]int{"scene": -2}}).Validate(); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), "-2") {
		t.Errorf("horizon -2: %v; want ErrInvalidConfig quoting -2", err)
	}
}

// TestHiddenRecordsBridgeNothing: a record story time hides is not a
// bridge of the two-hop walk; a record reached through it and through a
// visible record keeps the visible path.
func TestHiddenRecordsBridgeNothing(t *testing.T) {
	ns := "n"
	recs := []store.Record{
		{NS: ns, ID: "scene-10", Kind: "scene", Order: 10, Body: "The tenth scene."},
		{NS: ns, ID: "old-fact", Kind: "fact", Body: "Held until scene 5.", Meta: map[string]string{"until": "5"}},
		{NS: ns, ID: "harbour", Kind: "location", Body: "The harbour."},
		{NS: ns, ID: "only-behind", Kind: "character", Body: "Reached only through the old fact."},
		{NS: ns, ID: "both-ways", Kind: "character", Body: "Reached through both."},
	}
	l := func(from, rel, to string) store.Link { return store.Link{NS: ns, From: from, Rel: rel, To: to} }
	links := []store.Link{
		l("scene-10", "mentions", "old-fact"), l("scene-10", "located_at", "harbour"),
		l("old-fact", "about", "only-behind"), l("old-fact", "about", "both-ways"), l("harbour", "home_of", "both-ways"),
	}
	env := fxOpen(t, recs, links, true)
	p, _ := fxBuild(t, env, Request{NS: ns, Focus: []string{"scene-10"}, Budget: 8000, Hops: 2})
	if _, ok := findEntry(p, "only-behind"); ok {
		t.Errorf("only-behind is loaded through old-fact, which story time hides:\n%s", p.Explain())
	}
	if !slices.ContainsFunc(p.Skipped, func(s Skip) bool {
		return s.ID == "only-behind" && strings.Contains(s.Reason, "old-fact") && strings.Contains(s.Reason, "valid until 5")
	}) {
		t.Errorf("only-behind not skipped with the reason: %+v", p.Skipped)
	}
	if e, ok := findEntry(p, "both-ways"); !ok || e.Why != "2 hops from scene-10 via harbour (home_of)" {
		t.Errorf("both-ways %+v; want it loaded 2 hops via harbour", e)
	}
	// Over the demo canon: no two-hop why names a record that is not loaded.
	env = fxDemo(t)
	for _, focus := range []string{"scene-02", "scene-04", "scene-06", "scene-08"} {
		p, _ := fxBuild(t, env, demoRequest(focus, 2, 50000))
		hidden := map[string]bool{}
		for _, s := range p.Skipped {
			if strings.HasPrefix(s.Reason, "story time") {
				hidden[s.ID] = true
			}
		}
		for _, e := range p.Records {
			for id := range hidden {
				if strings.Contains(e.Why, " via "+id+" ") {
					t.Errorf("%s: %s is in the packet %q, through a record story time hides", focus, e.ID, e.Why)
				}
			}
		}
	}
}

// holdsMore reports whether p holds a record q does not.
func holdsMore(p, q *Packet) bool {
	for _, e := range p.Records {
		if _, ok := findEntry(q, e.ID); !ok {
			return true
		}
	}
	return false
}

// TestFocusFloorRefuses: a packet whose focus is a set of records never
// fits a budget below the floor of their bodies (bodyFloor), so a split
// may skip building a proposal whose focus passes its budget by that
// floor. Every kind of the demo canon, its records as one focus, each
// record alone too, at the floor less one token.
func TestFocusFloorRefuses(t *testing.T) {
	env := fxDemo(t)
	heads, _, err := env.st.List(store.ListOptions{NS: demoNS})
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string][]store.Record{}
	for _, h := range heads {
		byKind[h.Kind] = append(byKind[h.Kind], h)
	}
	tried := 0
	for _, kind := range sortedKeys(byKind) {
		sets := [][]store.Record{byKind[kind]}
		for _, h := range byKind[kind] {
			sets = append(sets, []store.Record{h})
		}
		for _, set := range sets {
			var ids []string
			floor := 0
			for _, h := range set {
				ids = append(ids, h.ID)
				floor += bodyFloor(h.Tokens["o200k_base"])
			}
			if floor < 2 {
				continue
			}
			req := Request{NS: demoNS, Focus: ids, Budget: floor - 1, Counter: fxCounter(t), AsOf: -1}
			p, err := Build(context.Background(), env.st, env.ix, req)
			tried++
			if err == nil && !p.FrameOnly {
				t.Errorf("focus %v (floor %d): a packet of %d tokens fits budget %d", ids, floor, p.Tokens, req.Budget)
			}
		}
	}
	if tried < 10 {
		t.Errorf("only %d focus sets tried", tried)
	}
}
