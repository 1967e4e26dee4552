package budget

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Prefix: the put-back stops at the first item that does not fit, so a
// smaller, less important item no longer fills the gap, and a larger
// limit never keeps less.
func TestFitPrefixPutBack(t *testing.T) {
	items := []Item{
		{ID: "a", Rank: 1, Tokens: 8},
		{ID: "b", Rank: 2, Tokens: 5},
		{ID: "c", Rank: 3, Tokens: 2},
	}
	cases := []struct {
		limit  int
		prefix bool
		want   []string
	}{
		{10, false, []string{"a", "c"}}, // first-fit: c fills the gap b leaves
		{10, true, []string{"a"}},
		{13, false, []string{"a", "b"}}, // at 13 first-fit loses c: not monotone
		{13, true, []string{"a", "b"}},
		{15, true, []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		res, err := Fit(Request{Items: items, Limit: tc.limit, Prefix: tc.prefix})
		if err != nil {
			t.Fatal(err)
		}
		if got := keptIDs(res); !slices.Equal(got, tc.want) {
			t.Errorf("limit %d prefix %v: kept %v, want %v", tc.limit, tc.prefix, got, tc.want)
		}
	}
}

// With Prefix, the items kept at a limit are kept at every larger limit.
func TestFitPrefixMonotone(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var items []Item
		for i := range 2 + rng.IntN(20) {
			items = append(items, Item{ID: fmt.Sprintf("i%02d", i), Rank: 1 + rng.IntN(6), Score: rng.Float64(), Tokens: 1 + rng.IntN(40)})
		}
		var prev []string
		for limit := 0; limit <= 400; limit += 1 + rng.IntN(9) {
			res, err := Fit(Request{Items: items, Limit: limit, Prefix: true})
			if err != nil {
				t.Fatal(err)
			}
			kept := keptIDs(res)
			for _, id := range prev {
				if !slices.Contains(kept, id) {
					t.Fatalf("seed %d: %s kept below limit %d but not at it (kept %v, before %v)", seed, id, limit, kept, prev)
				}
			}
			prev = kept
		}
	}
}
