package markdown

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/format/internal/readertest"
)

// Seeds beyond these live in testdata/fuzz/<FuzzName>/; inputs that ever
// broke an invariant are kept there too.

func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\nid: a\nkind: scene\ntitle: T\nsummary: s\ntags: [x, y]\norder: 3\npinned: true\nmeta:\n  pov: mara\nlinks:\n  appears_in: [b, scene/x]\n---\n# H\nbody [[b]]",
		"---\r\nid: a\r\n---\r\n",
		"---\n- list\n---\n",
		"---\na: &x [1, 2]\nb: *x\nlinks:\n  r: *x\n---\n",
		"---\nid: [unclosed\n---\n",
		"---\nno end",
		"---\n...\n",
		"\ufeff---\nkey: \"\\u0007\"\n---\n",
		"# Only a heading\n[[x|y]] [[#h]] [[]]",
		"---\nmeta: {a: {b: c}}\n---\n",
		"\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := mapFS(map[string]string{"scene/f.md": string(data), "character/b.md": "[[f]] and [[scene/f]]"})
		recs, links, errs := ReadDir(fsys, "n")
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range errs {
			if e.File != "scene/f.md" || e.Line < 0 || e.Line > lines || e.Err == nil {
				t.Fatalf("error %+v: want file scene/f.md, a line in 0..%d and a cause", e, lines)
			}
		}
		switch {
		case len(errs) == 0 && len(recs) != 2, len(errs) > 0 && len(recs) != 1:
			t.Fatalf("%d records and %d errors, want every file as a record or an error", len(recs), len(errs))
		}
		readertest.CheckRecords(t, recs)
		readertest.CheckLinks(t, links)
		ids := map[string]bool{}
		for _, r := range recs {
			ids[r.ID] = true
			if r.Binary && r.Body != "" {
				t.Fatalf("binary record %q has a body", r.ID)
			}
		}
		for _, l := range links {
			if !ids[l.From] {
				t.Fatalf("link %+v comes from no record read", l)
			}
		}
	})
}

func FuzzWikilinks(f *testing.F) {
	for _, s := range []string{
		"see [[a]] and [[b|label]] and [[c#part|x]]",
		"[[[[nested]]]] [[a]]]] [[ ]] [[|x]] [[#only]]",
		"```\n[[code]]\n```\n[[after]]",
		"~~~\n[[tilde]]\n    ```\n[[x.md]]",
		"[[line\nbreak]] [[é/ü]]",
		"\xff[[a]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		lines := strings.Count(body, "\n") + 1
		for _, w := range findWikilinks(body) {
			if w.target == "" || strings.ContainsAny(w.target, "|#\n[]") || strings.TrimSpace(w.target) != w.target {
				t.Fatalf("target %q: want cleaned, non-empty", w.target)
			}
			if w.line < 1 || w.line > lines {
				t.Fatalf("target %q on line %d, want 1..%d", w.target, w.line, lines)
			}
			if utf8.ValidString(body) && !utf8.ValidString(w.target) {
				t.Fatalf("target %q is not UTF-8 though the body is", w.target)
			}
			if !strings.Contains(body, w.target) {
				t.Fatalf("target %q does not occur in the body", w.target)
			}
		}
		fsys := mapFS(map[string]string{"x.md": "---\nid: x\n---\n" + body, "a.md": "a"})
		recs, links, errs := ReadDir(fsys, "n")
		for _, e := range errs {
			if e.File != "x.md" || e.Line < 4 || e.Line > lines+3 {
				t.Fatalf("error %+v: want x.md on a body line (4..%d)", e, lines+3)
			}
		}
		readertest.CheckRecords(t, recs)
		readertest.CheckLinks(t, links)
		for _, l := range links {
			if l.From != "x" || l.Rel != MentionsRel {
				t.Fatalf("link %+v: want a mention from x", l)
			}
		}
	})
}
