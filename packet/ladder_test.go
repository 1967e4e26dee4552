package packet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sample is one build of the sweep.
type sample struct {
	budget int
	p      *Packet
	err    error
}

// sweep builds req at budgets from hi down to lo in steps.
func sweep(t *testing.T, env fxEnv, req Request, hi, lo, step int) []sample {
	t.Helper()
	req.Counter = fxCounter(t)
	var out []sample
	for b := hi; b >= lo; b -= step {
		req.Budget = b
		p, err := Build(context.Background(), env.st, env.ix, req)
		out = append(out, sample{b, p, err})
	}
	return out
}

// TestLadder sweeps the scene packet from everything-fits down to
// frame-only, at hops 1 and 2, and checks each ladder step on the way.
func TestLadder(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	full, _ := fxBuild(t, env, fxSceneRequest(100000))
	hops1 := sweep(t, env, fxSceneRequest(0), full.Tokens, 600, 13)
	req2 := fxSceneRequest(100000)
	req2.Hops = 2
	full2, _ := fxBuild(t, env, req2)
	hops2 := sweep(t, env, req2, full2.Tokens, 600, 17)
	for _, s := range append(slices.Clone(hops1), hops2...) {
		if s.err != nil && !errors.Is(s.err, ErrCannotFit) {
			t.Fatalf("budget %d: %v", s.budget, s.err)
		}
		if s.err == nil && !s.p.FrameOnly && s.p.Tokens > s.budget {
			t.Errorf("budget %d: packet counts %d tokens", s.budget, s.p.Tokens)
		}
	}
	t.Run("step1-drops-ranks-10-to-6-in-order", func(t *testing.T) {
		unprotected := []string{"theme-ash", "reader-ash", "voice", "fire-magic", "mara-tomas"} // ranks 10..6
		seen := map[int]bool{}
		for _, s := range hops1 {
			if s.err != nil || s.p.Step > 1 || s.p.FrameOnly {
				break // past step 1
			}
			var dropped []string
			for _, n := range s.p.Deferred {
				if n.Step != 1 || n.Action != "dropped" {
					t.Errorf("budget %d: note %+v is not a step-1 drop", s.budget, n)
				}
				if n.Rank <= 5 {
					t.Errorf("budget %d: protected record %q (rank %d) deferred at step 1", s.budget, n.ID, n.Rank)
				}
				dropped = append(dropped, n.ID)
			}
			if want := unprotected[:len(dropped)]; !slices.Equal(dropped, want) {
				t.Errorf("budget %d: deferred %v; want %v (least important first)", s.budget, dropped, want)
			}
			for _, e := range s.p.Records {
				if e.Form != "full" {
					t.Errorf("budget %d: %q in form %s at step 1", s.budget, e.ID, e.Form)
				}
			}
			seen[len(dropped)] = true
		}
		// Step 1 alone never defers the last three: below the budgets
		// that fit voice beside every protected record whole, smaller
		// budgets had fitted it, fire-magic and mara-tomas beside
		// summaries, and a bigger budget keeps every record a smaller one
		// held (arrange).
		for k := 0; k <= len(unprotected)-3; k++ {
			if !seen[k] {
				t.Errorf("no budget deferred exactly the %d least important records (seen %v)", k, seen)
			}
		}
	})
	t.Run("step2-summaries-never-rank-1", func(t *testing.T) {
		found := false
		for _, s := range hops1 {
			if s.err != nil || s.p.FrameOnly || s.p.Step < 2 {
				continue
			}
			found = true
			summaries := 0
			for _, e := range s.p.Records {
				if e.Rank == 1 && e.Form != "full" {
					t.Errorf("budget %d: rank-1 record %q in form %s", s.budget, e.ID, e.Form)
				}
				if e.Form == "summary" {
					summaries++
					if !strings.Contains(e.Fetch, "lore get --ns novel-a "+e.ID) {
						t.Errorf("budget %d: summary of %q has no citation: %q", s.budget, e.ID, e.Fetch)
					}
				}
			}
			for _, id := range []string{"scene-12", "mara", "curfew"} {
				if e, ok := findEntry(s.p, id); !ok || e.Form != "full" {
					t.Errorf("budget %d: rank-1 record %q not kept whole: %+v", s.budget, id, e)
				}
			}
			if s.p.Step == 2 && summaries == 0 {
				t.Errorf("budget %d: step 2 without summaries: %s", s.budget, describe(s.p))
			}
			if e, _ := findEntry(s.p, "tomas"); e.Form == "summary" {
				n, _ := findNote(s.p, "tomas")
				if n.Step != 2 || !strings.HasPrefix(n.Reason, "replaced by summary: saves ") || n.Saves <= 0 {
					t.Errorf("budget %d: note for tomas %+v", s.budget, n)
				}
			}
		}
		if !found {
			t.Fatal("no budget reached step 2")
		}
	})
	t.Run("step3-narrows-hops", func(t *testing.T) {
		if e, ok := findEntry(hops2[0].p, "miller"); !ok || e.Rank != 3 {
			t.Fatalf("miller (two hops) should be rank 3 at hops 2: %+v %v", e, entryIDs(hops2[0].p))
		}
		// The ladder narrows at the smaller budgets; the put-back then
		// gives miller back in its summary (arrange: a smaller budget had
		// it so), never whole while the walk is narrowed.
		narrowed := false
		for _, s := range hops2 {
			if s.err != nil || s.p.FrameOnly || s.p.ladderStep < 3 {
				continue
			}
			narrowed = true
			if n, ok := findNote(s.p, "miller"); ok && n.Step == 3 && (n.Action != "narrowed" || s.p.Step < 3) {
				t.Errorf("budget %d: miller note %+v at packet step %d", s.budget, n, s.p.Step)
			}
			if e, ok := findEntry(s.p, "miller"); ok && e.Form == "full" && s.p.Step >= 3 {
				t.Errorf("budget %d: miller whole in a packet narrowed at step %d", s.budget, s.p.Step)
			}
		}
		if !narrowed {
			t.Error("no budget needed step 3 (narrowing the two-hop neighbour miller)")
		}
	})
	t.Run("step4-collapses-history", func(t *testing.T) {
		collapsed := map[string]string{}
		for _, s := range hops1 {
			if s.err != nil || s.p.FrameOnly {
				continue
			}
			for _, id := range []string{"tl-10", "tl-13"} {
				if n, ok := findNote(s.p, id); ok && n.Step == 4 {
					e, _ := findEntry(s.p, id)
					collapsed[id] = e.Form
				}
			}
		}
		// tl-10 has a summary; tl-13 has none and collapses to its title.
		if collapsed["tl-10"] != "summary" || collapsed["tl-13"] != "title" {
			t.Errorf("collapsed forms %v; want tl-10 summary, tl-13 title", collapsed)
		}
	})
	t.Run("step5-cannot-fit", func(t *testing.T) {
		var split *SplitError
		for _, s := range hops1 {
			if s.err != nil {
				if !errors.As(s.err, &split) {
					t.Fatalf("budget %d: error %v; want a SplitError", s.budget, s.err)
				}
				if ExitCode(s.p, s.err) != 3 {
					t.Errorf("ExitCode = %d; want 3", ExitCode(s.p, s.err))
				}
				break
			}
		}
		if split == nil {
			t.Fatal("no budget gave ErrCannotFit before frame-only")
		}
		if split.Need <= split.Budget || len(split.Protected) == 0 || len(split.Proposals) == 0 {
			t.Errorf("split error %+v: want need over budget, protected items and proposals", split)
		}
		total := split.Frame
		for _, pr := range split.Protected {
			if pr.Rank > 5 {
				t.Errorf("unprotected %q (rank %d) listed as protected", pr.ID, pr.Rank)
			}
			total += pr.Tokens
		}
		if total != split.Need {
			t.Errorf("need %d; frame plus protected tokens is %d", split.Need, total)
		}
		rep := split.Report()
		for _, want := range []string{"Cannot fit", "scene-12", "Proposed split:", "--scope"} {
			if !strings.Contains(rep, want) {
				t.Errorf("split report lacks %q:\n%s", want, rep)
			}
		}
	})
}

