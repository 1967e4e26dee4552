package packet

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// FuzzBuild: no request a user can type makes Build panic; every result is
// a packet within its budget (or frame only), or an error of the package.
func FuzzBuild(f *testing.F) {
	recs, links := fxCanon()
	env := fxOpen(f, recs, links, true)
	counter := fxCounter(f)
	f.Add("fire mill", "scene-12", "power", "draft", 2600, 1, int64(0), "md", "")
	f.Add("", "scene-12,mara", "thematic,info-control", "revise", 1800, 2, int64(12), "xml", "character")
	f.Add("\"quoted phrase\" -x", "", "", "", 50, 0, int64(0), "json", "")
	f.Add("Mara", "nope", "magic", "write", -1, 3, int64(-4), "html", "x")
	f.Add("`id` <x>", "scene-12", "", "plan", 100000, 2, int64(99), "md", "theme,style")
	f.Fuzz(func(t *testing.T, query, focus, when, task string, budgetTokens, hops int, asOf int64, format, kinds string) {
		req := Request{NS: "novel-a", Query: query, Task: task, Budget: budgetTokens, Hops: hops, AsOf: asOf,
			Format: format, Counter: counter}
		if focus != "" {
			req.Focus = strings.Split(focus, ",")
		}
		if when != "" {
			req.When = []string{when}
		}
		if kinds != "" {
			req.Kinds = strings.Split(kinds, ",")
		}
		p, err := Build(context.Background(), env.st, env.ix, req)
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrFocusNotFound) && !errors.Is(err, ErrCannotFit) {
				// Search errors on odd query syntax are the index's own
				// and wrapped with the query: accept them when they say so.
				if !strings.Contains(err.Error(), "search") {
					t.Fatalf("unexpected error kind: %v", err)
				}
			}
			return
		}
		out, err := p.Render(p.Request.Format)
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		if n := counter.Count(string(out)); n > req.Budget && !p.FrameOnly {
			t.Fatalf("%d tokens over budget %d", n, req.Budget)
		}
	})
}
