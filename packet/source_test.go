package packet

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"
)

// spySource records which bodies were read.
type spySource struct {
	Source
	mu   sync.Mutex
	read []string
}

func (s *spySource) Bodies(ns string, ids []string) (map[string]string, error) {
	s.mu.Lock()
	s.read = append(s.read, ids...)
	s.mu.Unlock()
	return s.Source.Bodies(ns, ids)
}

// TestNoBodyReadBeforeFitting: with cached counts, only the bodies of
// records that end up in the packet in full are read.
func TestNoBodyReadBeforeFitting(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	spy := &spySource{Source: env.st}
	req := fxSceneRequest(2200)
	req.Counter = fxCounter(t)
	p, err := Build(context.Background(), spy, env.ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Deferred) == 0 {
		t.Fatalf("want deferrals at 2200: %s", describe(p))
	}
	var full []string
	for _, e := range p.Records {
		if e.Form == "full" {
			full = append(full, e.ID)
		}
	}
	for _, id := range spy.read {
		if !slices.Contains(full, id) {
			t.Errorf("body of %q read, but it is not in the packet in full (full: %v)", id, full)
		}
	}
	if len(spy.read) == 0 {
		t.Error("no body read at all")
	}
}

func TestContentHashDetectsChanges(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	for _, format := range validFormats {
		req := fxSceneRequest(2600)
		req.Format = format
		p, out := fxBuild(t, env, req)
		if h, err := ContentHash(format, out); err != nil || h != p.Hash {
			t.Fatalf("%s: ContentHash %q, %v; packet says %q", format, h, err, p.Hash)
		}
		changed := bytes.Replace(out, []byte("miller's daughter"), []byte("millers daughter"), 1)
		if h, _ := ContentHash(format, changed); h == p.Hash {
			t.Errorf("%s: changing the content kept the hash", format)
		}
	}
	if _, err := ContentHash("md", []byte("no packet here")); err == nil {
		t.Error("ContentHash of a text without a total line: no error")
	}
}

// TestConcurrentBuilds: Build may run from many goroutines on one store;
// every packet is identical.
func TestConcurrentBuilds(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(2600)
	req.Query = "fire"
	_, want := fxBuild(t, env, req)
	var wg sync.WaitGroup
	outs := make([][]byte, 6)
	for i := range outs {
		wg.Go(func() {
			r := req
			r.Counter = fxCounter(t)
			p, err := Build(context.Background(), env.st, env.ix, r)
			if err != nil {
				t.Error(err)
				return
			}
			outs[i], _ = p.Render("md")
		})
	}
	wg.Wait()
	for i, out := range outs {
		if !bytes.Equal(out, want) {
			t.Errorf("goroutine %d: packet differs", i)
		}
	}
}
