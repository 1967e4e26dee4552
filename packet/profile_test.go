package packet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// fxAgent is an agent memory store whose records were written one second
// apart, in the order given.
func fxAgent(t *testing.T) fxEnv {
	t.Helper()
	ns := "agent-x"
	recs := []store.Record{
		{NS: ns, ID: "persona", Kind: "memory", Title: "Persona", Body: "You are a careful assistant.", Pinned: true},
		{NS: ns, ID: "user-prefs", Kind: "core", Title: "User preferences", Body: "Prefers tea in the morning. " + fxProse(30, 40)},
		{NS: ns, ID: "m1", Kind: "memory", Body: "Talked about the garden and the roses. " + fxProse(31, 60)},
		{NS: ns, ID: "m2", Kind: "memory", Body: "The user drinks coffee every afternoon, strong coffee."},
		{NS: ns, ID: "m3", Kind: "memory", Body: "Bought a new grinder. " + fxProse(32, 50)},
		{NS: ns, ID: "m4", Kind: "memory", Body: "The cat is called Pepper. " + fxProse(33, 70)},
		{NS: ns, ID: "m5", Kind: "memory", Body: "Once spilled coffee on the keyboard."},
		{NS: ns, ID: "m6", Kind: "memory", Body: "Meeting moved to Thursday. " + fxProse(34, 30)},
	}
	links := []store.Link{{NS: ns, From: "m2", Rel: "related", To: "m3"}}
	clock := time.Unix(1700000000, 0).UTC()
	st, err := store.Open(filepath.Join(t.TempDir(), "lore.bolt"), &store.Options{
		Counters: []store.Counter{fxCounter(t)},
		Now:      func() time.Time { clock = clock.Add(time.Second); return clock },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, r := range recs {
		if _, err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range links {
		if _, err := st.Link(l); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	var all []store.Record
	st.ForEach("", func(r store.Record) error { all = append(all, r); return nil })
	seq, _ := st.LastSeq()
	if err := ix.Apply(all, nil, seq); err != nil {
		t.Fatal(err)
	}
	return fxEnv{st: st, ix: ix}
}

func TestAgentProfile(t *testing.T) {
	env := fxAgent(t)
	p, _ := fxBuild(t, env, Request{NS: "agent-x", Query: "coffee", Budget: 8000, Profile: "agent"})
	ranks := map[string]int{}
	for _, e := range p.Records {
		ranks[e.ID] = e.Rank
	}
	// m3 is linked to the hit m2: it ranks with the hits, below m2.
	want := map[string]int{"persona": 1, "user-prefs": 2, "m2": 3, "m5": 3, "m3": 3, "m4": 6, "m6": 6}
	for id, r := range want {
		if ranks[id] != r {
			t.Errorf("%s: rank %d; want %d (all: %v)\n%s", id, ranks[id], r, ranks, p.Explain())
		}
	}
	// Hits by relevance: m2 mentions coffee twice and sorts first.
	if i, j := slices.Index(entryIDs(p), "m2"), slices.Index(entryIDs(p), "m5"); i > j {
		t.Errorf("hits out of relevance order: %v", entryIDs(p))
	}
	if i, j := slices.Index(entryIDs(p), "m2"), slices.Index(entryIDs(p), "m3"); i > j {
		t.Errorf("hit neighbour m3 before the hit m2 that brought it: %v", entryIDs(p))
	}
	// Recent pulls the five records written last (m6, m5, m4, m3, m2);
	// m1 is older, no hit and no neighbour: not a candidate at all.
	if _, ok := findEntry(p, "m1"); ok {
		t.Errorf("m1 loaded although it is neither recent nor related: %v", entryIDs(p))
	}

	// A source without Recent lists the namespace instead: same packet.
	plain := struct{ Source }{env.st}
	q, err := Build(context.Background(), plain, env.ix, Request{NS: "agent-x", Query: "coffee", Budget: 8000, Profile: "agent", Counter: fxCounter(t)})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Render("md")
	b, _ := q.Render("md")
	if !bytes.Equal(a, b) {
		t.Errorf("packet through a plain Source differs from the store's:\n%s\n---\n%s", a, b)
	}

	// Tight budget: pinned and core stay whole, hits go first from rank 6 up.
	tight, _ := fxBuild(t, env, Request{NS: "agent-x", Query: "coffee", Budget: 500, Profile: "agent"})
	for _, id := range []string{"persona", "user-prefs"} {
		if e, ok := findEntry(tight, id); !ok || e.Form != "full" {
			t.Errorf("budget 500: protected %s not whole: %v\n%s", id, entryIDs(tight), tight.Report())
		}
	}
	if tight.Tokens > 500 {
		t.Errorf("budget 500: %d tokens", tight.Tokens)
	}
}

func TestOverflowActions(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)

	req := fxSceneRequest(2900)
	req.Config = &Config{Overflow: map[string]budget.Action{"theme": budget.Fail}}
	req.Counter = fxCounter(t)
	_, err := Build(context.Background(), env.st, env.ix, req)
	var split *SplitError
	if !errors.Is(err, ErrCannotFit) || !errors.Is(err, budget.ErrOverBudget) || !errors.As(err, &split) {
		t.Fatalf("fail action on theme: %v; want ErrCannotFit wrapping budget.ErrOverBudget", err)
	}
	if !strings.Contains(err.Error(), "theme-ash") {
		t.Errorf("error does not name the content that overflowed: %v", err)
	}

	req.Config = &Config{Overflow: map[string]budget.Action{"theme": budget.Truncate}}
	req.Budget = wholeSize(t, env, req) - 100 // over by less than the theme costs: it can be cut
	p, _ := fxBuild(t, env, req)
	e, ok := findEntry(p, "theme-ash")
	if !ok || e.Truncated == 0 || e.Fetch == "" {
		t.Fatalf("truncate action: theme-ash %+v; want it kept, cut, with a fetch handle\n%s", e, p.Explain())
	}
	if p.Tokens > req.Budget {
		t.Errorf("truncated packet counts %d tokens over %d", p.Tokens, req.Budget)
	}
}

// wholeSize is what req's packet counts when nothing is left out.
func wholeSize(t *testing.T, env fxEnv, req Request) int {
	t.Helper()
	req.Budget = 200_000
	p, _ := fxBuild(t, env, req)
	if p.Incomplete() {
		t.Fatalf("packet at 200,000 left something out: %s", describe(p))
	}
	return p.Tokens
}

func TestPinnedRecords(t *testing.T) {
	recs, links := fxCanon()
	for i := range recs {
		if recs[i].ID == "voice" {
			recs[i].Pinned = true // rank 8, pinned: never dropped
		}
	}
	env := fxOpen(t, recs, links, true)
	p, _ := fxBuild(t, env, fxSceneRequest(2600))
	if e, ok := findEntry(p, "voice"); !ok || e.Form != "full" {
		t.Errorf("pinned voice dropped at 2600: %s", describe(p))
	}
	req := fxSceneRequest(40)
	req.Counter = fxCounter(t)
	_, err := Build(context.Background(), env.st, env.ix, req)
	if !errors.Is(err, ErrCannotFit) {
		t.Errorf("budget below the frame with a pinned record: %v; want ErrCannotFit", err)
	}
}

func TestDanglingLinkSkipped(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "lore.bolt"), &store.Options{Counters: []store.Counter{fxCounter(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.PutMany([]store.Record{{NS: "n", ID: "a", Kind: "scene", Body: "A scene."}},
		[]store.Link{{NS: "n", From: "a", Rel: "mentions", To: "ghost"}}); err != nil {
		t.Fatal(err)
	}
	p, err := Build(context.Background(), st, nil, Request{NS: "n", Focus: []string{"a"}, Budget: 1100, Counter: fxCounter(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Skipped) != 1 || p.Skipped[0].ID != "ghost" || !strings.Contains(p.Skipped[0].Reason, "dangling") {
		t.Errorf("skipped %+v; want ghost as a dangling link", p.Skipped)
	}
	if got := entryIDs(p); !slices.Equal(got, []string{"a"}) {
		t.Errorf("records %v; want [a]", got)
	}
}

func TestRelationshipsInPlay(t *testing.T) {
	ns := "n"
	recs := []store.Record{
		{NS: ns, ID: "s1", Kind: "scene", Order: 1, Meta: map[string]string{"pov": "ann"}, Body: "Ann meets Bo at the well."},
		{NS: ns, ID: "ann", Kind: "character", Body: "Ann, a smith."},
		{NS: ns, ID: "bo", Kind: "character", Body: "Bo, a carter."},
		{NS: ns, ID: "cy", Kind: "character", Body: "Cy, elsewhere."},
		{NS: ns, ID: "ann-bo", Kind: "relationship", Body: "Ann owes Bo money."},
		{NS: ns, ID: "bo-cy", Kind: "relationship", Body: "Bo and Cy are cousins."},
		{NS: ns, ID: "ann-cy", Kind: "relationship", Body: "Ann and Cy never met.", Meta: map[string]string{"from": "5"}},
		{NS: ns, ID: "anvil", Kind: "item", Body: "Ann's anvil."},
	}
	l := func(from, rel, to string) store.Link { return store.Link{NS: ns, From: from, Rel: rel, To: to} }
	links := []store.Link{l("bo", "appears_in", "s1"), l("ann-bo", "between", "ann"), l("ann-bo", "between", "bo"),
		l("bo-cy", "between", "bo"), l("bo-cy", "between", "cy"), l("ann-cy", "between", "ann"), l("ann", "owns", "anvil")}
	env := fxOpen(t, recs, links, true)
	p, _ := fxBuild(t, env, Request{NS: ns, Focus: []string{"s1"}, Budget: 4000, AsOf: 1})
	ranks := map[string]int{}
	for _, e := range p.Records {
		ranks[e.ID] = e.Rank
	}
	// anvil is linked from the POV: canon the scene touches (pov-link).
	want := map[string]int{"s1": 1, "ann": 1, "anvil": 2, "bo": 2, "ann-bo": 6, "bo-cy": 6}
	if len(ranks) != len(want) {
		t.Errorf("records %v; want %v\n%s", ranks, want, p.Explain())
	}
	for id, r := range want {
		if ranks[id] != r {
			t.Errorf("%s: rank %d; want %d\n%s", id, ranks[id], r, p.Explain())
		}
	}
	// ann-cy is in play but not yet in story time; cy is linked to a
	// character who is not the POV, and no rule wants characters in play:
	// not even a candidate.
	if i := slices.IndexFunc(p.Skipped, func(s Skip) bool { return s.ID == "ann-cy" }); i < 0 {
		t.Errorf("ann-cy not reported as skipped by story time: %+v", p.Skipped)
	}
	if slices.ContainsFunc(p.Skipped, func(s Skip) bool { return s.ID == "cy" }) {
		t.Errorf("records reached only through characters in play reported: %+v", p.Skipped)
	}
}

// TestNotesGrouped: when a note for every candidate would not fit, the
// packet lists the most important notes within Config.NoteShare of the
// budget and groups the rest by kind, instead of writing only the frame.
func TestNotesGrouped(t *testing.T) {
	ns := "big"
	recs := []store.Record{{NS: ns, ID: "hub", Kind: "scene", Order: 5, Body: fxProse(1, 200), Meta: map[string]string{"pov": "c-0"}}}
	var links []store.Link
	for i := range 10 {
		id := fmt.Sprintf("c-%d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "character", Body: fxProse(uint64(i), 60)})
		links = append(links, store.Link{NS: ns, From: id, Rel: "appears_in", To: "hub"})
	}
	for i := range 150 {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("style-%03d", i), Kind: "style", Body: fxProse(uint64(100+i), 30)})
	}
	env := fxOpen(t, recs, links, true)
	for _, format := range validFormats {
		req := Request{NS: ns, Focus: []string{"hub"}, Budget: 4000, Task: "draft", Format: format}
		p, out := fxBuild(t, env, req)
		if p.FrameOnly || len(p.Records) < 11 {
			t.Fatalf("%s: frame only %v, %d records; want the scene and its characters\n%s", format, p.FrameOnly, len(p.Records), p.Report())
		}
		if len(p.Grouped) != 1 || p.Grouped[0].Kind != "style" || len(p.listed)+p.Grouped[0].Count != len(p.Deferred) {
			t.Errorf("%s: groups %+v, %d listed, %d deferred", format, p.Grouped, len(p.listed), len(p.Deferred))
		}
		// The handle lists exactly the grouped records: --deferred and
		// the group's kind on the same request (markdown names the flag
		// once, for the request above, and the kind on the group line).
		handle := []byte("lore packet --ns big --focus hub --task draft --format " + format + " --budget 4000 --deferred style")
		if format == "md" {
			handle = []byte("(`--deferred style`)") // one group: the heading is its line
		}
		if !bytes.Contains(out, handle) {
			t.Errorf("%s: no handle for the grouped notes:\n%s", format, out)
		}
		if got := p.DeferredOf([]string{"style"}); len(got) != p.Grouped[0].Count {
			t.Errorf("%s: --deferred style lists %d notes; the group counts %d", format, len(got), p.Grouped[0].Count)
		}
		if got := fxCounter(t).Count(string(out)); got > req.Budget {
			t.Errorf("%s: %d tokens over the budget %d", format, got, req.Budget)
		}
		// The report on stderr still lists every deferred record.
		if n := strings.Count(p.Report(), "(rank 8, dropped"); n != len(p.Deferred) {
			t.Errorf("%s: report lists %d of %d deferred records", format, n, len(p.Deferred))
		}
	}
}

// TestSplitProposals: a chapter that cannot fit proposes one packet per
// scene, and a request with two focus records one packet per focus.
func TestSplitProposals(t *testing.T) {
	ns := "n"
	recs := []store.Record{{NS: ns, ID: "ch-1", Kind: "chapter", Body: fxProse(1, 50)}}
	var links []store.Link
	for i := range 3 {
		id := fmt.Sprintf("s-%d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "scene", Order: int64(i + 1), Body: fxProse(uint64(10+i), 400)})
		links = append(links, store.Link{NS: ns, From: "ch-1", Rel: "contains", To: id})
	}
	env := fxOpen(t, recs, links, true)
	// Each scene's packet holds the scene before it (continuity): a
	// budget for two scenes and not three.
	req := Request{NS: ns, Focus: []string{"ch-1"}, Budget: 1100, Counter: fxCounter(t)}
	_, err := Build(context.Background(), env.st, env.ix, req)
	var split *SplitError
	if !errors.As(err, &split) {
		t.Fatalf("Build: %v; want a SplitError", err)
	}
	joined := strings.Join(split.Proposals, "\n")
	for _, want := range []string{"one packet per scene:\n      lore packet --ns n --focus s-0 --budget 1100", "--focus s-1", "--focus s-2", "a larger budget: at least"} {
		if !strings.Contains(joined, want) {
			t.Errorf("proposals lack %q:\n%s", want, joined)
		}
	}
	req.Focus = []string{"s-1", "s-2"}
	_, err = Build(context.Background(), env.st, env.ix, req)
	if !errors.As(err, &split) || !strings.Contains(strings.Join(split.Proposals, "\n"), "one packet per focus:\n      lore packet --ns n --focus s-1 --budget 1100") {
		t.Errorf("two focus records: %v; want a per-focus proposal", err)
	}
}

// In a sequence, what follows a hit (its reply) ranks above what
// precedes it (NextShare 40, PreviousShare 30 of the hit's score), and
// the packet shows both beside the hit, in the sequence's own order.
func TestHitNeighboursNextBeforePrevious(t *testing.T) {
	ns := "talk"
	// The turns beside the hit are long enough that a budget can hold one
	// of them without the other.
	filler := strings.Repeat(" It was a long morning on the water.", 6)
	texts := []string{"Good morning.", "How was the lake trip?" + filler, "We saw an otter by the reeds.", "An otter! Lucky you." + filler, "See you soon."}
	recs, links := fxTurns(ns, "t%d", texts)
	env := fxOpen(t, recs, links, true)
	req := Request{NS: ns, Query: "where did they see the reeds", Budget: 2000, Profile: "agent"}
	p, _ := fxBuild(t, env, req)
	ids := strings.Join(entryIDs(p), " ")
	if !strings.Contains(ids, "t2 t3 t4") {
		t.Fatalf("packet order %s; want t2, the hit t3 and its reply t4 in a row", ids)
	}
	for _, e := range p.Records {
		if e.ID == "t4" && e.Why != "after t3" || e.ID == "t2" && e.Why != "before t3" {
			t.Errorf("%s: why %q", e.ID, e.Why)
		}
	}
	md, err := p.Render("md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "\n[t4]\n") || strings.Contains(string(md), "after t3") {
		t.Errorf("t4 beside its hit should need no why in markdown:\n%s", md)
	}
	// Priority: as the budget grows, the reply comes in before the turn
	// that precedes the hit.
	replyAlone := false
	for req.Budget = 100; req.Budget < 600; req.Budget += 5 {
		p, _ := fxBuild(t, env, req)
		got := entryIDs(p)
		reply, prev := slices.Contains(got, "t4"), slices.Contains(got, "t2")
		if prev && !reply {
			t.Fatalf("budget %d: %v holds t2 without t4", req.Budget, got)
		}
		replyAlone = replyAlone || reply && !prev
	}
	if !replyAlone {
		t.Errorf("no budget from 100 to 600 holds the reply t4 without t2")
	}
}

// TestAgentNotesGrouped: an agent packet lists no deferral note one by
// one, even with room left for some: every deferred record is counted in
// a group line with its handle. A profile given a note share lists the
// most important notes in that room, as the novel profile does.
func TestAgentNotesGrouped(t *testing.T) {
	ns := "mem"
	var recs []store.Record
	for i := range 40 {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("m%02d", i), Kind: "memory",
			Body: fmt.Sprintf("Memory %d: the lighthouse keeper %s.", i, fxProse(uint64(i), 150+i%5*60))})
	}
	env := fxOpen(t, recs, nil, true)
	// Bodies whole: an excerpt's handle is no note's (excerpt_test.go).
	cfg := DefaultConfig()
	agent := cfg.Profiles["agent"]
	agent.Excerpt = 0
	cfg.Profiles["agent"] = agent
	req := Request{NS: ns, Query: "lighthouse keeper", Budget: 3100, Profile: "agent", Config: &cfg}
	p, out := fxBuild(t, env, req)
	if len(p.Deferred) == 0 || len(p.listed) != 0 || len(p.Grouped) != 1 || p.Grouped[0].Count != len(p.Deferred) {
		t.Fatalf("agent: %d deferred, %d listed, groups %+v; want every deferred record in one group\n%s", len(p.Deferred), len(p.listed), p.Grouped, out)
	}
	if bytes.Contains(out, []byte("lore get")) {
		t.Errorf("agent packet lists a note's fetch handle:\n%s", out)
	}

	listing := DefaultConfig()
	agent.NoteShare = 25
	listing.Profiles["agent"] = agent
	req.Config = &listing
	q, out2 := fxBuild(t, env, req)
	if len(q.listed) == 0 || !bytes.Contains(out2, []byte("lore get --ns mem")) {
		t.Errorf("agent with note_share 25: %d listed; want the most important notes listed\n%s", len(q.listed), out2)
	}
	if !slices.Equal(entryIDs(p), entryIDs(q)) {
		t.Errorf("listing notes changed the records: %v, then %v", entryIDs(p), entryIDs(q))
	}
	if got := fxCounter(t).Count(string(out2)); got > req.Budget {
		t.Errorf("%d tokens over the budget %d", got, req.Budget)
	}

	agent.NoteShare = -2
	cfg.Profiles["agent"] = agent
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "note_share -2") {
		t.Errorf("Validate with note_share -2: %v; want an error naming it", err)
	}
}

// In a conversation of two, the turn two after a hit (its speaker's next
// turn, by meta "speaker") often answers what the reply between them
// asked, with none of the question's words: it comes in after the hit
// and its reply, and after_next_share -1 leaves it out.
func TestHitTwoAfter(t *testing.T) {
	ns := "talk"
	texts := []string{
		"I baked something special for the harvest party!",
		"Oh nice, tell me more!",
		"A lemon tart with thyme, my grandmother's way.",
	}
	for i := range 12 { // later turns, so the early ones are not the most recent
		texts = append(texts, fmt.Sprintf("The weather turned cold on day %d.", i))
	}
	recs, links := fxTurns(ns, "t%d", texts, "Ana", "Ben")
	env := fxOpen(t, recs, links, true)
	req := Request{NS: ns, Query: "What was baked for the harvest party?", Budget: 2000, Profile: "agent"}
	p, _ := fxBuild(t, env, req)
	if ids := strings.Join(entryIDs(p), " "); !strings.Contains(ids, "t1 t2 t3") {
		t.Fatalf("packet order %s; want the hit t1, its reply t2 and t3 two after it in a row", ids)
	}
	if e, _ := findEntry(p, "t3"); e.Why != "two after t1" {
		t.Errorf("t3: why %q, want %q", e.Why, "two after t1")
	}
	md, err := p.Render("md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "\nt3 Ana\n") {
		t.Errorf("t3 beside its hit should open with its id alone in markdown:\n%s", md)
	}
	// A source that reads neighbours one record at a time (no
	// NeighborsOf) gives the same packet.
	plain, err := Build(t.Context(), struct{ Source }{env.st}, env.ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(entryIDs(plain), " "), strings.Join(entryIDs(p), " "); got != want {
		t.Errorf("source without NeighborsOf: %s, want %s", got, want)
	}
	cfg := DefaultConfig()
	cfg.AfterNextShare = -1
	req.Config = &cfg
	p, _ = fxBuild(t, env, req)
	if _, ok := findEntry(p, "t3"); ok {
		t.Errorf("after_next_share -1: t3 still in the packet: %v", entryIDs(p))
	}

	// The share stands for the hit's speaker going on: records that name
	// no speaker (prose, notes), or a third record by someone else, get
	// none of it.
	for name, speakers := range map[string][]string{"no speaker": nil, "three speakers": {"Ana", "Ben", "Cy"}} {
		recs, links := fxTurns(ns, "t%d", texts, speakers...)
		if speakers == nil {
			for i := range recs {
				recs[i].Title = []string{"Ana", "Ben"}[i%2]
			}
		}
		env := fxOpen(t, recs, links, true)
		req := Request{NS: ns, Query: "What was baked for the harvest party?", Budget: 2000, Profile: "agent"}
		p, _ := fxBuild(t, env, req)
		if e, ok := findEntry(p, "t3"); ok && e.Why == "two after t1" {
			t.Errorf("%s: t3 is in as two after t1, though its speaker is not t1's: %v", name, entryIDs(p))
		}
	}
}
