package packet

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A record's own headings sit below the packet's "## Rank N" in md.
func TestDemoteHeadings(t *testing.T) {
	in := "# Title\n\nText #not a heading\n## Part\n   #### Deep\n##### Five\n###### Six\n####### seven\n#hashtag\n#\n```\n# in code\n```\n    # indented code\n~~~\n## tilde code\n~~~\n# After"
	want := "### Title\n\nText #not a heading\n#### Part\n   ###### Deep\n###### Five\n###### Six\n####### seven\n#hashtag\n###\n```\n# in code\n```\n    # indented code\n~~~\n## tilde code\n~~~\n### After"
	if got := demoteHeadings(in); got != want {
		t.Errorf("demoteHeadings:\n%s\nwant\n%s", got, want)
	}
	if got := demoteHeadings("no headings at all"); got != "no headings at all" {
		t.Errorf("plain text changed: %q", got)
	}
}

// A record's heading line in md: notes share the id's bracket; a titled
// record without notes opens with its id bare when the id reads as one
// word, and keeps the bracket otherwise.
func TestMDEntryHeading(t *testing.T) {
	for _, c := range []struct {
		e        Entry
		withKind bool
		want     string
	}{
		{Entry{ID: "D4:1", Kind: "turn", Title: "Caroline, 8 May", Text: "Hi!", hit: true}, false, "D4:1 Caroline, 8 May\nHi!\n"},
		{Entry{ID: "D4:2", Kind: "turn", Title: "Mel", Text: "Yes.", beside: true}, false, "D4:2 Mel\nYes.\n"},
		{Entry{ID: "D4:1", Kind: "turn", Title: "Caroline", Text: "Hi!", hit: true}, true, "[D4:1 turn] Caroline\nHi!\n"},
		{Entry{ID: "mara", Kind: "character", Why: "pov of scene-12", Title: "Mara Voss", Text: "x"}, true, "[mara character, pov of scene-12] Mara Voss\nx\n"},
		{Entry{ID: "t5", Kind: "turn", Text: "See you soon.", hit: true}, false, "[t5]\nSee you soon.\n"},
		{Entry{ID: "my note", Title: "A note", Text: "x", hit: true}, false, "[my note] A note\nx\n"},
		{Entry{ID: "1.", Title: "One", Text: "x", hit: true}, false, "[1.] One\nx\n"},
		{Entry{ID: "-x", Title: "Dash", Text: "x", hit: true}, false, "[-x] Dash\nx\n"},
		{Entry{ID: "#tag", Title: "Hash", Text: "x", hit: true}, false, "[#tag] Hash\nx\n"},
		{Entry{ID: "docs/a.md", Title: "A", Text: "x", hit: true}, false, "docs/a.md A\nx\n"},
	} {
		if got := mdEntry(c.e, c.withKind); got != c.want {
			t.Errorf("mdEntry(%q): %q, want %q", c.e.ID, got, c.want)
		}
	}
}

// oneLine's fast path returns exactly what joining the fields gives.
func TestOneLine(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\nb", "a\tb", "a\u00a0b", "a\u2003b", "Scene 12: The Fire", "é ü", "a\u0085b", "\xff b", "a\vb", "a\fb", "a\rb", "a\x1cb", "a\x1fb", "a \x00 b", "ab\x7f"} {
		want := strings.Join(strings.Fields(s), " ")
		if got := oneLine(s); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzOneLine(f *testing.F) {
	f.Add("a  b\n")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}

// A section heading: a packet's only section, its records of one kind,
// is headed by the kind alone; others by rank and the kind they share.
func TestMDSection(t *testing.T) {
	hits := []Entry{{ID: "m1", Rank: 3, Kind: "turn", hit: true}, {ID: "m2", Rank: 3, Kind: "turn", hit: true}}
	for _, c := range []struct {
		kind  string
		alone bool
		want  string
	}{
		{"turn", false, "\n## Rank 3 · turn\n"},
		{"turn", true, "\n## turn\n"},
		{"", true, "\n## Rank 3\n"},
		{"", false, "\n## Rank 3\n"},
	} {
		if got := mdSection(hits, c.kind, c.alone); got != c.want {
			t.Errorf("mdSection(kind %q, alone %t) = %q, want %q", c.kind, c.alone, got, c.want)
		}
	}
}

// A query with bytes that are not UTF-8 is echoed with U+FFFD in their
// place: every format's packet is valid UTF-8.
func TestInvalidUTF8QueryEchoedValid(t *testing.T) {
	env := excerptStore(t, "The ferryman hid the silver key.")
	for _, format := range validFormats {
		p, out := fxBuild(t, env, Request{NS: "chat", Query: "ferryman \xff\xfe key", Budget: 700, Profile: "agent", Format: format})
		if !utf8.Valid(out) {
			t.Errorf("%s: the packet is not valid UTF-8", format)
		}
		if !strings.Contains(p.Request.Query, "\uFFFD") || len(p.Records) == 0 {
			t.Errorf("%s: query %q, %d records; want U+FFFD in place of the bad bytes, and the hits", format, p.Request.Query, len(p.Records))
		}
	}
}

// The md frame does not echo the query: the caller has it, and in a
// small packet a long question took a record's room. The packet's request
// still carries it, and xml and json show it.
func TestMDLeavesQueryOut(t *testing.T) {
	env := excerptStore(t, "The ferryman hid the silver key.")
	query := "where did the ferryman hide the silver key"
	for _, c := range []struct {
		budget int
		format string
		echo   bool
	}{
		{500, "md", false},
		{4000, "md", false},
		{500, "xml", true},
		{500, "json", true},
	} {
		p, out := fxBuild(t, env, Request{NS: "chat", Query: query, Budget: c.budget, Profile: "agent", Format: c.format})
		if got := strings.Contains(string(out), query); got != c.echo || len(p.Records) == 0 {
			t.Errorf("%s at %d: query echoed %t, want %t; %d records", c.format, c.budget, got, c.echo, len(p.Records))
		}
		if p.Request.Query != query {
			t.Errorf("%s at %d: the packet's request has query %q", c.format, c.budget, p.Request.Query)
		}
	}
}
