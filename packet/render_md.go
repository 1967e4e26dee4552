package packet

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lorekeep/lore/internal/numfmt"
)

// ---- markdown

// The markdown packet spends its tokens on content: the request once, one
// line for the total, one line of contents by kind, then the records in
// sections by rank (the kind in the section heading when all its records
// share it), each under a one-line heading of id, why and title, then the
// deferral notes.
//
// The frame is the same at every budget. It once grew from 2,000 tokens
// (the profile's name, what the deferred records would cost, "hits, best
// first" on a section), and a packet of 2,000 then lacked records one of
// 1,999 held: 160 of 759 questions on short turns, 24 of 143 on long
// chats (docs/bench-history, 2026-12-07).
func renderMD(v view) string {
	p := v.p
	var b strings.Builder
	fmt.Fprintf(&b, "# Context Packet: %s\n", p.Request.NS)
	b.WriteString(mdRequest(p))
	b.WriteString(totalLine("md", v))
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "> Warning: %s\n", w)
	}
	if len(p.Records) > 0 {
		size := 0
		for _, e := range p.Records {
			size += len(e.ID) + len(e.Title) + len(e.Text) + 8
		}
		b.Grow(size + 256) // the frame and headings on top of the records
		if sectionLen(p.Records) < len(p.Records) {
			// One section's heading says what is inside already.
			fmt.Fprintf(&b, "Inside: %s\n", inside(p.Records))
		}
		if slices.ContainsFunc(p.Records, func(e Entry) bool { return e.Form == formExcerpt }) {
			b.WriteString(mdExcerptLine(p.Request.NS))
		}
		shared := "" // the kind the section heading names, if any
		for i, e := range p.Records {
			if i == 0 || p.Records[i-1].Rank != e.Rank {
				section := p.Records[i:]
				section = section[:sectionLen(section)]
				shared = sectionKind(section)
				b.WriteString(mdSection(section, shared, len(section) == len(p.Records)))
			}
			writeMDEntry(&b, e, shared == "")
		}
	}
	if len(p.Deferred) > 0 {
		b.WriteString(mdDeferred(p))
	}
	if len(p.Superseded) > 0 {
		b.WriteString(mdSuperseded(p.Superseded))
	}
	return b.String()
}

// mdSuperseded names the records left out as superseded: the first
// maxSupersededLines one a line, the rest counted.
func mdSuperseded(ss []Superseded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Superseded: %s\n", records(len(ss)))
	for i, s := range ss {
		if i == maxSupersededLines {
			fmt.Fprintf(&b, "- %d more: `lore why ID` names the record that supersedes each\n", len(ss)-i)
			break
		}
		fmt.Fprintf(&b, "- %s %s · by %s on %s · %s\n", code(s.ID), s.Kind, code(s.By), s.On, code(s.Fetch))
	}
	return b.String()
}

// mdExcerptLine is the frame's line for a packet that shows excerpts
// (their text marks each cut with a gap marker, their heading says
// "excerpt"): one handle for every record shown in part, rather than one
// a record (the entries in xml and json carry theirs, and the tokens
// left out).
func mdExcerptLine(ns string) string {
	return "Whole records: " + code(fetchCmd(ns, "ID")) + "\n"
}

// mdDeferred is the deferral section: the notes listed one by one, then
// the groups; when the notes form one group alone, its line is the
// heading.
func mdDeferred(p *Packet) string {
	var b strings.Builder
	if len(p.listed) == 0 && len(p.Grouped) == 1 {
		g := p.Grouped[0]
		noun := "records"
		if g.Count == 1 {
			noun = "record"
		}
		// What the records would cost is in the report and --explain;
		// the packet keeps its tokens for records.
		fmt.Fprintf(&b, "\n## Deferred: %d %s %s (`%s`)\n", g.Count, g.what(), noun, g.handle())
		return b.String()
	}
	fmt.Fprintf(&b, "\n## Deferred: %s, %s tokens", records(len(p.Deferred)), numfmt.Thousands(deferredTokens(p.Deferred)))
	if len(p.Grouped) > 0 {
		b.WriteString(explainHint)
	}
	b.WriteByte('\n')
	for _, n := range p.listed {
		writeMDNote(&b, n)
	}
	for _, g := range p.Grouped {
		b.WriteString(mdGroup(g))
	}
	return b.String()
}

// explainHint is the handle of grouped notes: the request with
// --deferred and the kinds a group line names lists exactly its records,
// each with its reason and fetch command (NoteGroup.handle).
const explainHint = "; `--deferred KIND` lists a group"

