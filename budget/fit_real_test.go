package budget

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Fit with the real tokenizer and a real renderer: markdown sections whose
// joins the item counts do not see. Whatever the limit, the rendered whole
// never exceeds it (unless only the frame is left), and Used is its count.
func TestFitRealRecount(t *testing.T) {
	c, err := NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	sentences := []string{
		"Mara crossed the ash field at dusk.",
		"The treaty of Velmoor forbade fire magic inside the walls.",
		"日本語の文も混ざっています。",
		"Obligation: the brother's letter must be answered by chapter 4.",
		"func main() { fmt.Println(\"hello\") }",
	}
	var items []Item
	for i := range 40 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(sentences[rng.IntN(len(sentences))])
			b.WriteByte(' ')
		}
		text := strings.TrimSpace(b.String())
		it := Item{ID: fmt.Sprintf("rec-%02d", i), Kind: "canon", Rank: 1 + rng.IntN(8), Score: rng.Float64(), Text: text, Tokens: c.Count(text)}
		if i%5 == 0 {
			it.Action = Truncate
			it.MinTokens = 4
		}
		items = append(items, it)
	}
	render := func(kept []Fitted) string {
		var b strings.Builder
		b.WriteString("# Context packet\n\n")
		for _, k := range kept {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", k.ID, k.Text)
		}
		return b.String()
	}
	frame := c.Count(render(nil))
	recounts, cuts := 0, 0
	for limit := 0; limit < 1500; limit += 37 {
		r, err := Fit(Request{Items: items, Limit: limit, Counter: c, Frame: frame, Render: render})
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if r.Used != c.Count(r.Rendered) || r.Rendered != render(r.Kept) {
			t.Fatalf("limit %d: used %d is not the count of the rendered kept items", limit, r.Used)
		}
		if r.FrameOnly != (limit < frame) || (!r.FrameOnly && r.Used > limit) {
			t.Fatalf("limit %d: used %d, frame only %v (frame %d)", limit, r.Used, r.FrameOnly, frame)
		}
		for _, k := range r.Kept {
			if k.Truncated {
				checkTruncation(t, c.(Tokenizer), k.Item, k)
				cuts++
			}
		}
		for _, d := range r.Deferred {
			if d.Rule == RuleRecount {
				recounts++
			}
		}
	}
	// The headings are not in the item counts: the re-count must have had
	// work to do, and some items must have been cut.
	if recounts == 0 || cuts == 0 {
		t.Errorf("%d re-count deferrals and %d cuts over all limits, want some of each", recounts, cuts)
	}
}

// Fit is safe to call from many goroutines sharing one counter; run with
// -race. Every call gives the same result.
func TestFitConcurrent(t *testing.T) {
	c, err := NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	var items []Item
	for i := range 200 {
		text := strings.Repeat(fmt.Sprintf("line %d of the record. ", i), 1+i%7)
		items = append(items, Item{ID: fmt.Sprintf("r%03d", i), Rank: 1 + i%9, Tokens: c.Count(text), Text: text, Action: []Action{Drop, Truncate}[i%2]})
	}
	req := Request{Items: items, Limit: 2000, Counter: c}
	want, err := Fit(req)
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan string, 8)
	for range 8 {
		go func() {
			r, err := Fit(req)
			results <- fmt.Sprintf("%#v %v", r, err)
		}()
	}
	for range 8 {
		if got := <-results; got != fmt.Sprintf("%#v %v", want, nil) {
			t.Fatalf("a concurrent Fit differs:\n%s", got)
		}
	}
}