func TestFrameOnly(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	// Below the frame with protected records: refused, nothing written.
	req := fxSceneRequest(40)
	req.Counter = fxCounter(t)
	_, err := Build(context.Background(), env.st, env.ix, req)
	var se *SplitError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "below this packet's frame and its protected records") || se.Need <= 40 || len(se.Protected) == 0 {
		t.Fatalf("budget 40: %v; want ErrCannotFit naming the frame", err)
	}
	// A query with nothing protected (the agent profile protects only
	// pinned and core records): the smallest budget at which the
	// frame fits gives the frame alone, within the budget, exit 2.
	var p *Packet
	var out []byte
	for b := 60; b < 600 && p == nil; b += 5 {
		q := Request{NS: "novel-a", Query: "stone", Budget: b, Profile: "agent", Counter: fxCounter(t)}
		if got, err := Build(context.Background(), env.st, env.ix, q); err == nil && got.FrameOnly {
			p = got
			out, _ = p.Render("md")
		}
	}
	if p == nil {
		t.Fatal("no budget from 60 to 600 gives a frame-only packet for the query")
	}
	if len(p.Records) != 0 || p.Tokens > p.Budget || ExitCode(p, nil) != 2 {
		t.Errorf("budget %d: %d records, %d tokens, exit %d; want none, within budget, exit 2", p.Budget, len(p.Records), p.Tokens, ExitCode(p, nil))
	}
	whole, _ := fxBuild(t, env, Request{NS: "novel-a", Query: "stone", Budget: 100_000, Profile: "agent"})
	if all := len(whole.Records) + len(whole.Deferred); len(p.Deferred) != all {
		t.Errorf("deferred %d notes; want all %d candidates", len(p.Deferred), all)
	}
	for _, n := range p.Deferred {
		if n.Step != 0 || n.Fetch == "" {
			t.Errorf("frame-only note %+v: want step 0 and a fetch handle", n)
		}
	}
	if want := fmt.Sprintf("> Warning: the budget of %d tokens is below this packet's frame", p.Budget); !strings.Contains(string(out), want) {
		t.Errorf("frame-only packet lacks %q:\n%s", want, out)
	}
	if !strings.Contains(p.Report(), "Warning:") {
		t.Errorf("report lacks the warning:\n%s", p.Report())
	}
	// Notes beyond the note share are grouped by kind: a line a kind, the
	// kinds past the fifth sharing one.
	kinds := map[string]bool{}
	for _, n := range p.Deferred {
		kinds[n.Kind] = true
	}
	want := len(kinds)
	if want > maxGroups+1 {
		want = maxGroups + 1
	}
	if len(p.Grouped) != want || len(p.listed) != 0 {
		t.Errorf("grouped notes %+v, %d listed; want %d lines and none listed\n%s", p.Grouped, len(p.listed), want, out)
	}
	for _, g := range p.Grouped {
		if !strings.Contains(string(out), fmt.Sprintf("- %d more %s · ", g.Count, g.what())) {
			t.Errorf("no line for the %s group:\n%s", g.what(), out)
		}
	}
}