// mdRequest states the request: the focus, and the options that differ
// from the defaults. Not the query: it is the caller's own text, which
// the caller has, and echoed it took a record's room in a small packet
// (15 to 50 tokens of 500 for a long question); shown from some budget
// on, it was a jump in the frame there that pushed out records a budget
// a token smaller held. xml and json carry it in their request.
func mdRequest(p *Packet) string {
	r := p.Request
	var b strings.Builder
	if len(r.Focus) > 0 {
		focus := make([]string, len(r.Focus))
		for i, f := range r.Focus {
			focus[i] = code(f)
		}
		fmt.Fprintf(&b, "Focus: %s\n", strings.Join(focus, ", "))
	}
	if opts := requestOptions(r); len(opts) > 0 {
		fmt.Fprintf(&b, "Request: %s\n", strings.Join(opts, " · "))
	}
	return b.String()
}

// requestOptions lists the request's options that are not defaults.
func requestOptions(r Request) []string {
	var opts []string
	if r.VectorDims > 0 {
		opts = append(opts, fmt.Sprintf("query vector of %d dimensions", r.VectorDims))
	}
	if r.Task != "" {
		opts = append(opts, "task "+r.Task)
	}
	if len(r.When) > 0 {
		opts = append(opts, "when "+strings.Join(r.When, ","))
	}
	if r.Hops > 1 {
		opts = append(opts, fmt.Sprintf("hops %d", r.Hops))
	}
	if r.At != "" {
		opts = append(opts, "at "+r.At)
	}
	if r.AsOf > 0 {
		opts = append(opts, fmt.Sprintf("as of %d", r.AsOf))
	}
	if r.Scope != "" {
		opts = append(opts, "scope "+r.Scope)
	}
	if len(r.Kinds) > 0 {
		opts = append(opts, "kinds "+strings.Join(r.Kinds, ","))
	}
	if len(r.ExcludeKinds) > 0 {
		opts = append(opts, "excluding "+strings.Join(r.ExcludeKinds, ","))
	}
	return opts
}

// inside is the contents line: the records counted by kind, the most
// frequent kind first.
func inside(es []Entry) string {
	counts := map[string]int{}
	for _, e := range es {
		counts[e.Kind]++
	}
	kinds := sortedKeys(counts)
	slices.SortStableFunc(kinds, func(x, y string) int { return counts[y] - counts[x] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		if k == "" {
			k = "(no kind)"
		}
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	if len(kinds) == 1 {
		return fmt.Sprintf("%d %s records", len(es), kinds[0])
	}
	return records(len(es)) + ": " + strings.Join(parts, ", ")
}

func deferredTokens(ns []Note) int {
	t := 0
	for _, n := range ns {
		t += n.Tokens
	}
	return t
}

// sectionLen is how many records at the start of es share the first one's
// rank: its section.
func sectionLen(es []Entry) int {
	n := 1
	for n < len(es) && es[n].Rank == es[0].Rank {
		n++
	}
	return n
}

// sectionKind is the kind every record of a section shares, or "" when
// they differ.
func sectionKind(section []Entry) string {
	for _, e := range section[1:] {
		if e.Kind != section[0].Kind {
			return ""
		}
	}
	return section[0].Kind
}

// mdSection is a section's heading: its rank and the kind its records
// share (kind "" for none); when the section is the packet's only one
// (alone) and its records share a kind, that kind alone: a rank with
// nothing beside it tells a reader nothing.
func mdSection(section []Entry, kind string, alone bool) string {
	if alone && kind != "" {
		return "\n## " + kind + "\n"
	}
	head := fmt.Sprintf("\n## Rank %d", section[0].Rank)
	if kind != "" {
		head += " · " + kind
	}
	return head + "\n"
}

// mdEntry is one record: a heading line of id, its kind (unless the
// section names it) and why, and title, then its text (writeMDEntry).
func mdEntry(e Entry, withKind bool) string {
	var b strings.Builder
	writeMDEntry(&b, e, withKind)
	return b.String()
}

// writeMDEntry writes record e to b, for mdEntry and renderMD, which
// renders every record of a packet on each re-count. The id and its
// notes share a bracket ("[mara character, pov of scene-12] Mara"). A
// titled record with no notes (a hit, or a neighbour beside its hit)
// opens with its id bare where that reads as one word ("D4:1 Caroline"):
// a token less than "[D4:1]", and the heading is most of a short
// record's overhead. With no title the bracket stays, to mark the line.
//
// b is a *strings.Builder for a render and a reused *bytes.Buffer for
// pricing (measure.go): both write the same bytes.
func writeMDEntry(b textWriter, e Entry, withKind bool) {
	kind := withKind && e.Kind != ""
	why := e.Why != "" && !e.hit && !e.beside
	titled := e.Title != "" && e.Title != e.ID
	switch {
	case kind || why:
		b.WriteByte('[')
		b.WriteString(e.ID)
		if kind {
			b.WriteByte(' ')
			b.WriteString(e.Kind)
		}
		if kind && why {
			b.WriteString(",")
		}
		if why {
			b.WriteByte(' ')
			b.WriteString(e.Why)
		}
		b.WriteString("]")
	case titled && bareID(e.ID):
		b.WriteString(e.ID)
	default:
		b.WriteByte('[')
		b.WriteString(e.ID)
		b.WriteByte(']')
	}
	if titled {
		b.WriteByte(' ')
		b.WriteString(oneLine(e.Title))
	}
	if e.Form == formExcerpt {
		b.WriteString(" · excerpt") // the tokens left out: json, xml and --explain
	}
	for _, c := range e.Contradicts {
		b.WriteString(" · contradicts ")
		b.WriteString(c)
	}
	b.WriteByte('\n')
	switch e.Form {
	case "summary":
		b.WriteString("Summary: ")
		b.WriteString(strings.TrimRight(e.Text, "\n"))
		b.WriteString("\nFull text: ")
		writeCode(b, e.Fetch)
		b.WriteByte('\n')
	case "title":
		b.WriteString("Collapsed; full text: ")
		writeCode(b, e.Fetch)
		b.WriteByte('\n')
	default:
		if t := strings.TrimRight(e.Text, "\n"); t != "" {
			b.WriteString(demoteHeadings(t))
			b.WriteByte('\n')
		}
		if e.Truncated > 0 {
			b.WriteString("Full text: ")
			writeCode(b, e.Fetch)
			b.WriteByte('\n')
		}
	}
}

// bareID reports whether id can open a heading line unmarked: letters, digits
// and "-_.:/@" only, starting with a letter or digit and not ending in
// "." (so "1." is not a list item).
func bareID(id string) bool {
	if id == "" || strings.HasSuffix(id, ".") {
		return false
	}
	for i, r := range id {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case i > 0 && strings.ContainsRune("-_.:/@", r):
		default:
			return false
		}
	}
	return true
}

func mdNote(n Note) string {
	var b strings.Builder
	writeMDNote(&b, n)
	return b.String()
}

// writeMDNote writes note n's line to b (see writeMDEntry).
func writeMDNote(b textWriter, n Note) {
	b.WriteString("- ")
	writeCode(b, n.ID)
	b.WriteByte(' ')
	b.WriteString(n.Kind)
	b.WriteString(" · rank ")
	b.WriteString(strconv.Itoa(n.Rank))
	b.WriteString(" · ")
	b.WriteString(numfmt.Thousands(n.Tokens))
	b.WriteString(" tokens · ")
	b.WriteString(n.Reason)
	b.WriteString(" · ")
	writeCode(b, n.Fetch)
	b.WriteByte('\n')
}

// textWriter is what the markdown writers write to.
type textWriter interface {
	io.StringWriter
	io.ByteWriter
}

// code is s as markdown inline code, with a fence longer than any run
// of backticks inside it.
func code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	var b strings.Builder
	writeCode(&b, s)
	return b.String()
}

