package packet

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sweep builds the scene packet at budgets from hi down to lo in steps
// and calls fn with each packet (nil with the error when Build fails).
func sweep(t *testing.T, env fxEnv, req Request, hi, lo, step int, fn func(b int, p *Packet, err error) bool) {
	t.Helper()
	req.Counter = fxCounter(t)
	for b := hi; b >= lo; b -= step {
		req.Budget = b
		p, err := Build(context.Background(), env.st, env.ix, req)
		if !fn(b, p, err) {
			return
		}
	}
}

func TestLadderStep1DropsRanks10To6InOrder(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	full, _ := fxBuild(t, env, fxSceneRequest(100000))
	unprotected := []string{"theme-ash", "reader-ash", "voice", "fire-magic", "mara-tomas"} // ranks 10..6
	seen := map[int]bool{}
	sweep(t, env, fxSceneRequest(0), full.Tokens, 200, 7, func(b int, p *Packet, err error) bool {
		if err != nil || p.Step > 1 || p.FrameOnly {
			return false // past step 1
		}
		// The deferred unprotected records are a prefix of ranks 10..6.
		var dropped []string
		for _, n := range p.Deferred {
			if n.Step != 1 || n.Action != "dropped" {
				t.Errorf("budget %d: note %+v is not a step-1 drop", b, n)
			}
			if n.Rank <= 5 {
				t.Errorf("budget %d: protected record %q (rank %d) deferred at step 1", b, n.ID, n.Rank)
			}
			dropped = append(dropped, n.ID)
		}
		if want := unprotected[:len(dropped)]; !slices.Equal(dropped, want) {
			t.Errorf("budget %d: deferred %v; want %v (least important first)", b, dropped, want)
		}
		for _, e := range p.Records {
			if e.Form != "full" {
				t.Errorf("budget %d: %q in form %s at step 1", b, e.ID, e.Form)
			}
		}
		if p.Tokens > b {
			t.Errorf("budget %d: packet counts %d tokens", b, p.Tokens)
		}
		seen[len(dropped)] = true
		return true
	})
	for k := 0; k <= len(unprotected); k++ {
		if !seen[k] {
			t.Errorf("no budget deferred exactly the %d least important records (seen %v)", k, seen)
		}
	}
}

func TestLadderStep2SummariesNeverRank1(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	full, _ := fxBuild(t, env, fxSceneRequest(100000))
	found := false
	sweep(t, env, fxSceneRequest(0), full.Tokens, 200, 11, func(b int, p *Packet, err error) bool {
		if err != nil || p.FrameOnly {
			return false
		}
		if p.Step < 2 {
			return true
		}
		found = true
		summaries := 0
		for _, e := range p.Records {
			if e.Rank == 1 && e.Form != "full" {
				t.Errorf("budget %d: rank-1 record %q in form %s", b, e.ID, e.Form)
			}
			if e.Form == "summary" {
				summaries++
				if !strings.Contains(e.Fetch, "lore get --ns novel-a "+e.ID) {
					t.Errorf("budget %d: summary of %q has no citation: %q", b, e.ID, e.Fetch)
				}
			}
		}
		for _, id := range []string{"scene-12", "mara", "curfew"} {
			if e, ok := findEntry(p, id); !ok || e.Form != "full" {
				t.Errorf("budget %d: rank-1 record %q not kept whole: %+v", b, id, e)
			}
		}
		if p.Step == 2 {
			if summaries == 0 {
				t.Errorf("budget %d: step 2 without summaries: %s", b, describe(p))
			}
			for _, id := range []string{"theme-ash", "reader-ash", "voice", "fire-magic", "mara-tomas"} {
				if _, ok := findEntry(p, id); ok {
					// Put back may return a small one, but never before a
					// protected record lost its full text for it.
					t.Logf("budget %d: %s put back after summaries", b, id)
				}
			}
			n, ok := findNote(p, "tomas")
			if e, _ := findEntry(p, "tomas"); ok && e.Form == "summary" && (n.Step != 2 || !strings.HasPrefix(n.Reason, "replaced by summary: saves ")) {
				t.Errorf("budget %d: note for tomas %+v", b, n)
			}
		}
		if p.Tokens > b {
			t.Errorf("budget %d: packet counts %d tokens", b, p.Tokens)
		}
		return true
	})
	if !found {
		t.Fatal("no budget reached step 2")
	}
}

