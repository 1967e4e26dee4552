package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
)

// packRenderCounted renders the pack and counts it whole. The pack states
// its own token total, so it is rendered until the stated total is the
// count of the rendering, starting from guess (the digits rarely move, so
// a good guess costs one count). If the count keeps flipping between two
// values, the larger is stated and the returned count is the true one.
func packRenderCounted(p *Pack, format string, c budget.Counter, guess int) ([]byte, int) {
	stated := guess
	var out []byte
	var n int
	hi := 0
	for range 4 {
		out = packRender(p, format, stated)
		n = c.Count(string(out))
		if n == stated {
			return out, n
		}
		hi = max(hi, n)
		stated = n
	}
	out = packRender(p, format, hi)
	return out, c.Count(string(out))
}

// packLastCounter remembers the last text counted through it, so that the
// engine's re-count of a rendering the pack has just counted is free.
type packLastCounter struct {
	budget.Counter
	text string
	n    int
}

func (m *packLastCounter) Count(s string) int {
	if len(s) == len(m.text) && s == m.text {
		return m.n
	}
	n := m.Counter.Count(s)
	m.text, m.n = s, n
	return n
}

// packRenderFrame is the pack with no file and no note: what a budget
// must at least hold.
func packRenderFrame(p *Pack) string {
	v := *p
	v.Files, v.Deferred, v.FrameOnly, v.form = nil, nil, false, frameWhole
	v.Hash = packHash(&v)
	return string(packRender(&v, p.Format, 0))
}

// packRender renders the pack in format, stating tokens as its total.
func packRender(p *Pack, format string, tokens int) []byte {
	if p.form != frameWhole {
		return packRenderCut(p, format)
	}
	switch format {
	case "xml":
		return packRenderXML(p, tokens)
	case "json":
		return packRenderJSON(p, tokens)
	}
	return packRenderMD(p, tokens)
}

// packItemText is what one file costs on its own in format: its block and
// (md, xml) its line in the tree.
func packItemText(format string, f File) string {
	if format == "json" {
		return packItemBlock(format, f)
	}
	depth := strings.Count(f.Path, "/")
	return packItemBlock(format, f) + strings.Repeat("│   ", depth) + "├── " + packShow(path.Base(f.Path)) + "\n"
}

// packItemBlock is the block of one file in format, without its line in
// the tree.
func packItemBlock(format string, f File) string {
	var b bytes.Buffer
	switch format {
	case "xml":
		packXMLFile(&b, f)
	case "json":
		b.WriteString("    " + packJSONElement(packJSONFileOf(f)) + ",\n")
	default:
		packMDFile(&b, f)
	}
	return b.String()
}

