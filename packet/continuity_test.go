package packet

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lorekeep/lore/store"
)

// The workhouse canon: a small novel written for these tests, shaped as
// a novelist keeps one. Four ordered scenes with `pov:` in meta, each
// linked to its place; characters with aliases, one of them ("The
// Matron") named in the scenes only in lower case; a canon rule linked
// from the POV character's page and from no scene; a character present
// in scene 3 who is named only in scene 2 ("his wife" in scene 3).
func workhouseCanon() ([]store.Record, []store.Link) {
	ns := "workhouse"
	rec := func(id, kind, title, summary, body string, order int64, meta map[string]string, aliases ...string) store.Record {
		return store.Record{NS: ns, ID: id, Kind: kind, Title: title, Summary: summary, Body: body, Order: order, Meta: meta, Aliases: aliases}
	}
	pov := func(id string) map[string]string { return map[string]string{"pov": id} }
	recs := []store.Record{
		rec("scene-01", "scene", "The Gate", "Nell arrives at the workhouse gate in the rain and is taken in by the matron.",
			"Nell stood at the gate until the rain had found every seam of her coat. The matron\n"+
				"came down with a lamp and a ledger, wrote her name without asking how it was\n"+
				"spelled, and told her the rules in the order she would break them.\n", 1, pov("nell")),
		rec("scene-02", "scene", "The Ledger", "Nell sees Mr Crale and his wife falsify the bread ledger.",
			"In the store room Nell watched Mr Crale count the loaves twice and write down a\n"+
				"third number. Martha Crale held the candle and did not look at the page. When\n"+
				"she saw Nell in the doorway she shook her head once, very slightly.\n", 2, pov("nell")),
		rec("scene-03", "scene", "Salt on the Sill", "Nell reads the salt on the sill and learns who was in the room.",
			"By morning there was salt on the sill again. Nell knelt and read it the way her\n"+
				"mother had taught her: a thumb-width drift, a clean arc where a sleeve had\n"+
				"brushed it. His wife had been here, then, and not the master. The matron's keys\n"+
				"were still on their nail.\n", 3, pov("nell")),
		rec("scene-04", "scene", "The Inspection", "The guardians inspect the workhouse; Nell keeps silent.",
			"The guardians came at ten with their gloves on. Nell kept her eyes on the floor.\n", 4, pov("nell")),
		rec("nell", "character", "Nell Harrow", "Nell Harrow, twelve, a pauper girl who can read salt.",
			"Nell Harrow is twelve and has been in the workhouse since the spring. Her mother\n"+
				"taught her to read salt: what a drift on a sill says about who passed it and\n"+
				"when. She tells no one she can do it.\n", 0, nil, "Nell"),
		rec("crale", "character", "Edmund Crale", "The workhouse master; skims the bread money.",
			"Edmund Crale, master of the workhouse, keeps two ledgers and believes in both.\n", 0, nil, "Mr Crale", "the master"),
		rec("martha", "character", "Martha Crale", "The master's wife; keeps his secrets and her own.",
			"Martha Crale, the master's wife, holds the candle for every lie in the store room\n"+
				"and writes her own account of them at night.\n", 0, nil, "Martha Crale"),
		rec("matron", "character", "Agnes Pike", "The matron: keys, rules and a long memory.",
			"Agnes Pike has been matron for nineteen years. She keeps every key on one ring\n"+
				"and every grievance in her head.\n", 0, nil, "The Matron"),
		rec("canon-salt-reading", "canon", "Reading salt", "Salt on a sill keeps the trace of whoever passed it for one night.",
			"Salt laid on a sill keeps the trace of whoever passed it until the next dew. Only\n"+
				"those taught young can read it, and it never lies about who, only about why.\n", 0, nil),
		rec("canon-bread-ledger", "canon", "The bread ledger", "The ledger of loaves, kept by the master.",
			"The bread ledger is kept by the master and checked by the guardians each quarter.\n", 0, nil),
		rec("yard", "location", "The women's yard", "", "A yard of wet flagstones between the laundry and the store room.\n", 0, nil),
		rec("store-room", "location", "The store room", "", "Shelves of loaves and a desk with the ledger on it.\n", 0, nil),
		rec("style-voice", "style", "Voice", "", "Close third person, past tense; plain words; no one explains what salt means.\n", 0, nil),
		rec("theme-trace", "theme", "Traces", "", "What is left behind tells the truth that people will not.\n", 0, nil),
	}
	l := func(from, rel, to string) store.Link { return store.Link{NS: ns, From: from, Rel: rel, To: to} }
	links := []store.Link{
		l("scene-01", "set_in", "yard"), l("scene-02", "set_in", "store-room"),
		l("scene-03", "set_in", "yard"), l("scene-04", "set_in", "store-room"),
		l("nell", "knows", "canon-salt-reading"), l("crale", "keeps", "canon-bread-ledger"),
	}
	return recs, links
}

