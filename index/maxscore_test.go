package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	bsearch "github.com/blevesearch/bleve/v2/search"

	"github.com/lorekeep/lore/store"
)

// bestBothWays runs bestScored on text with pruning on and off.
func bestBothWays(t *testing.T, ix *Index, q Query, size int) (pruned, full bsearch.DocumentMatchCollection) {
	t.Helper()
	bq, _, err := buildQuery(q, ix.b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := withScoringStats(context.Background(), ix, "n")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { pruneWords = true }()
	for _, on := range []bool{true, false} {
		pruneWords = on
		got, err := ix.bestScored(ctx, bq, size)
		if err != nil {
			t.Fatalf("%+v size %d (pruning %v): %v", q, size, on, err)
		}
		if on {
			pruned = got
		} else {
			full = got
		}
	}
	return pruned, full
}

func hitLines(hits bsearch.DocumentMatchCollection) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %x\n", h.ID, h.Score) // %x: every bit of the score
	}
	return b.String()
}

// TestPrunedBestIsBleves: with pruning, a words query keeps exactly the
// matches bleve's scoring of every match keeps, with the same scores bit
// for bit and in the same order (ties at the cut included: twelve twins),
// for queries of one to ten words, common and rare, repeated, absent
// from the index, and sizes from 1 past the match count; and the pruning
// skips records, or the test would compare a plain scan with itself.
func TestPrunedBestIsBleves(t *testing.T) {
	ix, _ := openTemp(t)
	recs := benchCorpus("n", 0, 3000, 40)
	for i := range 12 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprintf("twin-%02d", 11-i), Kind: "fact", Title: "zebra lantern", Body: "zebra"})
	}
	mustApply(t, ix, recs[:1500], nil, 1)
	mustApply(t, ix, recs[1500:], nil, 2) // two segments at least
	rng := rand.New(rand.NewPCG(3, 4))
	words := func(n int) string {
		var ws []string
		for range n {
			r := recs[rng.IntN(len(recs))]
			f := strings.Fields(r.Title + " " + r.Body)
			ws = append(ws, f[rng.IntN(len(f))])
		}
		return strings.Join(ws, " ")
	}
	texts := []string{"zebra", "zebra lantern", "nothingsuch", "zebra zebra nothingsuch"}
	for n := 1; n <= 10; n++ {
		for range 6 {
			texts = append(texts, words(n))
		}
	}
	filters := []Query{{}, {Kinds: []string{"scene"}}, {Kinds: []string{"fact", "memory"}}, {Tags: []string{"ch-3"}}, {Kinds: []string{"fact"}, Tags: []string{"draft", "ch-7"}}}
	compared, skipped := 0, 0
	for i, text := range texts {
		for _, size := range []int{1, 5, 12, 13, 60, 400, 5000} {
			q := filters[i%len(filters)]
			q.NS, q.Text, q.AnyTerm = "n", text, true
			pruned, full := bestBothWays(t, ix, q, size)
			if got, want := hitLines(pruned), hitLines(full); got != want {
				t.Fatalf("%+v size %d: pruned\n%s\nbleve\n%s", q, size, got, want)
			}
			compared += len(full)
			bq, _, _ := buildQuery(q, ix.b)
			w, ok := wordsOf(bq)
			if !ok {
				t.Fatalf("%+v: not read as a words query", q)
			}
			skipped += scoredLess(t, ix, w, size)
		}
	}
	t.Logf("compared %d hits; pruning skipped %d records", compared, skipped)
	if compared == 0 || skipped == 0 {
		t.Fatalf("compared %d hits, pruning skipped %d records: the test compares too little", compared, skipped)
	}
}

// scoredLess is how many fewer records prunedBest scores for size hits
// than match the query.
func scoredLess(t *testing.T, ix *Index, w wordsQuery, size int) int {
	t.Helper()
	adv, err := ix.bi.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, err := withScoringStats(context.Background(), ix, "n")
	if err != nil {
		t.Fatal(err)
	}
	_, scored, err := prunedBest(ctx, r, w, size)
	if err != nil {
		t.Fatal(err)
	}
	_, matched, err := prunedBest(ctx, r, w, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if scored > matched {
		t.Fatalf("size %d: scored %d records of %d matches", size, scored, matched)
	}
	return matched - scored
}
