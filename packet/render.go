package packet

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Entry is one record included in a packet.
type Entry struct {
	ID    string `json:"id"`
	Kind  string `json:"kind,omitempty"`
	Title string `json:"title,omitempty"`
	// Rank is the record's rank in the profile's table (1 is the most
	// important).
	Rank int `json:"rank"`
	// Why says which rule brought it in: "focus", "hit for 'fire'".
	Why string `json:"why"`
	// Form is "full" (the body), "summary" (the summary stands in for the
	// body: ladder step 2 or 4) or "title" (a history entry without
	// summary, collapsed to its title by step 4).
	Form string `json:"form"`
	// Text is what the packet shows: the body, the summary, or "".
	Text string `json:"text"`
	// Truncated is how many tokens of the body were cut (overflow action
	// "truncate"); 0 when whole.
	Truncated int `json:"truncated,omitempty"`
	// Tokens is the entry's estimated cost in the packet.
	Tokens int `json:"tokens"`
	// Fetch is the command that prints the whole record; set when the
	// packet does not show it whole.
	Fetch string `json:"fetch,omitempty"`
	// hit is set for a search hit: markdown says "hits, best first" once
	// in the section heading instead of "hit N" in every record's.
	hit bool
}

// Note is a deferral note: a record left out of the packet, or shown
// shortened (its summary, its title, or its body truncated), and how to
// fetch it.
type Note struct {
	ID   string `json:"id"`
	Kind string `json:"kind,omitempty"`
	Rank int    `json:"rank"`
	// Step is the ladder step that deferred it: 1 drop, 2 summary, 3
	// narrow hops, 4 summarise history; 0 when the budget is below the
	// frame.
	Step int `json:"step"`
	// Action is "dropped", "summary", "narrowed", "collapsed" or
	// "truncated" (kept, cut at a token boundary: its kind's overflow
	// action is truncate).
	Action string `json:"action"`
	// Tokens is what the record would have cost in full.
	Tokens int `json:"tokens"`
	// Saves is what the packet saved by showing a shorter form (summary,
	// collapsed and truncated notes); the tokens freed.
	Saves int `json:"saves,omitempty"`
	// Reason says why, in the words of the report.
	Reason string `json:"reason"`
	// Fetch is the command that prints the record.
	Fetch string `json:"fetch"`
}

// NoteGroup counts the deferral notes of one kind that the rendered
// packet does not list one by one: when the notes would take more than
// Config.NoteShare percent of the budget, the most important are listed
// and the rest are grouped. Packet.Deferred still holds every note.
type NoteGroup struct {
	// Kind is the kind of the records; "" for the line that gathers the
	// kinds beyond the first five (Kinds says how many).
	Kind  string `json:"kind"`
	Kinds int    `json:"kinds,omitempty"`
	Count int    `json:"count"`
	// Tokens is what the records would have cost in full.
	Tokens           int `json:"tokens"`
	MinRank, MaxRank int `json:"-"`
	// Fetch is the command that lists the records of the kind.
	Fetch string `json:"fetch"`
}

// MarshalJSON keeps the rank range readable: "ranks": "4" or "4-6".
func (g NoteGroup) MarshalJSON() ([]byte, error) {
	type plain NoteGroup
	return json.Marshal(struct {
		plain
		Ranks string `json:"ranks"`
	}{plain(g), g.ranks()})
}

func (g NoteGroup) ranks() string {
	if g.MinRank == g.MaxRank {
		return strconv.Itoa(g.MinRank)
	}
	return fmt.Sprintf("%d-%d", g.MinRank, g.MaxRank)
}

func listCmd(ns, kind string) string {
	if kind == "" {
		return "lore ls --ns " + ns
	}
	return "lore ls --ns " + ns + " --kind " + shellQuote(kind)
}

// what names the records of a group: "style" or "records of 4 other kinds".
func (g NoteGroup) what() string {
	if g.Kind == "" {
		return fmt.Sprintf("records of %d other kinds", g.Kinds)
	}
	return g.Kind
}

