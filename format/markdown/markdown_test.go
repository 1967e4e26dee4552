package markdown

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lorekeep/lore/store"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

func TestReadMarkdownDirFields(t *testing.T) {
	fsys := mapFS(map[string]string{
		"character/mara.md": `---
id: mara
title: Mara Venn
summary: lamp keeper; sister of [[ivo]]
tags: [pov, lamp]
order: 2
pinned: true
pov: "yes"
age: 31
aka: [the Keeper, M]
aliases: [the Keeper, M]
keys: saltlight
meta:
  from: 6
  status: open
links:
  appears_in: [scene-01, scene/scene-02]
  knows: ivo
---

# Not the title

Mara knows [[ivo|her brother]] and [[scene-01#the dock]].
`,
		"character/ivo.md": "# Ivo Venn\n\nNo front matter. See [[Mara.md]] and [[mara]].\n",
		"scene/scene-01.md": `---
id: scene-01
order: 1
---
Body starts here.
`,
		"scene/scene-02.md": "---\n---\nEmpty front matter; title from the file name.\n",
		"readme.md":         "At the root: kind note.\n",
		"notes.txt":         "ignored",
		".obsidian/x.md":    "ignored: hidden folder",
		"scene/.draft.md":   "ignored: hidden file",
		"scene/UPPER.MD":    "upper-case extension counts",
	})
	recs, links, errs := ReadDir(fsys, "novel")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	byID := map[string]store.Record{}
	var ids []string
	for _, r := range recs {
		byID[r.ID] = r
		ids = append(ids, r.ID)
		if r.NS != "novel" {
			t.Errorf("record %s in namespace %q, want novel", r.ID, r.NS)
		}
	}
	wantIDs := []string{"character/ivo", "mara", "readme", "scene-01", "scene/UPPER", "scene/scene-02"}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("ids %q, want %q", ids, wantIDs)
	}
	mara := byID["mara"]
	wantMara := store.Record{NS: "novel", ID: "mara", Kind: "character", Title: "Mara Venn",
		Summary: "lamp keeper; sister of [[ivo]]", Tags: []string{"pov", "lamp"}, Order: 2, Pinned: true,
		Aliases: []string{"the Keeper", "M"}, Keys: []string{"saltlight"},
		Meta: map[string]string{"pov": "yes", "age": "31", "aka": "the Keeper, M", "from": "6", "status": "open"},
		Body: "# Not the title\n\nMara knows [[ivo|her brother]] and [[scene-01#the dock]].\n"}
	if !reflect.DeepEqual(mara, wantMara) {
		t.Errorf("mara:\n got %+v\nwant %+v", mara, wantMara)
	}
	checks := []struct{ id, kind, title, body string }{
		{"character/ivo", "character", "Ivo Venn", "# Ivo Venn\n\nNo front matter. See [[Mara.md]] and [[mara]].\n"},
		{"scene-01", "scene", "scene-01", "Body starts here.\n"},
		{"scene/scene-02", "scene", "scene-02", "Empty front matter; title from the file name.\n"},
		{"readme", "note", "readme", "At the root: kind note.\n"},
		{"scene/UPPER", "scene", "UPPER", "upper-case extension counts"},
	}
	for _, c := range checks {
		r := byID[c.id]
		if r.Kind != c.kind || r.Title != c.title || r.Body != c.body {
			t.Errorf("%s: kind %q title %q body %q; want %q %q %q", c.id, r.Kind, r.Title, r.Body, c.kind, c.title, c.body)
		}
	}
	if byID["scene-01"].Order != 1 {
		t.Errorf("scene-01 order %d, want 1", byID["scene-01"].Order)
	}

	wantLinks := []store.Link{
		// [[Mara.md]] has no exact match (ids are case-sensitive): kept as written.
		{NS: "novel", From: "character/ivo", Rel: "mentions", To: "Mara"},
		{NS: "novel", From: "character/ivo", Rel: "mentions", To: "mara"},
		{NS: "novel", From: "mara", Rel: "appears_in", To: "scene-01"},
		// By file path: scene/scene-02.md has no id of its own, so its path is its id.
		{NS: "novel", From: "mara", Rel: "appears_in", To: "scene/scene-02"},
		// By last path element: "ivo" is the one file named ivo.md.
		{NS: "novel", From: "mara", Rel: "knows", To: "character/ivo"},
		{NS: "novel", From: "mara", Rel: "mentions", To: "character/ivo"},
		{NS: "novel", From: "mara", Rel: "mentions", To: "scene-01"},
	}
	if !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("links:\n got %+v\nwant %+v", links, wantLinks)
	}
}

