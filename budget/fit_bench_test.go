package budget

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lorekeep/lore/internal/rusage"
)

// benchItems are n items with ranks 1 to 11, a few scores, sizes up to
// 2,000 tokens and one in a hundred pinned; it returns them and their total.
func benchItems(n int) ([]Item, int) {
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]Item, n)
	total := 0
	for i := range items {
		items[i] = Item{
			ID:     fmt.Sprintf("records/%06d", rng.IntN(1_000_000)*n+i),
			Kind:   "scene",
			Tokens: 1 + rng.IntN(2000),
			Rank:   1 + rng.IntN(11),
			Score:  float64(rng.IntN(100)) / 10,
			Order:  int64(rng.IntN(n)),
			Pinned: rng.IntN(100) == 0,
		}
		total += items[i].Tokens
	}
	return items, total
}

// Fit on 10,000 items: everything fits; half must go; nearly all must go;
// and by order.
func BenchmarkFit10k(b *testing.B) {
	items, total := benchItems(10_000)
	pinned := 0
	for _, it := range items {
		if it.Pinned {
			pinned += it.Tokens
		}
	}
	cases := []struct {
		name    string
		limit   int
		byOrder bool
	}{
		{"fits", total + 200, false},
		{"half", total / 2, false},
		{"tight", pinned + 20_000, false},
		{"half-by-order", total / 2, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			req := Request{Items: items, Limit: c.limit, ByOrder: c.byOrder, Frame: 200}
			b.ReportAllocs()
			start := rusage.CPU()
			for b.Loop() {
				if _, err := Fit(req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// Fit with truncation and the real tokenizer: 1,000 items of about 200
// tokens of prose, one in four truncatable.
func BenchmarkFitTruncate1k(b *testing.B) {
	c, err := NewCounter("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var items []Item
	total := 0
	text := "The archivist kept every letter in a cedar box, sorted by the colour of the wax. "
	for i := range 1000 {
		body := ""
		for range 10 + rng.IntN(5) {
			body += text
		}
		it := Item{ID: fmt.Sprintf("r%04d", i), Tokens: c.Count(body) + 5, Rank: 1 + rng.IntN(11), Text: body}
		if i%4 == 0 {
			it.Action = Truncate
		}
		items = append(items, it)
		total += it.Tokens
	}
	req := Request{Items: items, Limit: total / 3, Counter: c}
	b.ReportAllocs()
	start := rusage.CPU()
	for b.Loop() {
		if _, err := Fit(req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rusage.CPU()-start)/float64(b.N), "cpu-ns/op")
}
