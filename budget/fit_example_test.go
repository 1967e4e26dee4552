package budget_test

import (
	"fmt"

	"github.com/lorekeep/lore/budget"
)

// Fit a chapter's candidates into 100 tokens: the least important go first,
// the pinned scene stays, and what still fits comes back.
func ExampleFit() {
	items := []budget.Item{
		{ID: "scene-12", Kind: "scene", Tokens: 40, Rank: 1, Pinned: true},
		{ID: "mara", Kind: "character", Tokens: 25, Rank: 2},
		{ID: "old-war", Kind: "theme", Tokens: 30, Rank: 10},
		{ID: "motif-ash", Kind: "theme", Tokens: 10, Rank: 10},
		{ID: "mara-brother", Kind: "relationship", Tokens: 20, Rank: 6},
	}
	r, err := budget.Fit(budget.Request{Items: items, Limit: 100, Frame: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range r.Kept {
		fmt.Printf("kept %-12s %3d\n", k.ID, k.Tokens)
	}
	for _, d := range r.Deferred {
		fmt.Printf("deferred %-8s %3d (rank %d, %s)\n", d.ID, d.Tokens, d.Rank, d.Reason)
	}
	fmt.Printf("used %d of %d\n", r.Used, r.Limit)
	// Output:
	// kept scene-12      40
	// kept mara          25
	// kept motif-ash     10
	// kept mara-brother  20
	// deferred old-war   30 (rank 10, dropped: over budget)
	// used 100 of 100
}

// A budget the pinned content alone cannot meet is refused.
func ExampleOverflowError() {
	items := []budget.Item{{ID: "system-prompt", Kind: "instructions", Tokens: 900, Pinned: true}}
	_, err := budget.Fit(budget.Request{Items: items, Limit: 500})
	fmt.Println(err)
	// Output:
	// pinned content needs 900 tokens but the budget is 500: "system-prompt" (kind instructions); nothing was dropped or truncated
}
