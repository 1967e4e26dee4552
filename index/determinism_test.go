package index

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestSearchSameAcrossHistories builds the same final set of records three
// ways (one batch; shuffled small batches with updates and deletes on the
// way; Rebuild) and expects the same hits with the same scores.
func TestSearchSameAcrossHistories(t *testing.T) {
	final := benchCorpus("n", 0, 300, 40)

	one, _ := openTemp(t)
	mustApply(t, one, final, nil, 1)

	churn, _ := openTemp(t)
	rng := rand.New(rand.NewPCG(3, 4))
	shuffled := slices.Clone(final)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// First an older version of everything and some records that go away.
	old := benchCorpus("n", 1000, 300, 40)
	for i := range old {
		old[i].ID = final[i].ID
	}
	mustApply(t, churn, old, nil, 1)
	mustApply(t, churn, benchCorpus("n", 5000, 50, 40), nil, 2)
	var gone []Key
	for _, r := range benchCorpus("n", 5000, 50, 40) {
		gone = append(gone, Key{r.NS, r.ID})
	}
	seq := uint64(3)
	for i := 0; i < len(shuffled); i += 37 {
		mustApply(t, churn, shuffled[i:min(i+37, len(shuffled))], nil, seq)
		seq++
	}
	mustApply(t, churn, nil, gone, seq)

	rebuilt, dir := openTemp(t)
	rebuilt.Close()
	if err := Rebuild(dir, source(shuffled), 9); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rebuilt.Close()

	// A question of many words (a packet's query), with its hits' scores
	// summed over many terms and three fields: bleve adds them in an
	// order that follows the segments, so before scores were made stable
	// (stableScore) builds differed in their last bits.
	question := strings.Join(strings.Fields(final[3].Body)[:12], " ") + " " + final[150].Summary + " " + final[200].Title
	words := []string{final[0].Title, final[7].Summary, final[42].Title + " " + final[99].Title, question}
	for _, w := range words {
		q := Query{NS: "n", Text: w, Limit: 100}
		a, b, c := search(t, one, q), search(t, churn, q), search(t, rebuilt, q)
		if len(a) == 0 {
			t.Fatalf("query %q found nothing", w)
		}
		if !slices.Equal(a, b) || !slices.Equal(a, c) {
			t.Errorf("query %q differs by history:\none batch %v\nchurn     %v\nrebuilt   %v", w, a[:min(5, len(a))], b[:min(5, len(b))], c[:min(5, len(c))])
		}
	}
	_ = store.Record{}
}
