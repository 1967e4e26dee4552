package packet

import (
	"testing"
)

func TestBuildEverythingFits(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	p, out := fxBuild(t, env, fxSceneRequest(100000))
	t.Logf("%s\n%s", out, p.Explain())
	wantRank := map[string]int{
		"scene-12": 1, "mara": 1, "curfew": 1, "tomas": 2, "mill": 2, "scene-11": 3,
		"oath": 4, "tl-10": 5, "tl-13": 5, "mara-tomas": 6, "fire-magic": 7, "voice": 8,
		"reader-ash": 9, "theme-ash": 10,
		"old-debt": 4, // open and due at 5: overdue at scene 12, still owed
	}
	for id, rank := range wantRank {
		e, ok := findEntry(p, id)
		if !ok {
			t.Errorf("record %q missing from the packet; have %v", id, entryIDs(p))
			continue
		}
		if e.Rank != rank || e.Form != "full" {
			t.Errorf("record %q: rank %d form %s; want rank %d full", id, e.Rank, e.Form, rank)
		}
	}
	// mara-secret holds from scene 30: story time defaults to the focus's
	// position (12) and leaves it out.
	if e, _ := findEntry(p, "old-debt"); e.Why != "overdue since 5" {
		t.Errorf("old-debt why %q; want %q", e.Why, "overdue since 5")
	}
	for _, id := range []string{"paid-debt", "tl-05", "miller", "mara-secret"} {
		if _, ok := findEntry(p, id); ok {
			t.Errorf("record %q should not be loaded", id)
		}
	}
	if len(p.Deferred) != 0 || p.Incomplete() || ExitCode(p, nil) != 0 {
		t.Errorf("nothing should be deferred at 100k: %s", describe(p))
	}
	if p.Tokens > p.Budget {
		t.Errorf("tokens %d over budget %d", p.Tokens, p.Budget)
	}
}