// packJSONElement is v as an element of an array of the JSON pack:
// indented at that depth, and with "<", ">" and "&" left as they are, as
// packRenderJSON writes them.
func packJSONElement(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	_ = enc.Encode(v) // strings, ints and bools always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// packNotesText is the deferral notes of ds in format, grouped or not, as
// the renderers write them.
func packNotesText(format string, grouped bool, ds []Deferred) string {
	var b strings.Builder
	if grouped {
		for _, g := range packDeferredGroups(ds) {
			b.WriteString(packGroupText(format, g))
		}
		return b.String()
	}
	for _, d := range ds {
		b.WriteString(packNoteText(format, d))
	}
	return b.String()
}

// packNoteText is the deferral note of one file in format, as the
// renderers write it (json: as an element of the indented array).
func packNoteText(format string, d Deferred) string {
	switch format {
	case "xml":
		return fmt.Sprintf("<file path=%s category=%s rank=\"%d\" tokens=\"%d\" reason=%s/>\n",
			packXMLAttr(d.Path), packXMLAttr(d.Category), d.Rank, d.Tokens, packXMLAttr(d.Reason))
	case "json":
		return "    " + packJSONElement(d) + ",\n"
	}
	return fmt.Sprintf("- %s: %s tokens, category %s, dropped: %s\n", packMDCode(d.Path), numfmt.Thousands(d.Tokens), d.Category, d.Reason)
}

// packGroupText is the deferral note of one directory in format, as the
// renderers write it (json: as an element of the indented array).
func packGroupText(format string, g packGroup) string {
	switch format {
	case "xml":
		return fmt.Sprintf("<dir path=%s files=\"%d\" tokens=\"%d\" categories=%s reason=%s/>\n",
			packXMLAttr(g.Dir), g.Files, g.Tokens, packXMLAttr(strings.Join(g.Categories, " ")), packXMLAttr(g.Reason))
	case "json":
		return "    " + packJSONElement(g) + ",\n"
	}
	return fmt.Sprintf("- %s: %s, %s tokens, category %s, dropped: %s\n",
		packMDCode(g.Dir), packFiles(g.Files), numfmt.Thousands(g.Tokens), strings.Join(g.Categories, ", "), g.Reason)
}

// packSummary is the line of counts shared by the formats.
func packSummary(p *Pack) string {
	return fmt.Sprintf("%d packed, %d deferred, %d not packed", len(p.Files), len(p.Deferred), len(p.NotPacked))
}

func packRequest(p *Pack) string {
	s := "files profile"
	if p.Budget > 0 {
		s += ", budget " + numfmt.Thousands(p.Budget) + " tokens"
	} else {
		s += ", no budget"
	}
	s += ", encoding " + p.Encoding
	if p.GitDiff {
		s += ", changed files and their neighbours (git diff)"
	}
	return s
}

func packTokensLine(p *Pack, tokens int) string {
	s := numfmt.Thousands(tokens)
	if p.Budget > 0 {
		s += fmt.Sprintf(" (%d%% of budget)", tokens*100/p.Budget)
	}
	return s
}

func packRenderMD(p *Pack, tokens int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Pack: %s\n\n", p.Name)
	fmt.Fprintf(&b, "- Request: %s\n", packRequest(p))
	fmt.Fprintf(&b, "- Tokens: %s\n", packTokensLine(p, tokens))
	fmt.Fprintf(&b, "- Files: %s\n", packSummary(p))
	fmt.Fprintf(&b, "- Hash: %s\n", p.Hash)
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "\n> Warning: %s\n", w)
	}
	b.WriteString("\n## Tree\n\n```text\n")
	b.WriteString(packTree(p))
	b.WriteString("```\n")
	for _, f := range p.Files {
		b.WriteString("\n")
		packMDFile(&b, f)
	}
	if len(p.NotPacked) > 0 {
		b.WriteString("\n## Not packed\n\n")
		for _, n := range p.NotPacked {
			fmt.Fprintf(&b, "- %s (%s, %s bytes)\n", packMDCode(n.Path), n.Reason, numfmt.Thousands(int(n.Bytes)))
		}
	}
	if len(p.Deferred) > 0 && !p.FrameOnly {
		b.WriteString("\n## Deferred\n\n")
		if p.GroupedNotes {
			for _, g := range packDeferredGroups(p.Deferred) {
				b.WriteString(packGroupText("md", g))
			}
		} else {
			for _, d := range p.Deferred {
				b.WriteString(packNoteText("md", d))
			}
		}
	}
	return b.Bytes()
}

