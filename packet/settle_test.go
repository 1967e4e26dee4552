package packet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// TestPieceCutAddsUp checks the claim settle's fast count rests on: at
// every position pieceCut accepts, the counts of the two sides add up to
// the count of the whole, in both BPE encodings, on text made of the
// characters that join pieces (spaces, line breaks, '/', punctuation,
// apostrophes, digits, letters of several scripts, invalid UTF-8).
func TestPieceCutAddsUp(t *testing.T) {
	atoms := []string{"\n", "\n", "\n", " ", " ", "  ", "\t", "\r", "\r\n", "/", "-", "#", "<", ">", "\"", "'", "'s", ",", ".",
		"{", "}", "`", "·", "1", "2024", "a", "Tokens", "the", "É", "é", "ß", "日本", "\u00a0", "\u2028", "\xff", "\x7f", ":", "%", "(", "):"}
	r := rand.New(rand.NewPCG(5, 9))
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		c, err := budget.NewCounter(name)
		if err != nil {
			t.Fatal(err)
		}
		if !exactBPE(c) {
			t.Fatalf("exactBPE(%s) = false for the package's own counter", name)
		}
		cuts := 0
		for range 20000 {
			var b strings.Builder
			for range 1 + r.IntN(40) {
				b.WriteString(atoms[r.IntN(len(atoms))])
			}
			s := b.String()
			whole := c.Count(s)
			for i := 0; i <= len(s); i++ {
				if !pieceCut(s, i) {
					continue
				}
				cuts++
				if got := c.Count(s[:i]) + c.Count(s[i:]); got != whole {
					t.Fatalf("%s: cut at %d of %q: %d + %d != %d", name, i, s, c.Count(s[:i]), c.Count(s[i:]), whole)
				}
			}
		}
		if cuts < 1000 {
			t.Fatalf("%s: only %d cuts tried", name, cuts)
		}
	}
}

// estimateNamed is a counter that calls itself o200k_base but is not the
// tokenizer: settle must not trust its counts to add up.
type estimateNamed struct{ budget.Counter }

func (estimateNamed) Name() string { return "o200k_base" }