func TestReadMarkdownDirResolution(t *testing.T) {
	fsys := mapFS(map[string]string{
		"a/dup.md":     "x",
		"b/dup.md":     "x",
		"c/other.md":   "---\nid: renamed\n---\n",
		"linker.md":    "[[dup]] [[a/dup]] [[other]] [[c/other]] [[renamed]] [[nowhere]] [[ spaced ]] [[#only-heading]] [[]]\n```\n[[in-code]]\n```\n[[after-code]]",
		"self/self.md": "[[self]]",
	})
	_, links, errs := ReadDir(fsys, "n")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	var got []string
	for _, l := range links {
		got = append(got, l.From+" -"+l.Rel+"-> "+l.To)
	}
	want := []string{
		"linker -mentions-> a/dup",
		"linker -mentions-> after-code", // dangling, kept as written
		"linker -mentions-> dup",        // ambiguous (a/dup, b/dup): kept as written
		"linker -mentions-> nowhere",
		"linker -mentions-> renamed", // by id, by path c/other, by last element other
		"linker -mentions-> spaced",
		"self/self -mentions-> self/self",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %q\nwant %q", got, want)
	}
}

func TestReadMarkdownDirBinary(t *testing.T) {
	fsys := mapFS(map[string]string{
		"img/logo.md": "---\nid: nope\n---\n\xff\xfe binary [[x]]",
		"root.md":     "\xc3\x28",
	})
	recs, links, errs := ReadDir(fsys, "n")
	if len(errs) != 0 || len(links) != 0 {
		t.Fatalf("errors %v links %v, want none", errs, links)
	}
	want := []store.Record{
		{NS: "n", ID: "img/logo", Kind: "img", Title: "logo", Binary: true},
		{NS: "n", ID: "root", Kind: "note", Title: "root", Binary: true},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("got %+v\nwant %+v", recs, want)
	}
}