func TestLadderStep3NarrowsHops(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(100000)
	req.Hops = 2
	full, _ := fxBuild(t, env, req)
	if e, ok := findEntry(full, "miller"); !ok || e.Rank != 3 {
		t.Fatalf("miller (two hops) should be rank 3 at hops 2: %+v %v", e, entryIDs(full))
	}
	narrowed := false
	sweep(t, env, req, full.Tokens, 200, 9, func(b int, p *Packet, err error) bool {
		if err != nil || p.FrameOnly {
			return false
		}
		if n, ok := findNote(p, "miller"); ok && n.Step == 3 {
			narrowed = true
			if n.Action != "narrowed" {
				t.Errorf("budget %d: miller note %+v", b, n)
			}
			if p.Step < 3 {
				t.Errorf("budget %d: step 3 note but packet step %d", b, p.Step)
			}
		}
		return true
	})
	if !narrowed {
		t.Error("no budget narrowed the two-hop neighbour miller")
	}
}

func TestLadderStep4CollapsesHistory(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	full, _ := fxBuild(t, env, fxSceneRequest(100000))
	collapsed := map[string]string{}
	sweep(t, env, fxSceneRequest(0), full.Tokens, 200, 5, func(b int, p *Packet, err error) bool {
		if err != nil || p.FrameOnly {
			return false
		}
		for _, id := range []string{"tl-10", "tl-13"} {
			if n, ok := findNote(p, id); ok && n.Step == 4 {
				e, _ := findEntry(p, id)
				collapsed[id] = e.Form
			}
		}
		return true
	})
	// tl-10 has a summary; tl-13 has none and collapses to its title.
	if collapsed["tl-10"] != "summary" || collapsed["tl-13"] != "title" {
		t.Errorf("collapsed forms %v; want tl-10 summary, tl-13 title", collapsed)
	}
}

func TestLadderStep5CannotFit(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	var split *SplitError
	sweep(t, env, fxSceneRequest(0), 1500, 1, 3, func(b int, p *Packet, err error) bool {
		if err == nil {
			return !p.FrameOnly
		}
		if !errors.Is(err, ErrCannotFit) || !errors.As(err, &split) {
			t.Fatalf("budget %d: error %v; want a SplitError", b, err)
		}
		if ExitCode(p, err) != 3 {
			t.Errorf("ExitCode = %d; want 3", ExitCode(p, err))
		}
		return false
	})
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
}

func TestFrameOnly(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	p, out := fxBuild(t, env, fxSceneRequest(40))
	if !p.FrameOnly || len(p.Records) != 0 {
		t.Fatalf("budget 40: frame only %v, records %v; want frame only, none", p.FrameOnly, entryIDs(p))
	}
	if ExitCode(p, nil) != 2 {
		t.Errorf("ExitCode = %d; want 2", ExitCode(p, nil))
	}
	if len(p.Deferred) != 15 {
		t.Errorf("deferred %d notes; want all 15 candidates", len(p.Deferred))
	}
	for _, n := range p.Deferred {
		if n.Step != 0 || n.Fetch == "" {
			t.Errorf("frame-only note %+v: want step 0 and a fetch handle", n)
		}
	}
	if !strings.Contains(string(out), "> Warning: the budget of 40 tokens is below this packet's frame") {
		t.Errorf("frame-only packet lacks the warning:\n%s", out)
	}
	if !strings.Contains(p.Report(), "Warning:") {
		t.Errorf("report lacks the warning:\n%s", p.Report())
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
