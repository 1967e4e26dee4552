package packet

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lorekeep/lore/store"
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

// BenchmarkBuildLarge builds a chapter packet for a hub scene with 100
// linked characters, 400 obligations (10 open), 200 timeline entries and
// 400 style records (pulled for drafting) in a store of about 1,100
// records: a note for every candidate would pass the budget, so the least
// important notes are grouped.
func BenchmarkBuildLarge(b *testing.B) {
	ns := "big"
	recs := []store.Record{{NS: ns, ID: "hub", Kind: "scene", Order: 500, Body: fxProse(1, 400), Meta: map[string]string{"pov": "c-0"}}}
	var links []store.Link
	for i := range 100 {
		id := fmt.Sprintf("c-%d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "character", Title: "Character " + id, Body: fxProse(uint64(i), 150), Summary: "A character."})
		links = append(links, store.Link{NS: ns, From: id, Rel: "appears_in", To: "hub"})
	}
	for i := range 400 {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("o-%d", i), Kind: "obligation", Body: fxProse(uint64(1000+i), 60),
			Meta: map[string]string{"due": fmt.Sprint(400 + i), "status": map[bool]string{true: "open", false: "paid"}[i%40 == 0]}})
	}
	for i := range 200 {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("t-%d", i), Kind: "timeline", Order: int64(i * 5), Body: fxProse(uint64(2000+i), 40)})
	}
	for i := range 400 {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("style-%d", i), Kind: "style", Body: fxProse(uint64(3000+i), 50)})
	}
	env := fxOpen(b, recs, links, true)
	req := Request{NS: ns, Focus: []string{"hub"}, Budget: 20000, Query: "ember lantern", Task: "draft", Counter: fxCounter(b)}
	b.ReportAllocs()
	for b.Loop() {
		p, err := Build(context.Background(), env.st, env.ix, req)
		var split *SplitError
		if errors.As(err, &split) {
			b.Fatalf("cannot fit: %s", split.Report())
		}
		if err != nil {
			b.Fatal(err)
		}
		if p.Tokens > req.Budget && !p.FrameOnly {
			b.Fatalf("over budget: %d", p.Tokens)
		}
		b.Logf("records %d deferred %d frame-only %v tokens %d step %d", len(p.Records), len(p.Deferred), p.FrameOnly, p.Tokens, p.Step)
	}
}
