package lore

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// Seeds beyond these live in testdata/fuzz/<FuzzName>/; inputs that ever
// broke an invariant are kept there too.

func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","kind":"scene","body":"x","links":[{"rel":"r","to":"b","weight":1.5}]}`,
		`{"link":{"ns":"n","from":"a","rel":"r","to":"b"}}`,
		"{\"id\":\"a\"}\n\n{\"id\":\"a\"}\r\n{\"ns\":\"x/y\",\"id\":\"b\",\"tags\":[],\"meta\":{}}",
		`{"id":"a","created":"bogus","version":"x","tokens":[1]}`,
		`{"id":"\u0000"}`,
		"{\"id\":\"a\",\"body\":\"\xff\"}",
		`{"id":"a","links":[{"ns":"other","rel":"r","to":"b"}]}`,
		`[1,2]`, `null`, `{"id":"a"} trailing`, `{"id":1e999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, links, errs := ReadJSONL(bytes.NewReader(data), "fuzz.jsonl", "n")
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range errs {
			if e.File != "fuzz.jsonl" || e.Line < 1 || e.Line > lines || e.Err == nil {
				t.Fatalf("error %+v: want file fuzz.jsonl, a line in 1..%d and a cause", e, lines)
			}
		}
		checkRecords(t, recs)
		checkLinks(t, links)

		// Write, read, write: the second read is clean and the bytes agree.
		var w1 bytes.Buffer
		if err := WriteJSONL(&w1, recs, links); err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
		recs2, links2, errs2 := ReadJSONL(bytes.NewReader(w1.Bytes()), "again", "")
		if len(errs2) != 0 {
			t.Fatalf("reading our own export: %v\n%s", errs2, w1.Bytes())
		}
		if len(recs2) != len(recs) || len(links2) != len(links) {
			t.Fatalf("round trip: %d records %d links, then %d and %d", len(recs), len(links), len(recs2), len(links2))
		}
		var w2 bytes.Buffer
		if err := WriteJSONL(&w2, recs2, links2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("export is not stable:\n%s\nvs\n%s", w1.Bytes(), w2.Bytes())
		}
	})
}

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
		recs, links, errs := ReadMarkdownDir(fsys, "n")
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
		checkRecords(t, recs)
		checkLinks(t, links)
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
		recs, links, errs := ReadMarkdownDir(fsys, "n")
		for _, e := range errs {
			if e.File != "x.md" || e.Line < 4 || e.Line > lines+3 {
				t.Fatalf("error %+v: want x.md on a body line (4..%d)", e, lines+3)
			}
		}
		checkRecords(t, recs)
		checkLinks(t, links)
		for _, l := range links {
			if l.From != "x" || l.Rel != MentionsRel {
				t.Fatalf("link %+v: want a mention from x", l)
			}
		}
	})
}

// checkRecords asserts what every reader promises about its records.
func checkRecords(t *testing.T, recs []store.Record) {
	t.Helper()
	for _, r := range recs {
		if err := store.ValidNamespace(r.NS); err != nil {
			t.Fatalf("record %q: %v", r.ID, err)
		}
		if err := store.ValidID(r.ID); err != nil {
			t.Fatalf("record: %v", err)
		}
		texts := []string{r.Kind, r.Title, r.Body, r.Summary}
		texts = append(texts, r.Tags...)
		for k, v := range r.Meta {
			texts = append(texts, k, v)
		}
		for _, s := range texts {
			if !utf8.ValidString(s) {
				t.Fatalf("record %q holds invalid UTF-8 %q", r.ID, s)
			}
		}
	}
}

// checkLinks asserts every link is one the store would accept.
func checkLinks(t *testing.T, links []store.Link) {
	t.Helper()
	for _, l := range links {
		if store.ValidNamespace(l.NS) != nil || store.ValidID(l.From) != nil || store.ValidID(l.To) != nil || validRel(l.Rel) != nil {
			t.Fatalf("invalid link %+v", l)
		}
	}
}