// freed is the tokens a note gave back to the budget.
func (n Note) freed() int {
	if n.Action == "summary" || n.Action == "collapsed" || n.Action == "truncated" {
		return n.Saves
	}
	return n.Tokens
}

// placeholderHash stands in for the hash while fitting: a real digest, so
// it counts like one.
var placeholderHash = func() string {
	s := sha256.Sum256([]byte("lore packet"))
	return "sha256:" + hex.EncodeToString(s[:])
}()

// view is what a renderer needs: the packet with its stated total.
type view struct {
	p      *Packet
	tokens int
	hash   string
}

func render(format string, v view) string {
	switch format {
	case "xml":
		return renderXML(v)
	case "json":
		return renderJSON(v)
	default:
		return renderMD(v)
	}
}

// totalLine is the line that carries the token total and the hash. The
// hash covers everything but this line, so the total (which depends on
// the whole output) and the hash never depend on each other.
func totalLine(format string, v view) string {
	switch format {
	case "xml":
		return fmt.Sprintf("<total tokens=\"%d\" budget=\"%d\" hash=\"%s\"/>\n", v.tokens, v.p.Budget, v.hash)
	case "json":
		return fmt.Sprintf("  \"total\": {\"tokens\": %d, \"budget\": %d, \"percent\": %d, \"hash\": %q},\n", v.tokens, v.p.Budget, percent(v.tokens, v.p.Budget), v.hash)
	default:
		return fmt.Sprintf("Tokens: %s of %s · %s\n", thousands(v.tokens), thousands(v.p.Budget), shortHash(v.hash))
	}
}

// shortHash is the hash as the markdown packet prints it: enough hex to
// tell two packets apart at a glance (Packet.Hash keeps it whole).
func shortHash(h string) string {
	if len(h) > len("sha256:")+16 {
		return h[:len("sha256:")+16]
	}
	return h
}

// totalPrefix starts the total line of format, at the start of a line.
func totalPrefix(format string) string {
	switch format {
	case "xml":
		return "\n<total "
	case "json":
		return "\n  \"total\": "
	default:
		return "\nTokens: "
	}
}

// withoutTotal cuts the total line out of a rendered packet.
func withoutTotal(format, s string) (string, bool) {
	i := strings.Index(s, totalPrefix(format))
	if i < 0 {
		return s, false
	}
	i++ // keep the newline before the line
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return s, false
	}
	return s[:i] + s[i+j+1:], true
}

// finalize renders v with its real content hash: sha256 of the rendered
// bytes without the total line.
func finalize(format string, v view) (string, string) {
	v.hash = ""
	content, _ := withoutTotal(format, render(format, v))
	sum := sha256.Sum256([]byte(content))
	v.hash = "sha256:" + hex.EncodeToString(sum[:])
	return render(format, v), v.hash
}

// ContentHash recomputes the hash of a rendered packet: sha256 of its
// bytes without the line that states the token total and the hash. It
// equals the hash the packet carries.
func ContentHash(format string, rendered []byte) (string, error) {
	if format == "" {
		format = "md"
	}
	if !slices.Contains(validFormats, format) {
		return "", fmt.Errorf("%w %q: want md, xml or json", ErrFormat, format)
	}
	content, ok := withoutTotal(format, string(rendered))
	if !ok {
		return "", fmt.Errorf("%w: no total line in the %s packet", ErrInvalidRequest, format)
	}
	sum := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// title is what a packet calls itself.
func (p *Packet) title() string {
	switch {
	case len(p.Request.Focus) > 0:
		return strings.Join(p.Request.Focus, ", ")
	case p.Request.Query != "":
		return "'" + p.Request.Query + "'"
	default:
		return p.Request.NS
	}
}

func percent(used, budget int) int {
	if budget <= 0 {
		return 0
	}
	return used * 100 / budget
}

// thousands formats n with commas: 19859 -> "19,859".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func fetchCmd(ns, id string) string {
	return defaultGetCommand + " " + ns + " " + shellQuote(id)
}

// shellQuote quotes id for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+,=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ---- markdown