func TestReadMarkdownDirErrors(t *testing.T) {
	cases := []struct {
		name    string
		file    string // content of scene/bad.md
		line    int
		want    string
		invalid bool
	}{
		{"not yaml", "---\nid: a\ntitle: [unclosed\n---\nbody", 3, "front matter is not valid YAML", false},
		{"bad indentation", "---\nid: a\n  kind: x\n: y\n---\n", 3, "front matter is not valid YAML: mapping values are not allowed", false},
		{"tab", "---\nid: a\n\tkind: x\n---\n", 3, "this line is indented with a tab, and YAML indents with spaces only", false},
		{"tab in list", "---\nid: a\ntags:\n  - x\n\t- y\n---\n", 5, "indented with a tab", false},
		{"flow map unclosed", "---\na: b\nc: {x: 1\n---\n", 3, "did not find expected ',' or '}'", false},
		{"list in map", "---\na: b\n- x\n---\n", 3, "did not find expected key", false},
		{"unknown anchor", "---\na: *nope\n---\n", 1, "unknown anchor 'nope'", false},
		{"unclosed", "---\nid: a\nbody without end", 1, `no closing "---" line`, false},
		{"only fence", "---", 1, `no closing "---" line`, false},
		{"list", "---\n- a\n- b\n---\n", 2, "must be a YAML mapping", false},
		{"scalar doc", "---\njust text\n---\n", 2, "must be a YAML mapping", false},
		{"id list", "---\nkind: x\nid: [a, b]\n---\n", 3, "id must be a single value, got a list", false},
		{"bad id", "---\nkind: x\nid: \"a\\u0001b\"\n---\n", 3, `id "a\x01b" has control character`, true},
		{"order not int", "---\norder: 2.5\n---\n", 2, `order "2.5" is not an integer`, false},
		{"pinned not bool", "---\npinned: yes\n---\n", 2, `pinned "yes" is not a boolean`, false},
		{"meta not map", "---\nid: a\nmeta: [x]\n---\n", 3, "meta must be a mapping", false},
		{"meta nested", "---\nmeta:\n  a:\n    b: c\n---\n", 4, "meta.a is a mapping", false},
		{"meta twice", "---\npov: a\nmeta:\n  pov: b\n---\n", 4, `meta key "pov" is given twice (also on line 2)`, false},
		{"key twice", "---\nid: a\nid: b\n---\n", 3, `key "id" is given twice`, false},
		// YAML also ends lines at a lone \r and at U+2028; an editor's line
		// numbers end at \n only, and the error points at those.
		{"key twice after lone CR", "---\nid: a\r\rid: b\n---\n", 2, `key "id" is given twice`, false},
		{"key twice after LS", "---\nid: a\u2028\u0085id: b\n---\n", 2, `key "id" is given twice`, false},
		{"other key map", "---\nextra:\n  x: 1\n---\n", 3, "extra is a mapping", false},
		{"links not map", "---\nlinks: [a]\n---\n", 2, "links must be a mapping", false},
		{"links bad target", "---\nlinks:\n  knows: [\"a\\tb\"]\n---\n", 3, `links.knows: target: invalid input: id "a\tb"`, true},
		{"links bad rel", "---\nlinks:\n  \" sp\": [a]\n---\n", 3, `relation " sp" has leading or trailing space`, true},
		{"bad tag", "---\nid: a\ntags: [ok, \"\"]\n---\n", 3, `tag "" is empty`, true},
		{"empty alias", "---\nid: sefa\naliases: [Sefa, \"\"]\n---\n", 3, `record "sefa" has an empty alias`, true},
		{"null alias", "---\nid: sefa\naliases:\n  - Sefa\n  -\n---\n", 4, `record "sefa" has an empty alias`, true},
		{"empty key", "---\nkeys: \"\"\n---\n", 2, `record "scene/bad" has an empty key`, true},
		{"aliases map", "---\naliases:\n  a: b\n---\n", 3, "aliases must be a list of names", false},
		{"bad kind", "---\nkind: \"a\\tb\"\n---\n", 2, `kind "a\tb" has control character`, true},
		{"wikilink bad target", "---\nid: a\n---\n\nline 5\nsee [[bad\ttarget]] here", 6, `wikilink [[bad	target]]`, true},
		{"wikilink no fm", "one\ntwo [[x\u0007y]]", 2, "wikilink", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := mapFS(map[string]string{"scene/bad.md": c.file, "scene/good.md": "fine"})
			recs, _, errs := ReadDir(fsys, "n")
			if len(errs) != 1 {
				t.Fatalf("file %q: got errors %v, want 1", c.file, errs)
			}
			e := errs[0]
			if e.File != "scene/bad.md" || e.Line != c.line {
				t.Errorf("file %q: error at %s:%d, want scene/bad.md:%d (%v)", c.file, e.File, e.Line, c.line, e)
			}
			if !strings.Contains(e.Error(), c.want) {
				t.Errorf("file %q: error %q does not say %q", c.file, e.Error(), c.want)
			}
			if got := errors.Is(e, store.ErrInvalid); got != c.invalid {
				t.Errorf("errors.Is(%v, store.ErrInvalid) = %v, want %v", e, got, c.invalid)
			}
			if len(recs) != 1 || recs[0].ID != "scene/good" {
				t.Errorf("good file not returned beside the bad one: %+v", recs)
			}
		})
	}
}