// packMDFile writes one file as a heading and a fenced block whose fence
// is longer than any run of backticks in the content.
func packMDFile(b *bytes.Buffer, f File) {
	fence := strings.Repeat("`", max(3, packLongestRun(f.Content, '`')+1))
	mark := ""
	if f.Focus {
		mark = " (changed)"
	}
	fmt.Fprintf(b, "## File: %s%s\n\n%s%s\n%s", packShow(f.Path), mark, fence, packLang(f.Path), f.Content)
	if f.Content != "" && !strings.HasSuffix(f.Content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n")
}

// packMDCode quotes a path as inline code, with a fence the path cannot
// close.
func packMDCode(s string) string {
	s = packShow(s)
	n := packLongestRun(s, '`')
	if n == 0 {
		return "`" + s + "`"
	}
	fence := strings.Repeat("`", n+1)
	return fence + " " + s + " " + fence
}

// packShow is a path as a line of text can hold it: quoted Go-style when
// it holds a control character (a newline in a file name would otherwise
// break the heading, the tree or the report), else as is.
func packShow(p string) string {
	if strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

func packLongestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// packLang is the info string of a fenced block, from the extension.
func packLang(p string) string {
	ext := strings.ToLower(path.Ext(p))
	switch ext {
	case ".go", ".ts", ".tsx", ".js", ".jsx", ".json", ".py", ".rs", ".java", ".c", ".h",
		".cpp", ".rb", ".php", ".css", ".html", ".sql", ".toml", ".xml", ".yaml", ".swift", ".kt", ".lua", ".mdx":
		return ext[1:]
	case ".md":
		return "markdown"
	case ".yml":
		return "yaml"
	case ".sh", ".bash":
		return "sh"
	case ".mjs", ".cjs":
		return "js"
	}
	switch path.Base(p) {
	case "Makefile":
		return "make"
	case "Dockerfile":
		return "dockerfile"
	}
	return ""
}

// packTree draws the directory tree of the packed files only.
func packTree(p *Pack) string {
	type node struct {
		name     string
		children []*node
		index    map[string]*node
	}
	root := &node{index: map[string]*node{}}
	for _, f := range p.Files {
		n := root
		parts := strings.Split(f.Path, "/")
		for i, part := range parts {
			key := part
			if i < len(parts)-1 {
				key += "/" // a directory and a file of the same name stay apart
			}
			c := n.index[key]
			if c == nil {
				c = &node{name: key, index: map[string]*node{}}
				n.index[key] = c
				n.children = append(n.children, c) // walk order is tree order
			}
			n = c
		}
	}
	var b strings.Builder
	b.WriteString(p.Name + "/\n")
	var draw func(n *node, prefix string)
	draw = func(n *node, prefix string) {
		for i, c := range n.children {
			branch, next := "├── ", "│   "
			if i == len(n.children)-1 {
				branch, next = "└── ", "    "
			}
			name := packShow(strings.TrimSuffix(c.name, "/"))
			if strings.HasSuffix(c.name, "/") {
				name += "/"
			}
			b.WriteString(prefix + branch + name + "\n")
			draw(c, prefix+next)
		}
	}
	draw(root, "")
	return b.String()
}

func packRenderXML(p *Pack, tokens int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<pack name=%s profile=\"files\" encoding=%s budget=\"%d\" tokens=\"%d\" hash=%s",
		packXMLAttr(p.Name), packXMLAttr(p.Encoding), p.Budget, tokens, packXMLAttr(p.Hash))
	if p.GitDiff {
		b.WriteString(` git-diff="true"`)
	}
	if p.FrameOnly {
		b.WriteString(` frame-only="true"`)
	}
	b.WriteString(">\n")
	fmt.Fprintf(&b, "<summary>%s</summary>\n", packXMLText(packSummary(p)))
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "<warning>%s</warning>\n", packXMLText(w))
	}
	fmt.Fprintf(&b, "<tree>\n%s</tree>\n", packXMLText(packTree(p)))
	for _, f := range p.Files {
		packXMLFile(&b, f)
	}
	for _, n := range p.NotPacked {
		fmt.Fprintf(&b, "<not-packed path=%s bytes=\"%d\" reason=%s/>\n", packXMLAttr(n.Path), n.Bytes, packXMLAttr(n.Reason))
	}
	if len(p.Deferred) > 0 && !p.FrameOnly {
		b.WriteString("<deferred>\n")
		for _, g := range packDeferredGroups(p.Deferred) {
			if !p.GroupedNotes {
				break
			}
			b.WriteString(packGroupText("xml", g))
		}
		for _, d := range p.Deferred {
			if p.GroupedNotes {
				break
			}
			b.WriteString(packNoteText("xml", d))
		}
		b.WriteString("</deferred>\n")
	}
	b.WriteString("</pack>\n")
	return b.Bytes()
}