func TestExactBPERefusesOtherCounters(t *testing.T) {
	est, err := budget.NewCounter(budget.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	if exactBPE(est) || exactBPE(estimateNamed{est}) || exactBPE(estimateNamed{fxCounter(t)}) {
		t.Fatal("exactBPE accepted a counter that is not the budget package's BPE counter")
	}
}

// TestSettleEqualsWholeCount builds the fixture's packets at many budgets,
// in every format and with both encodings and the estimate, and checks
// that settle (counting only around the total line) gives the same bytes
// and total as settling by whole counts, and that the total is the real
// count of the output whenever an exact one exists.
func TestSettleEqualsWholeCount(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	var counters []budget.Counter
	for _, name := range budget.Encodings() {
		c, err := budget.NewCounter(name)
		if err != nil {
			t.Fatal(err)
		}
		counters = append(counters, c)
	}
	counters = append(counters, estimateNamed{counters[0]})
	exact, tried := 0, 0
	for _, c := range counters {
		for _, format := range validFormats {
			for budgetTokens := 40; budgetTokens <= 9000; budgetTokens = budgetTokens*6/5 + 7 {
				req := fxSceneRequest(budgetTokens)
				req.Format, req.Counter = format, c
				if budgetTokens%3 == 0 {
					req.Query = "fire mill"
				}
				p, err := Build(context.Background(), env.st, env.ix, req)
				var split *SplitError
				if errors.As(err, &split) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range validFormats {
					tried++
					name := fmt.Sprintf("%s %s->%s budget %d", c.Name(), format, f, budgetTokens)
					out, n := p.settle(f)
					wout, wn := p.settleWhole(f)
					if out != wout || n != wn {
						t.Fatalf("%s: settle %d != whole %d or the bytes differ", name, n, wn)
					}
					if real := c.Count(out); real == n {
						exact++
					} else if real > n {
						t.Fatalf("%s: stated %d under the real count %d", name, n, real)
					}
				}
			}
		}
	}
	if tried < 300 || exact < tried*9/10 {
		t.Fatalf("tried %d packets, %d with an exact total", tried, exact)
	}
}

// TestMemoCounterEqualsCounter checks the build's memoizing counter against
// the counter it wraps, on adversarial text counted twice (the second time
// from its chunks' cached counts), for both encodings and the estimate.
func TestMemoCounterEqualsCounter(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	atoms := []string{"\n", "\n\n", " ", "  ", "\r", "/", "- ", "## ", "<x>", "\"", "'ll", ",", "9", "42", "word", "É", "日本", "\xc3", "\u2028", ":"}
	for _, name := range budget.Encodings() {
		c, err := budget.NewCounter(name)
		if err != nil {
			t.Fatal(err)
		}
		m := newMemoCounter(c)
		if m.split != (name != budget.Estimate) {
			t.Fatalf("%s: memo splits = %v", name, m.split)
		}
		// budget.Fit cuts Truncate items only with a Tokenizer.
		if _, isTok := m.fitCounter().(budget.Tokenizer); isTok != (name != budget.Estimate) {
			t.Fatalf("%s: the memo given to Fit is a Tokenizer: %v", name, isTok)
		}
		var texts []string
		for range 2000 {
			var b strings.Builder
			for range 1 + r.IntN(60) {
				b.WriteString(atoms[r.IntN(len(atoms))])
			}
			texts = append(texts, b.String())
		}
		for pass := range 2 {
			for _, s := range texts {
				if got, want := m.Count(s), c.Count(s); got != want {
					t.Fatalf("%s pass %d: memo count of %q = %d, want %d", name, pass, s, got, want)
				}
			}
		}
		if m.split && len(m.counts) == 0 {
			t.Fatalf("%s: nothing cached", name)
		}
	}
}

// TestBuiltPacketRendersConcurrently checks that Build hands out a packet
// without the build's memo (a map), so Renders of other formats can run
// at once (run with -race).
func TestBuiltPacketRendersConcurrently(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(8000)
	req.Counter = fxCounter(t)
	p, err := Build(context.Background(), env.st, env.ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.counter.(*memoCounter); ok {
		t.Fatal("the built packet still counts with the build's memo")
	}
	done := make(chan []byte, 4)
	for range 4 {
		go func() {
			out, err := p.Render("xml")
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
	}
	first := <-done
	for range 3 {
		if got := <-done; string(got) != string(first) {
			t.Fatal("concurrent renders differ")
		}
	}
	if len(first) == 0 {
		t.Fatal("empty render")
	}
}

// TestBuildSameOnOneCore builds a packet with enough candidates for
// measure to price them on all cores, and checks it byte for byte against
// the same build on one core (run with -race for the pricing goroutines).
func TestBuildSameOnOneCore(t *testing.T) {
	ns := "wide"
	recs := []store.Record{{NS: ns, ID: "hub", Kind: "scene", Order: 50, Body: fxProse(1, 200), Meta: map[string]string{"pov": "c-0"}}}
	var links []store.Link
	for i := range 2 * minParallelPrices {
		id := fmt.Sprintf("c-%d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "character", Title: "Character " + id, Body: fxProse(uint64(i+10), 60+i%50), Summary: "A character."})
		links = append(links, store.Link{NS: ns, From: id, Rel: "appears_in", To: "hub"})
	}
	env := fxOpen(t, recs, links, true)
	build := func(format string) []byte {
		req := Request{NS: ns, Focus: []string{"hub"}, Budget: 30000, Format: format, Counter: fxCounter(t)}
		p, err := Build(context.Background(), env.st, env.ix, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records)+len(p.Deferred) < 2*minParallelPrices {
			t.Fatalf("only %d candidates", len(p.Records)+len(p.Deferred))
		}
		out, err := p.Render(format)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, format := range validFormats {
		many := build(format)
		old := runtime.GOMAXPROCS(1)
		one := build(format)
		runtime.GOMAXPROCS(old)
		if old > 1 && string(many) != string(one) {
			t.Fatalf("%s: the packet differs on one core", format)
		}
	}
}

// boundCount brackets the count settle gives, in every format and at
// budgets far over, near and under the packet's size (where settle
// states totals that do not hold), and the bracket is about a total
// line's bytes wide, not open.
func TestBoundCountHoldsSettle(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	for _, format := range []string{"md", "xml", "json"} {
		for _, built := range []int{2000, 3000, 8000} {
			req := fxSceneRequest(built)
			req.Format = format
			p, _ := fxBuild(t, env, req)
			for _, budget := range []int{1, p.Tokens - 3, p.Tokens, p.Tokens + 2, modelBudget} {
				q := *p
				q.Budget, q.counter = budget, newMemoCounter(counter)
				b := q.boundCount(format)
				_, n := q.settleAs(format, false)
				if n < b.lo || n > b.hi {
					t.Errorf("%s, built at %d, budget %d: settle counts %d, outside the bounds [%d, %d]", format, built, budget, n, b.lo, b.hi)
				}
				if got := b.exact(); got != n {
					t.Errorf("%s, built at %d, budget %d: exact %d, settle %d", format, built, budget, got, n)
				}
				if budget < n && b.hi-b.lo > 200 {
					t.Errorf("%s, built at %d, budget %d: bounds [%d, %d] are %d wide; want about the total line's bytes", format, built, budget, b.lo, b.hi, b.hi-b.lo)
				}
			}
		}
	}
}