// The markdown packet spends its tokens on content: the request once, one
// line for the total, one line of contents by kind, then the records in
// sections by rank (the kind in the section heading when all its records
// share it), each under a one-line heading of id, why and title, then the
// deferral notes.
func renderMD(v view) string {
	p := v.p
	var b strings.Builder
	fmt.Fprintf(&b, "# Context Packet: %s (%s)\n", p.Request.NS, p.Request.Profile)
	b.WriteString(mdRequest(p))
	b.WriteString(totalLine("md", v))
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "> Warning: %s\n", w)
	}
	if len(p.Records) > 0 {
		fmt.Fprintf(&b, "Inside: %s\n", inside(p.Records))
		for i, e := range p.Records {
			if i == 0 || p.Records[i-1].Rank != e.Rank {
				b.WriteString(mdSection(p.Records[i:], e.Rank))
			}
			b.WriteString(mdEntry(e, sectionKind(p.Records[i:], e.Rank) == ""))
		}
	}
	if len(p.Deferred) > 0 {
		b.WriteString(mdDeferred(p))
	}
	return b.String()
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
		fmt.Fprintf(&b, "\n## Deferred: %d %s %s, rank %s, %s tokens%s\n", g.Count, g.what(), noun, g.ranks(), thousands(g.Tokens), explainHint)
		return b.String()
	}
	fmt.Fprintf(&b, "\n## Deferred: %s, %s tokens", records(len(p.Deferred)), thousands(deferredTokens(p.Deferred)))
	if len(p.Grouped) > 0 {
		b.WriteString(explainHint)
	}
	b.WriteByte('\n')
	for _, n := range p.listed {
		b.WriteString(mdNote(n))
	}
	for _, g := range p.Grouped {
		b.WriteString(mdGroup(g))
	}
	return b.String()
}

// explainHint is the handle of grouped notes: --explain lists every
// candidate of the request, each deferred one with its reason.
const explainHint = " · this request with `--explain` lists them"