func packXMLFile(b *bytes.Buffer, f File) {
	fmt.Fprintf(b, "<file path=%s category=%s", packXMLAttr(f.Path), packXMLAttr(f.Category))
	if f.Focus {
		b.WriteString(` focus="true"`)
	}
	b.WriteString(">\n")
	b.WriteString(packXMLText(f.Content))
	if f.Content != "" && !strings.HasSuffix(f.Content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("</file>\n")
}

// packXMLText escapes text content. Unlike xml.EscapeText it leaves tabs
// and newlines alone (escaping them would cost tokens for nothing) and
// replaces the characters XML 1.0 forbids with U+FFFD.
func packXMLText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(r)
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// packXMLAttr quotes an attribute value.
func packXMLAttr(s string) string {
	t := packXMLText(s)
	t = strings.ReplaceAll(t, `"`, "&quot;")
	t = strings.ReplaceAll(t, "\n", "&#xA;")
	t = strings.ReplaceAll(t, "\r", "&#xD;")
	t = strings.ReplaceAll(t, "\t", "&#x9;")
	return `"` + t + `"`
}

// packJSON is the JSON shape of a pack: stable field order, arrays never
// null.
type packJSON struct {
	Profile   string         `json:"profile"`
	Name      string         `json:"name"`
	Encoding  string         `json:"encoding"`
	Budget    int            `json:"budget"`
	Tokens    int            `json:"tokens"`
	Hash      string         `json:"hash"`
	GitDiff   bool           `json:"git_diff,omitempty"`
	FrameOnly bool           `json:"frame_only,omitempty"`
	Warnings  []string       `json:"warnings"`
	Files     []packJSONFile `json:"files"`
	NotPacked []NotPacked    `json:"not_packed"`
	Deferred  []Deferred     `json:"deferred"`
	// DeferredDirs replaces Deferred when the notes are grouped.
	DeferredDirs []packGroup `json:"deferred_dirs,omitempty"`
}

type packJSONFile struct {
	Path     string `json:"path"`
	Category string `json:"category"`
	Focus    bool   `json:"focus,omitempty"`
	Content  string `json:"content"`
}

func packJSONFileOf(f File) packJSONFile {
	return packJSONFile{Path: f.Path, Category: f.Category, Focus: f.Focus, Content: f.Content}
}

func packRenderJSON(p *Pack, tokens int) []byte {
	j := packJSON{
		Profile: "files", Name: p.Name, Encoding: p.Encoding, Budget: p.Budget, Tokens: tokens, Hash: p.Hash,
		GitDiff: p.GitDiff, FrameOnly: p.FrameOnly,
		Warnings: append([]string{}, p.Warnings...), Files: []packJSONFile{},
		NotPacked: append([]NotPacked{}, p.NotPacked...), Deferred: []Deferred{},
	}
	for _, f := range p.Files {
		j.Files = append(j.Files, packJSONFileOf(f))
	}
	switch {
	case p.FrameOnly:
	case p.GroupedNotes:
		j.DeferredDirs = packDeferredGroups(p.Deferred)
	default:
		j.Deferred = append(j.Deferred, p.Deferred...)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// Strings, ints and bools always encode: there is no error to return.
	_ = enc.Encode(j)
	return b.Bytes()
}

// packGroup is the deferral note of one directory.
type packGroup struct {
	Dir        string   `json:"dir"`
	Files      int      `json:"files"`
	Tokens     int      `json:"tokens"`
	Categories []string `json:"categories"`
	Reason     string   `json:"reason"`
}

// packDeferredGroups groups deferred files by directory and reason,
// sorted by directory then reason.
func packDeferredGroups(ds []Deferred) []packGroup {
	type key struct{ dir, reason string }
	idx := map[key]int{}
	var out []packGroup
	for _, d := range ds {
		dir := fileDir(d.Path) + "/"
		if dir == "/" {
			dir = "./"
		}
		k := key{dir, d.Reason}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, packGroup{Dir: dir, Reason: d.Reason})
		}
		g := &out[i]
		g.Files++
		g.Tokens += d.Tokens
		if !slices.Contains(g.Categories, d.Category) {
			g.Categories = append(g.Categories, d.Category)
		}
	}
	for i := range out {
		slices.Sort(out[i].Categories)
	}
	slices.SortFunc(out, func(a, b packGroup) int {
		if c := strings.Compare(a.Dir, b.Dir); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return out
}
