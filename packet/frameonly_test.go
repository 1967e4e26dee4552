package packet

import (
	"context"
	"fmt"
	"testing"
)

// A try whose limit is below the frame gives a frame-only packet, and
// the steps after the ladder read the builder's state: that state must
// be the frame-only packet's, not the records an earlier try at a higher
// limit kept, or listing notes would put those records back in a packet
// that claims to hold none.
func TestFrameOnlyLeavesNoStaleRecords(t *testing.T) {
	var texts []string
	for i := range 60 {
		texts = append(texts, fmt.Sprintf("Turn %d: the lighthouse keeper logged the tide, the wind and the ships that passed the point that day.", i))
	}
	recs, links := fxTurns("chat", "t%d", texts, "Ana", "Ben")
	env := fxOpen(t, recs, links, true)
	ctx := context.Background()
	conf := DefaultConfig()
	agent := conf.Profiles["agent"]
	agent.NoteShare = 5 // notes listed one by one in the room left
	conf.Profiles["agent"] = agent
	req, cfg, err := Request{NS: "chat", Query: "lighthouse keeper tide", Budget: 600, Profile: "agent", Config: &conf, Counter: fxCounter(t)}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	req.work = &requestWork{}
	bg := startHelpers(ctx)
	defer bg.stop()
	b, _, err := prepare(ctx, bg, env.st, memoized(env.ix), req, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.grouping = true
	if b.noteShare == 0 {
		t.Fatalf("the profile's note share is 0 at budget %d: the test needs notes it may list", req.Budget)
	}
	full, err := b.ladder(req.Budget)
	if err != nil {
		t.Fatal(err)
	}
	if full.p.FrameOnly || len(b.kept) == 0 {
		t.Fatalf("at the budget the ladder kept %d records (frame only %t); the test needs some", len(b.kept), full.p.FrameOnly)
	}
	fo, err := b.ladder(b.frame() - 1)
	if err != nil {
		t.Fatal(err)
	}
	if !fo.p.FrameOnly {
		t.Fatalf("a limit below the frame gave a packet of %d records, not a frame-only one", len(fo.p.Records))
	}
	if len(b.kept) != 0 {
		t.Errorf("after a frame-only try the builder still keeps %d records of the try before", len(b.kept))
	}
	got, err := b.listNotes(fo)
	if err != nil {
		t.Fatal(err)
	}
	if got.p != fo.p || !got.p.FrameOnly || len(got.p.Records) != 0 {
		t.Errorf("listing notes turned the frame-only packet into one of %d records (frame only %t)", len(got.p.Records), got.p.FrameOnly)
	}
}