// mdRequest states the request once: the query, the focus, and the
// options that differ from the defaults.
func mdRequest(p *Packet) string {
	r := p.Request
	var b strings.Builder
	if r.Query != "" {
		fmt.Fprintf(&b, "Query: %s\n", oneLine(r.Query))
	}
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
	if r.Task != "" {
		opts = append(opts, "task "+r.Task)
	}
	if len(r.When) > 0 {
		opts = append(opts, "when "+strings.Join(r.When, ","))
	}
	if r.Hops > 1 {
		opts = append(opts, fmt.Sprintf("hops %d", r.Hops))
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

// sectionKind is the kind every record of rank shares at the start of es
// (the section), or "" when they differ.
func sectionKind(es []Entry, rank int) string {
	kind := ""
	for i, e := range es {
		if e.Rank != rank {
			break
		}
		if i == 0 {
			kind = e.Kind
		} else if e.Kind != kind {
			return ""
		}
	}
	return kind
}

func mdSection(es []Entry, rank int) string {
	head := fmt.Sprintf("\n## Rank %d", rank)
	if k := sectionKind(es, rank); k != "" {
		head += " · " + k
	}
	for _, e := range es {
		if e.Rank != rank {
			break
		}
		if e.hit {
			head += " · " + hitsLabel
			break
		}
	}
	return head + "\n"
}

// hitsLabel names the search hits of a section, whose headings then
// omit "hit N".
const hitsLabel = "hits for the query, best first"

// mdEntry is one record: a bracketed id with its kind (unless the section
// names it) and why, the title on the same line, then its text.
func mdEntry(e Entry, withKind bool) string {
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(e.ID)
	sep := " "
	if withKind && e.Kind != "" {
		b.WriteString(sep + e.Kind)
		sep = ", "
	}
	if e.Why != "" && !e.hit {
		b.WriteString(sep + e.Why)
	}
	b.WriteString("]")
	if e.Title != "" && e.Title != e.ID {
		b.WriteString(" " + oneLine(e.Title))
	}
	b.WriteByte('\n')
	switch e.Form {
	case "summary":
		fmt.Fprintf(&b, "Summary: %s\nFull text: %s\n", strings.TrimRight(e.Text, "\n"), code(e.Fetch))
	case "title":
		fmt.Fprintf(&b, "Collapsed; full text: %s\n", code(e.Fetch))
	default:
		if t := strings.TrimRight(e.Text, "\n"); t != "" {
			b.WriteString(t)
			b.WriteByte('\n')
		}
		if e.Truncated > 0 {
			fmt.Fprintf(&b, "Full text: %s\n", code(e.Fetch))
		}
	}
	return b.String()
}

func mdNote(n Note) string {
	return fmt.Sprintf("- %s %s · rank %d · %s tokens · %s · %s\n",
		code(n.ID), n.Kind, n.Rank, thousands(n.Tokens), n.Reason, code(n.Fetch))
}

// code is s as markdown inline code, with a fence longer than any run
// of backticks inside it.
func code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
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
	return fence + " " + s + " " + fence
}

func mdGroup(g NoteGroup) string {
	return fmt.Sprintf("- %d more %s · rank %s · %s tokens\n", g.Count, g.what(), g.ranks(), thousands(g.Tokens))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ---- xml

func renderXML(v view) string {
	p := v.p
	r := p.Request
	var b strings.Builder
	fmt.Fprintf(&b, "<packet ns=%s profile=%s encoding=%s>\n", xattr(r.NS), xattr(r.Profile), xattr(r.Encoding))
	b.WriteString(totalLine("xml", v))
	b.WriteString("<request")
	if len(r.Focus) > 0 {
		fmt.Fprintf(&b, " focus=%s", xattr(strings.Join(r.Focus, " ")))
	}
	if r.Query != "" {
		fmt.Fprintf(&b, " query=%s", xattr(r.Query))
	}
	if r.Task != "" {
		fmt.Fprintf(&b, " task=%s", xattr(r.Task))
	}
	if len(r.When) > 0 {
		fmt.Fprintf(&b, " when=%s", xattr(strings.Join(r.When, ",")))
	}
	fmt.Fprintf(&b, " hops=\"%d\"", r.Hops)
	if r.AsOf > 0 {
		fmt.Fprintf(&b, " as-of=\"%d\"", r.AsOf)
	}
	if r.Scope != "" {
		fmt.Fprintf(&b, " scope=%s", xattr(r.Scope))
	}
	if len(r.Kinds) > 0 {
		fmt.Fprintf(&b, " kinds=%s", xattr(strings.Join(r.Kinds, ",")))
	}
	if len(r.ExcludeKinds) > 0 {
		fmt.Fprintf(&b, " exclude-kinds=%s", xattr(strings.Join(r.ExcludeKinds, ",")))
	}
	b.WriteString("/>\n")
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "<warning>%s</warning>\n", xtext(w))
	}
	if len(p.Records) > 0 {
		b.WriteString("<contents>\n")
		for _, e := range p.Records {
			b.WriteString(xmlIndexLine(e))
		}
		b.WriteString("</contents>\n")
		for _, e := range p.Records {
			b.WriteString(xmlEntry(e))
		}
	}
	if len(p.Deferred) > 0 {
		b.WriteString("<deferred>\n")
		for _, n := range p.listed {
			b.WriteString(xmlNote(n))
		}
		for _, g := range p.Grouped {
			b.WriteString(xmlGroup(g))
		}
		b.WriteString("</deferred>\n")
	}
	b.WriteString("</packet>\n")
	return b.String()
}

func xmlIndexLine(e Entry) string {
	return fmt.Sprintf("<item id=%s kind=%s rank=\"%d\" form=%s/>\n", xattr(e.ID), xattr(e.Kind), e.Rank, xattr(e.Form))
}