// TestNeverOverBudget: the whole rendered packet, counted again with the
// real tokenizer, never exceeds the budget (frame-only packets and
// ErrCannotFit aside), in every format.
func TestNeverOverBudget(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	r := rand.New(rand.NewPCG(4, 4))
	n := 60
	if testing.Short() {
		n = 15
	}
	for i := range n {
		req := fxSceneRequest(1 + r.IntN(4000))
		req.Format = validFormats[i%3]
		req.Hops = 1 + r.IntN(2)
		req.Counter = counter
		p, err := Build(context.Background(), env.st, env.ix, req)
		if errors.Is(err, ErrCannotFit) {
			continue
		}
		if err != nil {
			t.Fatalf("budget %d %s: %v", req.Budget, req.Format, err)
		}
		out, err := p.Render(req.Format)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		got := counter.Count(string(out))
		if got > p.Tokens || p.Tokens > got+3 {
			t.Errorf("budget %d %s: packet says %d tokens, counts %d", req.Budget, req.Format, p.Tokens, got)
		}
		if !p.FrameOnly && got > req.Budget {
			t.Errorf("budget %d %s hops %d: rendered packet counts %d tokens\n%s", req.Budget, req.Format, req.Hops, got, p.Report())
		}
		if h, err := ContentHash(req.Format, out); err != nil || h != p.Hash {
			t.Errorf("budget %d %s: content hash %q (%v); packet says %q", req.Budget, req.Format, h, err, p.Hash)
		}
	}
}
