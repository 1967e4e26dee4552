package lore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// The mention tests run on the demo canon, with one scene added that
// names things without linking them.

const demoNS = "tidewater-lamp"

func putScene(t *testing.T, l *lore.Lore, id string, order int64, body string) {
	t.Helper()
	if _, err := l.Put(context.Background(), store.Record{NS: demoNS, ID: id, Kind: "scene", Title: "A new scene", Order: order, Body: body}); err != nil {
		t.Fatal(err)
	}
}

func buildPacket(t *testing.T, l *lore.Lore, req packet.Request) *packet.Packet {
	t.Helper()
	req.NS = demoNS
	p, err := l.Packet(context.Background(), req)
	if err != nil {
		t.Fatalf("packet %+v: %v", req, err)
	}
	return p
}

func entry(p *packet.Packet, id string) (packet.Entry, bool) {
	for _, e := range p.Records {
		if e.ID == id {
			return e, true
		}
	}
	return packet.Entry{}, false
}

func TestMentionsBringInNamedCanon(t *testing.T) {
	l := demoStore(t)
	putScene(t, l, "scene-new", 4, "Sefa climbed past the Needle at dusk, counting the waves.")
	p := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	for id, why := range map[string]string{
		"sefa":              `mentioned as "Sefa" in scene-new`,
		"canon-needle-reef": `mentioned as "the Needle" in scene-new`,
	} {
		e, ok := entry(p, id)
		if !ok {
			t.Errorf("%s is not in the packet of a scene that names it; records: %v", id, p.Records)
			continue
		}
		if e.Why != why || e.Rank != 2 {
			t.Errorf("%s: rank %d, why %q; want rank 2 (canon the scene touches), why %q", id, e.Rank, e.Why, why)
		}
	}
	if _, ok := entry(p, "needle-cliffs"); ok {
		t.Error(`needle-cliffs is in the packet: "the Needle" is not "the Needle cliffs"`)
	}
	// The same scene, linked: the link comes first and gives the why.
	if _, err := l.Link(context.Background(), store.Link{NS: demoNS, From: "scene-new", Rel: "touches", To: "canon-needle-reef"}); err != nil {
		t.Fatal(err)
	}
	p = buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	if e, _ := entry(p, "canon-needle-reef"); e.Why != "touches scene-new via touches" {
		t.Errorf("linked and mentioned: why %q; want the link's", e.Why)
	}
	var order []string
	for _, e := range p.Records {
		if e.Rank == 2 {
			order = append(order, e.ID)
		}
	}
	if len(order) < 2 || order[0] != "canon-needle-reef" {
		t.Errorf("rank 2 in order %v; want the linked record before the mentioned ones", order)
	}
}

func TestMentionsWholeWordsOnly(t *testing.T) {
	l := demoStore(t)
	putScene(t, l, "scene-new", 4, "Sefarine sounded the Needles; the reefs ran out; oren sat by a harbourside inn.")
	p := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	for _, e := range p.Records {
		if strings.HasPrefix(e.Why, "mentioned as") && strings.HasSuffix(e.Why, "in scene-new") {
			t.Errorf("%s came in %s: a name inside another word (or a lower-case common word) is no mention", e.ID, e.Why)
		}
	}
}

