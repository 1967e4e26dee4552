package packet

import (
	"bytes"
	"context"
	"testing"

	"github.com/lorekeep/lore/store"
)

// plainSource is a Source with none of the optional interfaces, so every
// rule pull walks through List.
type plainSource struct{ Source }

// TestSeekMatchesWalk: the timeline rule through store.Ordered (and the
// pinned, kind and recent pulls through the secondary keys behind List
// and Recent) gives the bytes the walks give, at several focus positions
// and story times, including ones with entries hidden by story time.
func TestSeekMatchesWalk(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	if _, ok := any(env.st).(OrderSeeker); !ok {
		t.Fatal("*store.Store is not an OrderSeeker")
	}
	seen := false
	for _, focus := range []string{"scene-12", "scene-11", "tl-05", "tl-10", "tl-13"} {
		for _, asOf := range []int64{0, 9, 10, 11, 14, NoStoryTime} {
			req := fxSceneRequest(2600)
			req.Focus, req.AsOf, req.Counter = []string{focus}, asOf, fxCounter(t)
			var outs [2][]byte
			for i, src := range []Source{env.st, plainSource{env.st}} {
				p, err := Build(context.Background(), src, env.ix, req)
				if err != nil {
					t.Fatalf("focus %s as of %d: %v", focus, asOf, err)
				}
				if outs[i], err = p.Render("md"); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("focus %s as of %d: the packet through the secondary keys differs from the walk's:\n%s\n---\n%s", focus, asOf, outs[0], outs[1])
			}
			seen = seen || bytes.Contains(outs[0], []byte("timeline before the focus")) && bytes.Contains(outs[0], []byte("timeline after the focus"))
		}
	}
	if !seen {
		t.Error("no packet pulled timeline entries both ways: the test compares nothing")
	}
}

// TestDueMatchesWalk: the obligation rule through store.Due gives the
// bytes the walk of the kind gives, for dues that are numbers, records
// of the namespace (whose order is the position), missing records and
// no due at all, open and closed, at several focus positions and scopes
// (horizons of 2, 10 and none).
func TestDueMatchesWalk(t *testing.T) {
	recs, links := fxCanon()
	ob := func(id, due, status string) store.Record {
		return store.Record{NS: "novel-a", ID: id, Kind: "obligation", Title: "Owed: " + id, Body: fxProse(uint64(len(id)), 20),
			Meta: map[string]string{"due": due, "status": status}}
	}
	recs = append(recs, ob("by-scene-11", "scene-11", "open"), ob("by-tl-13", " tl-13 ", "Pending"),
		ob("by-nothing", "ch-missing", "open"), ob("whenever", "", ""), ob("far", "99", "open"),
		ob("far-closed", "99", "done"), ob("by-curfew", "curfew", "owed"), ob("soon-closed", "13", "closed"))
	env := fxOpen(t, recs, links, true)
	if _, ok := any(env.st).(DueSeeker); !ok {
		t.Fatal("*store.Store is not a DueSeeker")
	}
	seen := map[string]bool{}
	for _, focus := range []string{"scene-12", "scene-11", "tl-05"} {
		for _, scope := range []string{"scene", "chapter", "novel"} {
			req := fxSceneRequest(6000)
			req.Focus, req.Scope, req.Counter = []string{focus}, scope, fxCounter(t)
			var outs [2][]byte
			for i, src := range []Source{env.st, plainSource{env.st}} {
				p, err := Build(context.Background(), src, env.ix, req)
				if err != nil {
					t.Fatalf("focus %s scope %s: %v", focus, scope, err)
				}
				if outs[i], err = p.Render("md"); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("focus %s scope %s: the packet through the due keys differs from the walk's:\n%s\n---\n%s", focus, scope, outs[0], outs[1])
			}
			for _, s := range []string{"overdue since scene-11", "obligation due by tl-13", "obligation due by 99", "[far-closed", "[soon-closed"} {
				seen[s] = seen[s] || bytes.Contains(outs[0], []byte(s))
			}
		}
	}
	for s, want := range map[string]bool{"overdue since scene-11": true, "obligation due by tl-13": true, "obligation due by 99": true, "[far-closed": false, "[soon-closed": false} {
		if seen[s] != want {
			t.Errorf("some packet has %q: %v; want %v (the test compares too little)", s, seen[s], want)
		}
	}
}