// TestDraftContinuity: drafting scene-03 of the workhouse canon, the
// packet holds the scene before it (scene-02, whole or by its summary),
// the canon rule linked from the POV character (canon-salt-reading, rank
// 2), the character the scene names only as "his wife" but the scene
// before names (martha; the ladder's step 3 narrows it with the two-hop
// walk), and the matron the scene names in lower case, at every budget
// where it is written; scene-04, later in the story, is
// not loaded while drafting, and is for plan.
func TestDraftContinuity(t *testing.T) {
	recs, links := workhouseCanon()
	env := fxOpen(t, recs, links, true)
	want := map[string]int{"scene-02": 3, "canon-salt-reading": 2, "martha": 3, "matron": 2, "nell": 1}
	written := 0
	for b := 300; b <= 4000; b += 37 {
		req := Request{NS: "workhouse", Focus: []string{"scene-03"}, Task: "draft", Budget: b, Counter: fxCounter(t)}
		p, err := Build(t.Context(), env.st, env.ix, req)
		if errors.Is(err, ErrCannotFit) {
			continue
		}
		if err != nil {
			t.Fatalf("budget %d: %v", b, err)
		}
		written++
		for id, rank := range want {
			e, ok := findEntry(p, id)
			if n, out := findNote(p, id); !ok && out && id == "martha" && n.Step == 3 {
				continue // named by the scene before: narrowed with the two-hop walk (ladder step 3)
			}
			if !ok || e.Rank != rank {
				t.Errorf("budget %d: %s = %+v, %v; want it at rank %d\n%s", b, id, e, ok, rank, p.Explain())
			}
		}
		if _, ok := findEntry(p, "scene-04"); ok {
			t.Errorf("budget %d: scene-04 is in a draft of scene-03: later in the story", b)
		}
	}
	if written == 0 {
		t.Fatal("no budget from 300 to 4,000 wrote the packet")
	}
	plan := Request{NS: "workhouse", Focus: []string{"scene-03"}, Task: "plan", Budget: 4000, Counter: fxCounter(t)}
	p, err := Build(t.Context(), env.st, env.ix, plan)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := findEntry(p, "scene-04"); !ok || e.Rank != 3 {
		t.Errorf("plan: scene-04 = %+v, %v; want the scene after at rank 3", e, ok)
	}
}

// TestGoldenDraftContinuity keeps the workhouse draft packet as a
// novelist reads it, roomy and tight. Refresh with go test ./packet -run
// TestGoldenDraftContinuity -update.
func TestGoldenDraftContinuity(t *testing.T) {
	recs, links := workhouseCanon()
	env := fxOpen(t, recs, links, true)
	for _, b := range []int{2000, 560} {
		name := fmt.Sprintf("workhouse-scene-03.%d.md", b)
		t.Run(name, func(t *testing.T) {
			checkGolden(t, name, buildOrErr(t, env, Request{NS: "workhouse", Focus: []string{"scene-03"}, Task: "draft", Budget: b}))
		})
	}
}

// TestPinnedAlwaysCandidate: a pinned record is in the novel packet
// whatever brings the other records in, even when nothing links to it
// or names it (pinned content is never dropped), with and without a
// focus.
func TestPinnedAlwaysCandidate(t *testing.T) {
	recs, links := workhouseCanon()
	recs = append(recs, store.Record{NS: "workhouse", ID: "rule-no-magic", Kind: "canon", Title: "No magic",
		Body: "Nothing in this book is magic; salt is only salt, read well.\n", Pinned: true})
	env := fxOpen(t, recs, links, true)
	for _, req := range []Request{
		{NS: "workhouse", Focus: []string{"scene-01"}, Task: "draft", Budget: 4000},
		{NS: "workhouse", Query: "ledger", Budget: 4000},
	} {
		p, _ := fxBuild(t, env, req)
		if e, ok := findEntry(p, "rule-no-magic"); !ok || e.Rank != 1 || e.Why != "pinned" {
			t.Errorf("focus %v query %q: rule-no-magic = %+v, %v; want it in at rank 1, pinned\n%s", req.Focus, req.Query, e, ok, p.Explain())
		}
	}
}

// TestDraftContinuityDemo: drafting scene-03 of the demo canon, the
// packet holds scene-02 (the scene before) and the characters the POV's
// page links to, at every budget it is written; drafting scene-06 holds
// scene-05.
func TestDraftContinuityDemo(t *testing.T) {
	env := fxDemo(t)
	for _, tc := range []struct {
		focus string
		want  []string
	}{
		{"scene-03", []string{"scene-02", "mara", "ines"}},
		{"scene-06", []string{"scene-05"}},
	} {
		written := 0
		for b := 600; b <= 8000; b += 149 {
			req := demoRequest(tc.focus, 1, b)
			req.Task, req.Counter = "draft", fxCounter(t)
			p, err := Build(t.Context(), env.st, env.ix, req)
			if errors.Is(err, ErrCannotFit) {
				continue
			}
			if err != nil {
				t.Fatalf("%s at %d: %v", tc.focus, b, err)
			}
			written++
			for _, id := range tc.want {
				if _, ok := findEntry(p, id); !ok {
					t.Errorf("%s at %d: %s is not in the packet\n%s", tc.focus, b, id, p.Explain())
				}
			}
		}
		if written == 0 {
			t.Errorf("%s: no budget from 600 to 8,000 wrote the packet", tc.focus)
		}
	}
}
