package packet

import (
	"bytes"
	"context"
	"testing"
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