func TestReadMarkdownDirDuplicateAndNamespace(t *testing.T) {
	fsys := mapFS(map[string]string{
		"a.md":   "---\nid: same\n---\n",
		"b/c.md": "---\ntitle: t\nid: same\n---\n",
	})
	recs, _, errs := ReadDir(fsys, "n")
	if len(errs) != 1 || errs[0].File != "b/c.md" || errs[0].Line != 3 || !strings.Contains(errs[0].Error(), "already used by a.md") {
		t.Errorf("errors %v, want a duplicate error at b/c.md:3 naming a.md", errs)
	}
	if len(recs) != 1 || recs[0].Kind != "note" {
		t.Errorf("records %+v, want only a.md's", recs)
	}

	recs, _, errs = ReadDir(fsys, "Not Valid")
	if len(recs) != 0 || len(errs) != 1 || !errors.Is(errs[0], store.ErrInvalid) || !strings.Contains(errs[0].Error(), `"Not Valid"`) {
		t.Errorf("bad namespace: records %v errors %v, want one error quoting it", recs, errs)
	}
}

func TestReadMarkdownDirCRLFAndBOM(t *testing.T) {
	fsys := mapFS(map[string]string{
		"x.md": "\ufeff---\r\nid: x\r\ntitle: T\r\n---\r\n\r\nbody [[y]]\r\n",
		"y.md": "y",
	})
	recs, links, errs := ReadDir(fsys, "n")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if recs[0].ID != "x" || recs[0].Title != "T" || recs[0].Body != "body [[y]]\r\n" {
		t.Errorf("got %+v", recs[0])
	}
	if len(links) != 1 || links[0].To != "y" {
		t.Errorf("links %+v, want x -> y", links)
	}
}

func TestReadMarkdownDirBadFolderKind(t *testing.T) {
	fsys := mapFS(map[string]string{"notes /f.md": "no kind here", "notes /g.md": "---\nkind: note\n---\n"})
	recs, _, errs := ReadDir(fsys, "n")
	if len(errs) != 1 || errs[0].File != "notes /f.md" || !strings.Contains(errs[0].Error(), `the folder name gives invalid input: kind "notes "`) {
		t.Fatalf("errors %v, want one saying the folder name is not a valid kind", errs)
	}
	if len(recs) != 1 || recs[0].Kind != "note" {
		t.Errorf("records %+v, want g.md with its own kind", recs)
	}
}

func TestReadMarkdownDirEmptyWikilinks(t *testing.T) {
	fsys := mapFS(map[string]string{
		"a.md": "---\nid: a\n---\nsee [[]] and [[|label]]\n\n[[ ]] [[#own heading]] [[b]]\n```\n[[]]\n```\n",
		"b.md": "fine",
	})
	recs, links, errs, warns := ReadDirWarn(fsys, "n")
	if len(errs) != 0 || len(recs) != 2 {
		t.Fatalf("errors %v, %d records; want none and 2", errs, len(recs))
	}
	if len(links) != 1 || links[0].To != "b" {
		t.Errorf("links %+v, want only a -mentions-> b", links)
	}
	want := []string{"a.md:4: empty wikilink [[]]", "a.md:4: empty wikilink [[|label]]", "a.md:6: empty wikilink [[ ]]"}
	if len(warns) != len(want) {
		t.Fatalf("warnings %v, want %d (none for [[#own heading]] or inside code)", warns, len(want))
	}
	for i, w := range warns {
		if !strings.HasPrefix(w.Error(), want[i]) || !strings.Contains(w.Error(), "no link made") {
			t.Errorf("warning %d: %q, want it to start %q and say no link was made", i, w.Error(), want[i])
		}
	}
	if _, _, errs := ReadDir(fsys, "n"); len(errs) != 0 {
		t.Errorf("ReadMarkdownDir: warnings among errors: %v", errs)
	}
}
