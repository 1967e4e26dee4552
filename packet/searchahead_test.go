package packet

import (
	"context"
	"testing"
)

// The first search, started as the gather begins, is the one the hits
// use: with no memo to catch a repeat, no query reaches the index twice.
func TestFirstSearchMadeOnce(t *testing.T) {
	searchMemoOn = false
	defer func() { searchMemoOn = true }()
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(8000)
	req.Query, req.Counter = "storm harbour lamp", fxCounter(t)
	srch := &countingSearcher{ix: env.ix}
	if _, err := Build(context.Background(), env.st, srch, req); err != nil {
		t.Fatalf("Build: %v", err)
	}
	srch.wantEachOnce(t)
}
