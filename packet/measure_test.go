package packet

import (
	"testing"

	"github.com/lorekeep/lore/store"
)

// A record's summary form is priced as its entry renders: the summary is
// in the entry, so its cached count is not added again (it once was, and
// the ladder took summaries to save less than they do).
func TestSummaryPricedOnce(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req, cfg, err := fxSceneRequest(1900).normalize()
	if err != nil {
		t.Fatal(err)
	}
	bg := startHelpers(t.Context())
	defer bg.stop()
	g := &gatherer{ctx: t.Context(), bg: bg, src: env.st, srch: memoized(env.ix), req: req, cfg: cfg, prof: cfg.Profiles[req.ranking],
		cands: map[string]*candidate{}, heads: map[string]store.Record{}}
	if err := g.gather(); err != nil {
		t.Fatal(err)
	}
	b := &builder{ctx: t.Context(), bg: bg, srch: g.srch, req: g.req, cfg: cfg, src: env.st, cands: g.rank(), bodies: map[string]string{}, memo: newMemoCounter(req.Counter)}
	if err := b.measure(); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, c := range b.cands {
		if c.rec.Summary == "" {
			continue
		}
		checked++
		if got, want := b.cost[i][formSummary], req.Counter.Count(b.fragment(b.entry(c, formSummary, ""))); got != want {
			t.Errorf("%s: summary form priced %d tokens, its entry counts %d", c.rec.ID, got, want)
		}
	}
	if checked == 0 {
		t.Fatal("no candidate with a summary: the fixture no longer tests this")
	}
}