func TestMentionsKeepStoryTime(t *testing.T) {
	l := demoStore(t)
	ctx := context.Background()
	// canon-lamp-bound-mara holds from scene 6; scene-07 is later than 2.
	for id, alias := range map[string]string{"canon-lamp-bound-mara": "the new keeper", "scene-07": "the wreckers' night"} {
		r, err := l.Get(demoNS, id)
		if err != nil {
			t.Fatal(err)
		}
		r.Aliases = []string{alias}
		if _, err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	body := "Mara dreamed of the new keeper and of the wreckers' night, and of The Wreckers' Fire."
	putScene(t, l, "scene-early", 2, body)
	p := buildPacket(t, l, packet.Request{Focus: []string{"scene-early"}, Budget: 8000, Task: "draft"})
	for _, id := range []string{"canon-lamp-bound-mara", "scene-07"} {
		if e, ok := entry(p, id); ok {
			t.Errorf("%s leaked into a scene-2 packet through its alias: %q", id, e.Why)
		}
	}
	if _, ok := entry(p, "mara"); !ok {
		t.Error(`mara is not in the packet; the scene says "Mara"`)
	}
	putScene(t, l, "scene-late", 8, body)
	p = buildPacket(t, l, packet.Request{Focus: []string{"scene-late"}, Budget: 8000, Task: "draft"})
	if e, ok := entry(p, "canon-lamp-bound-mara"); !ok || e.Why != `mentioned as "the new keeper" in scene-late` {
		t.Errorf("at scene 8 canon-lamp-bound-mara = %+v, %v; want it mentioned", e, ok)
	}
	if e, ok := entry(p, "scene-07"); !ok || e.Why != `mentioned as "the wreckers' night" in scene-late` {
		t.Errorf("at scene 8 scene-07 = %+v, %v; want it mentioned by its alias (never by its title: scenes do not name things)", e, ok)
	}
}

func TestMentionsSharedAliasFlagged(t *testing.T) {
	l := demoStore(t)
	ctx := context.Background()
	if _, err := l.Put(ctx, store.Record{NS: demoNS, ID: "needle-rock", Kind: "canon", Title: "The Needle rock",
		Aliases: []string{"the reef"}, Body: "A stack off the point."}); err != nil {
		t.Fatal(err)
	}
	putScene(t, l, "scene-new", 4, "The boat struck the reef.")
	p := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	for id, other := range map[string]string{"canon-needle-reef": "needle-rock", "needle-rock": "canon-needle-reef"} {
		e, ok := entry(p, id)
		if !ok || !strings.Contains(e.Why, "ambiguous: also "+other) {
			t.Errorf("%s = %+v, %v; want it a candidate marked ambiguous (also %s)", id, e, ok, other)
		}
	}
	warned := false
	for _, w := range p.Warnings {
		warned = warned || strings.Contains(w, `ambiguous mention: "the reef" in scene-new names canon-needle-reef and needle-rock`)
	}
	if !warned {
		t.Errorf("warnings %q; want the ambiguity said", p.Warnings)
	}
	probs, err := l.Check()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, pr := range probs {
		found = found || pr.Warning() && strings.Contains(pr.What, `alias "the reef" is shared by "canon-needle-reef" and "needle-rock"`)
	}
	if !found {
		t.Errorf("lore check: %+v; want a warning naming both records", probs)
	}
}

func TestMentionsDepthTwoWithinBudget(t *testing.T) {
	l := demoStore(t)
	// The first scene: no scene before it lends its names (at depth 1,
	// and free of the depth-2 share).
	putScene(t, l, "scene-new", 1, "Sefa waited.")
	req := packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"}
	p := buildPacket(t, l, req)
	if _, ok := entry(p, "harbour"); ok {
		t.Fatal("harbour is in the depth-1 packet; the test needs it reached only through sefa")
	}
	req.MentionsDepth = 2
	p = buildPacket(t, l, req)
	e, ok := entry(p, "harbour")
	if !ok || e.Rank != 6 || e.Why != `mentioned as "Vessel Point" in sefa` {
		t.Fatalf("harbour at depth 2 = %+v, %v; want rank 6, mentioned in sefa", e, ok)
	}
	deep := 0
	for _, e := range p.Records {
		if strings.HasPrefix(e.Why, "mentioned as") && !strings.HasSuffix(e.Why, "in scene-new") {
			deep += e.Tokens
		}
	}
	if share := req.Budget / 10; deep > share || p.Tokens > p.Budget {
		t.Errorf("depth 2 took %d tokens (share %d), packet %d of %d", deep, share, p.Tokens, p.Budget)
	}
	// A budget whose share cannot hold harbour skips it, and says why.
	req.Budget = 1500
	p = buildPacket(t, l, req)
	if _, ok := entry(p, "harbour"); ok {
		t.Errorf("harbour is in a %d-token packet: over the depth-2 share of %d", req.Budget, req.Budget/10)
	}
	skipped := false
	for _, s := range p.Skipped {
		skipped = skipped || s.ID == "harbour" && strings.Contains(s.Reason, "recursive mentions may take")
	}
	if !skipped || p.Tokens > p.Budget {
		t.Errorf("skipped %+v; want harbour skipped for the share (packet %d of %d)", p.Skipped, p.Tokens, p.Budget)
	}
}

func TestMentionsScanQuery(t *testing.T) {
	l := demoStore(t)
	req := packet.Request{Query: "where did Tobias hide the lamp oil", Budget: 4000, Task: "plan"}
	p := buildPacket(t, l, req)
	if e, ok := entry(p, "tobias"); ok && strings.HasPrefix(e.Why, "mentioned") {
		t.Errorf("tobias mentioned without --scan-query: %q", e.Why)
	}
	req.ScanQuery = true
	p = buildPacket(t, l, req)
	for id, why := range map[string]string{"tobias": `mentioned as "Tobias" in the query`, "canon-oil-from-wren": `mentioned as "lamp oil" in the query`} {
		if e, ok := entry(p, id); !ok || e.Why != why {
			t.Errorf("%s with --scan-query = %+v, %v; want why %q", id, e, ok, why)
		}
	}
}

// A scene that names many things keeps them all (rank 2 is protected) and
// degrades through the ladder, summaries first, before it refuses.
func TestMentionsDegradeBeforeRefusing(t *testing.T) {
	l := demoStore(t)
	putScene(t, l, "scene-new", 8, "Sefa, Mara, Old Oren, Ines and Tobias stood on the Needle cliffs by the lighthouse above Vessel Point and the reef.")
	named := []string{"sefa", "mara", "oren", "ines", "tobias", "needle-cliffs", "lighthouse", "harbour", "canon-needle-reef"}
	roomy := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	tight := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: roomy.Tokens * 5 / 6, Task: "draft"})
	for _, id := range named {
		if e, ok := entry(tight, id); !ok || e.Rank != 2 {
			t.Errorf("%s at %d tokens: %+v, %v; want it kept at rank 2", id, tight.Budget, e, ok)
		}
	}
	summaries := 0 // of the named, or of the scene before and what it names (rank 3), shortened first
	for _, e := range tight.Records {
		if e.Form == "summary" {
			summaries++
		}
	}
	if tight.Step < 2 || summaries == 0 || tight.Tokens > tight.Budget {
		t.Errorf("at %d tokens: step %d, %d summaries, %d tokens; want the ladder's summaries within the budget", tight.Budget, tight.Step, summaries, tight.Tokens)
	}
	_, err := l.Packet(context.Background(), packet.Request{NS: demoNS, Focus: []string{"scene-new"}, Budget: roomy.Tokens / 3, Task: "draft"})
	if !errors.Is(err, packet.ErrCannotFit) {
		t.Errorf("at a third of the room: %v; want a split (exit 3)", err)
	}
}

