package packet

import (
	"context"
	"testing"
)

// BenchmarkBuild builds the fixture scene packet at a budget that runs
// the ladder to step 2 (drops, summaries, put-back, re-count).
func BenchmarkBuild(b *testing.B) {
	recs, links := fxCanon()
	env := fxOpen(b, recs, links, true)
	for _, tc := range []struct {
		name   string
		budget int
	}{{"fits", 100000}, {"ladder", 2200}} {
		b.Run(tc.name, func(b *testing.B) {
			req := fxSceneRequest(tc.budget)
			req.Counter = fxCounter(b)
			req.Query = "fire mill"
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(context.Background(), env.st, env.ix, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