// writeCode writes code(s) to b.
func writeCode(b textWriter, s string) {
	if !strings.Contains(s, "`") {
		b.WriteByte('`')
		b.WriteString(s)
		b.WriteByte('`')
		return
	}
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	b.WriteString(fence)
	b.WriteByte(' ')
	b.WriteString(s)
	b.WriteByte(' ')
	b.WriteString(fence)
}

func mdGroup(g NoteGroup) string {
	return fmt.Sprintf("- %d more %s · rank %s · %s tokens\n", g.Count, g.what(), g.ranks(), numfmt.Thousands(g.Tokens))
}

// oneLine is s on one line: its runs of white space as one space, none
// at either end. Most titles are one line already, and are returned as
// they are without the copy (a packet renders its titles on every
// re-count).
func oneLine(s string) string {
	if isOneLine(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// isOneLine reports whether oneLine would leave s as it is: no white
// space but single spaces between words. Every entry's title is asked on
// every render, so ASCII is read byte by byte, without decoding runes.
func isOneLine(s string) bool {
	prevSpace := true // so that a leading space fails
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return isOneLineRunes(s)
		}
		space := c == ' ' || '\t' <= c && c <= '\r' // unicode.IsSpace's ASCII
		if space && (c != ' ' || prevSpace) {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}

// isOneLineRunes is isOneLine rune by rune, for text beyond ASCII.
func isOneLineRunes(s string) bool {
	prevSpace := true
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (r != ' ' || prevSpace) {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}

// demoteHeadings moves a record's own markdown headings below the
// packet's ("# Context Packet", then "## Rank N"): "# Title" becomes
// "### Title", and so on down to "######", outside fenced code. Other
// lines, and the text of xml and json packets, are left as they are.
func demoteHeadings(text string) string {
	if !strings.Contains(text, "#") {
		return text
	}
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		t := strings.TrimLeft(line, " ")
		indent := len(line) - len(t)
		if indent < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			fenced = !fenced
			continue
		}
		if fenced || indent >= 4 || !strings.HasPrefix(t, "#") {
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, "#"))
		if n > 6 || n < len(t) && t[n] != ' ' && t[n] != '\t' {
			continue // "#hashtag" or "#######" is no heading
		}
		lines[i] = line[:indent] + strings.Repeat("#", min(n+2, 6)) + t[n:]
	}
	return strings.Join(lines, "\n")
}