// Names never cross the namespace wall: glass-orchard's scene that says
// "Oren", "Sefa" and "the Needle" gets its own Oren and nothing of the
// other novel.
func TestMentionsKeepTheWall(t *testing.T) {
	l := demoStore(t)
	if _, err := l.Put(context.Background(), store.Record{NS: "glass-orchard", ID: "scene-new", Kind: "scene", Order: 3,
		Body: "Oren heard of Sefa and of the Needle from a sailor."}); err != nil {
		t.Fatal(err)
	}
	p, err := l.Packet(context.Background(), packet.Request{NS: "glass-orchard", Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := entry(p, "oren")
	if !ok || e.Why != `mentioned as "Oren" in scene-new` || !strings.Contains(e.Text, "glass") {
		t.Errorf("oren = %+v, %v; want glass-orchard's Oren, mentioned", e, ok)
	}
	for _, id := range []string{"sefa", "canon-needle-reef"} {
		if _, ok := entry(p, id); ok {
			t.Errorf("%s of tidewater-lamp crossed into a glass-orchard packet", id)
		}
	}
}

// A name many records share lists a few of them and counts the rest, in
// each one's why and in the warning: five records by one alias would
// otherwise put four ids in each of five headings.
func TestMentionsWidelySharedNameCounted(t *testing.T) {
	l := demoStore(t)
	ctx := context.Background()
	for i := range 5 {
		if _, err := l.Put(ctx, store.Record{NS: demoNS, ID: fmt.Sprintf("shoal-%d", i), Kind: "canon", Title: fmt.Sprintf("Shoal marker %d", i),
			Aliases: []string{"the grey shoal"}, Body: "A marker on the sands."}); err != nil {
			t.Fatal(err)
		}
	}
	putScene(t, l, "scene-new", 4, "The boat ran onto the grey shoal at dusk.")
	p := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	for i := range 5 {
		id := fmt.Sprintf("shoal-%d", i)
		e, ok := entry(p, id)
		if !ok || !strings.Contains(e.Why, "(ambiguous: also ") || !strings.HasSuffix(e.Why, " and 1 more)") {
			t.Errorf("%s = %+v, %v; want it a candidate, its why naming three of the other four and counting one more", id, e, ok)
		}
	}
	want := `ambiguous mention: "the grey shoal" in scene-new names shoal-0, shoal-1, shoal-2 and 2 more; all are candidates`
	if !slices.Contains(p.Warnings, want) {
		t.Errorf("warnings %q; want %q", p.Warnings, want)
	}
}

// A name written with a capital on every word (sefa's alias "The
// Surveyor") is named by the text in any case: scenes say "the surveyor".
func TestMentionsTitledNamesFold(t *testing.T) {
	l := demoStore(t)
	putScene(t, l, "scene-new", 4, "At dawn the surveyor set up her theodolite.")
	p := buildPacket(t, l, packet.Request{Focus: []string{"scene-new"}, Budget: 8000, Task: "draft"})
	e, ok := entry(p, "sefa")
	if want := `mentioned as "the surveyor" in scene-new`; !ok || e.Rank != 2 || e.Why != want {
		t.Errorf("sefa = %+v, %v; want rank 2, why %q", e, ok, want)
	}
}