func xmlEntry(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<record id=%s kind=%s rank=\"%d\" form=%s", xattr(e.ID), xattr(e.Kind), e.Rank, xattr(e.Form))
	if e.Title != "" {
		fmt.Fprintf(&b, " title=%s", xattr(oneLine(e.Title)))
	}
	fmt.Fprintf(&b, " why=%s", xattr(e.Why))
	if e.Truncated > 0 {
		fmt.Fprintf(&b, " truncated=\"%d\"", e.Truncated)
	}
	if e.Fetch != "" {
		fmt.Fprintf(&b, " fetch=%s", xattr(e.Fetch))
	}
	b.WriteString(">\n")
	if t := strings.TrimRight(e.Text, "\n"); t != "" {
		b.WriteString(xtext(t))
		b.WriteString("\n")
	}
	b.WriteString("</record>\n")
	return b.String()
}

func xmlNote(n Note) string {
	return fmt.Sprintf("<note id=%s kind=%s rank=\"%d\" step=\"%d\" action=%s tokens=\"%d\" reason=%s fetch=%s/>\n",
		xattr(n.ID), xattr(n.Kind), n.Rank, n.Step, xattr(n.Action), n.Tokens, xattr(n.Reason), xattr(n.Fetch))
}

func xmlGroup(g NoteGroup) string {
	kind := "kind=" + xattr(g.Kind)
	if g.Kind == "" {
		kind = fmt.Sprintf("kinds=\"%d\"", g.Kinds)
	}
	return fmt.Sprintf("<more %s count=\"%d\" ranks=\"%s\" tokens=\"%d\" fetch=%s/>\n", kind, g.Count, g.ranks(), g.Tokens, xattr(g.Fetch))
}

var xmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
var xmlAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#10;", "\t", "&#9;", "\r", "&#13;")

func xtext(s string) string { return xmlTextEscaper.Replace(xmlChars(s)) }
func xattr(s string) string { return `"` + xmlAttrEscaper.Replace(xmlChars(s)) + `"` }

// xmlChars replaces the characters XML 1.0 cannot carry at all (most
// control characters, even as references) by U+FFFD.
func xmlChars(s string) string {
	if strings.IndexFunc(s, badXMLChar) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if badXMLChar(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func badXMLChar(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF
}

// ---- json

// jsonPacket is the JSON form of a packet. Field names are stable:
//
//	total      {tokens, budget, percent, hash}: the whole packet's count,
//	           the limit, and "sha256:<hex>" of the rendered bytes without
//	           this line
//	request    the normalized request (ns, query, focus, budget, ...)
//	frame_only true when the budget is below the frame
//	warnings   strings
//	records    included records: id, kind, title, rank, why, form, text,
//	           truncated, tokens, fetch
//	deferred   deferral notes: id, kind, rank, step, action, tokens, saves,
//	           reason, fetch
//	deferred_more  notes not listed one by one, by kind: kind, count,
//	           tokens, ranks, fetch (absent when every note is listed)
type jsonPacket struct {
	Request      Request     `json:"request"`
	FrameOnly    bool        `json:"frame_only"`
	Warnings     []string    `json:"warnings"`
	Records      []Entry     `json:"records"`
	Deferred     []Note      `json:"deferred"`
	DeferredMore []NoteGroup `json:"deferred_more,omitempty"`
}

func renderJSON(v view) string {
	p := v.p
	jp := jsonPacket{Request: p.Request, FrameOnly: p.FrameOnly, Warnings: p.Warnings, Records: p.Records, Deferred: p.listed, DeferredMore: p.Grouped}
	if jp.Warnings == nil {
		jp.Warnings = []string{}
	}
	if jp.Records == nil {
		jp.Records = []Entry{}
	}
	if jp.Deferred == nil {
		jp.Deferred = []Note{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jp); err != nil {
		// Only strings, ints and bools: encoding cannot fail.
		panic(fmt.Sprintf("packet: encode json: %v", err))
	}
	// The total line goes first, on a line of its own.
	return "{\n" + totalLine("json", v) + strings.TrimPrefix(buf.String(), "{\n")
}

// jsonFragment is an entry or note as it costs inside the records or
// deferred array.
func jsonFragment(x any) string {
	b, err := json.MarshalIndent(x, "    ", "  ")
	if err != nil {
		panic(fmt.Sprintf("packet: encode json: %v", err))
	}
	return "    " + string(b) + ",\n"
}
