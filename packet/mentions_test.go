package packet

import (
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// The command lines a split proposes carry the mention flags, so that
// running one rebuilds the same kind of packet.
func TestCommandCarriesMentionFlags(t *testing.T) {
	b := &builder{cfg: DefaultConfig()}
	got := b.commandFor(Request{NS: "novel", Query: "the reef", MentionsDepth: 2, ScanQuery: true, Budget: 900, Focus: []string{"scene-03"}})
	for _, want := range []string{"--mentions-depth 2", "--scan-query", "--focus scene-03", "--budget 900"} {
		if !strings.Contains(got, want) {
			t.Errorf("command %q lacks %q", got, want)
		}
	}
	if got := b.commandFor(Request{NS: "novel", Budget: 900, ScanQuery: true}); strings.Contains(got, "mentions") || strings.Contains(got, "scan-query") {
		t.Errorf("command %q: the defaults (and --scan-query without a query) need no flag", got)
	}
}

func TestMentionsDepthValidated(t *testing.T) {
	for _, d := range []int{-1, 3} {
		_, _, err := Request{NS: "novel", Budget: 100, MentionsDepth: d}.normalize()
		if err == nil || !strings.Contains(err.Error(), "mentions-depth") {
			t.Errorf("mentions depth %d: %v; want an error naming it", d, err)
		}
	}
	r, _, err := Request{NS: "novel", Budget: 100, MentionsDepth: 1}.normalize()
	if err != nil || r.MentionsDepth != 0 {
		t.Errorf("depth 1 normalizes to %d, %v; want 0 (the default, kept out of the request line)", r.MentionsDepth, err)
	}
	if err := (Config{MentionShare: 101}).Validate(); err == nil || !strings.Contains(err.Error(), "mention_share 101") {
		t.Errorf("mention_share 101: %v", err)
	}
	if err := (Config{NamingKinds: []string{""}}).Validate(); err == nil || !strings.Contains(err.Error(), "naming_kinds") {
		t.Errorf("naming_kinds [\"\"]: %v", err)
	}
}

// A record with a bad meta.from that only lends a name to the scan is not
// warned about; once it is a candidate, it is.
func TestMentionScanDoesNotWarnForBystanders(t *testing.T) {
	recs := []store.Record{
		{NS: "n", ID: "scene-1", Kind: "scene", Order: 1, Body: "Sefa came."},
		{NS: "n", ID: "sefa", Kind: "character", Title: "Sefa Dunmore", Aliases: []string{"Sefa"}},
		{NS: "n", ID: "reef", Kind: "canon", Title: "The Needle", Meta: map[string]string{"from": "nowhere"}},
	}
	env := fxOpen(t, recs, nil, true)
	p, err := Build(t.Context(), env.st, env.ix, Request{NS: "n", Focus: []string{"scene-1"}, Budget: 4000, Counter: fxCounter(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 0 {
		t.Errorf("warnings %q; want none (reef is not a candidate)", p.Warnings)
	}
	if len(p.Records) != 2 || p.Records[1].ID != "sefa" {
		t.Errorf("records %+v; want the scene and sefa", p.Records)
	}
	recs[0].Body = "Sefa saw the Needle."
	env = fxOpen(t, recs, nil, true)
	p, err = Build(t.Context(), env.st, env.ix, Request{NS: "n", Focus: []string{"scene-1"}, Budget: 4000, Counter: fxCounter(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], `record "reef": meta.from "nowhere"`) {
		t.Errorf("warnings %q; want the one about reef, now a candidate", p.Warnings)
	}
}
