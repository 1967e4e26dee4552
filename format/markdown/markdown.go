package markdown

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lore/format"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/clip"
	"github.com/lorekeep/lore/store"
)

// MentionsRel is the relation that a [[wikilink]] in a markdown body
// becomes: a link from the file's record to the target.
const MentionsRel = "mentions"

// defaultMarkdownKind is the kind of a markdown file at the root of the
// folder whose front matter names none.
const defaultMarkdownKind = "note"

// ReadDir reads a folder of markdown files as records of
// namespace ns. Every file whose name ends in ".md" is one record; other
// files are ignored, and so are files and folders whose names start with
// "." (such as .git or .obsidian). A ".md" that is not a regular file (a
// named pipe, a device, a socket) or is a symbolic link leaving fsys is
// not read: it is listed among the errors. Records come back sorted by id,
// links by (from, rel, to), errors by (file, line).
//
// A file may open with YAML front matter between two "---" lines (the
// closing line may also be "..."). These keys fill the record:
//
//	id       the record id; default: the file's path without ".md"
//	         (slash-separated, relative to fsys)
//	kind     default: the name of the folder holding the file, as written;
//	         "note" for files at the root
//	title    default: the text of the first "# Heading", else the file name
//	summary  the short form: facts and ids that can stand in for the body
//	tags     a list of strings (or one string)
//	aliases  other names of the record, a list (or one string): "Sefa"
//	         for Sefa Dunmore; a packet's focus that says one brings the
//	         record in
//	keys     lorebook-style triggers, a list (or one string): words whose
//	         mention brings the record in though they are not its name
//	order    an integer position (timeline, chapter, scene)
//	pinned   true or false
//	meta     a mapping of strings (numbers and booleans are kept as written)
//	links    a mapping of relation to targets, e.g. `appears_in: [scene-01]`
//
// Any other key with a scalar value goes into meta as the string written
// (`pov: mara` is meta["pov"]); a list of scalars goes in joined by ", ".
// Other mappings are an error, and so is a key given both at the top and
// under meta. Null values count as absent.
//
// The body is the text after the front matter. In the body, [[target]],
// [[target|label]] and [[target#heading]] become MentionsRel links (not
// inside ``` fenced code). Targets, here and under links, resolve to a
// record id: an exact id, else a file path without ".md", else the one
// record whose id or file name ends in that last path element; otherwise
// the target is kept as written, a dangling link that `lore check` reports.
//
// A file that is not valid UTF-8 becomes a record with Binary set, no
// body, and the default id, kind and title. Front matter that is not YAML,
// an invalid id and an id used by two files are InputErrors naming the
// file and line; the other files are still returned. docs/VAULT.md is the
// user's reference to all of this.
func ReadDir(fsys fs.FS, ns string) (recs []store.Record, links []store.Link, errs []format.InputError) {
	recs, links, errs, _ = ReadDirWarn(fsys, ns)
	return recs, links, errs
}

// ReadDirWarn is ReadMarkdownDir that also returns warnings: what
// was read but does not do what it seems to, such as an empty wikilink
// ([[]], [[|label]]), which makes no link. Sorted by (file, line).
func ReadDirWarn(fsys fs.FS, ns string) (recs []store.Record, links []store.Link, errs, warns []format.InputError) {
	if err := store.ValidNamespace(ns); err != nil {
		return nil, nil, []format.InputError{{File: ".", Err: err}}, nil
	}
	var files []*mdFile
	walkErr := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, format.InputError{File: p, Err: err})
			if d != nil && d.IsDir() && p != "." {
				return fs.SkipDir
			}
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isMarkdownName(d.Name()) {
			return nil
		}
		if err := regularFile(fsys, p, d); err != nil {
			errs = append(errs, format.InputError{File: p, Err: err})
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, format.InputError{File: p, Err: err})
			return nil
		}
		f, ferr := parseMarkdownFile(p, data)
		if ferr != nil {
			errs = append(errs, *ferr)
			return nil
		}
		files = append(files, f)
		return nil
	})
	if walkErr != nil {
		errs = append(errs, format.InputError{File: ".", Err: walkErr})
	}

	// Ids are unique per namespace: the first file (in path order) keeps it.
	byID := map[string]*mdFile{}
	kept := files[:0]
	for _, f := range files {
		if first, dup := byID[f.rec.ID]; dup {
			errs = append(errs, format.InputError{File: f.path, Line: f.idLine,
				Err: badvalue.Errorf(f.rec.ID, "id %q is already used by %s: ids must be unique in a namespace", f.rec.ID, first.path)})
			continue
		}
		byID[f.rec.ID] = f
		kept = append(kept, f)
	}
	files = kept

	res := newResolver(files)
	for _, f := range files {
		f.rec.NS = ns
		recs = append(recs, f.rec)
		for _, rl := range f.links {
			links = append(links, store.Link{NS: ns, From: f.rec.ID, Rel: rl.rel, To: res.resolve(rl.target)})
		}
		warns = append(warns, f.warns...)
	}
	slices.SortFunc(recs, func(a, b store.Record) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(links, store.CompareLinks)
	links = slices.Compact(links)
	byPlace := func(a, b format.InputError) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	}
	slices.SortStableFunc(errs, byPlace)
	slices.SortStableFunc(warns, byPlace)
	return recs, links, errs, warns
}

// isMarkdownName reports whether a file name ends in ".md" (any case).
func isMarkdownName(name string) bool {
	return len(name) > 3 && strings.EqualFold(path.Ext(name), ".md")
}

// mdFile is one parsed markdown file before its link targets are resolved.
type mdFile struct {
	path   string // slash path inside the folder
	stem   string // path without ".md"
	rec    store.Record
	idLine int // line of the id key, or 0 when the id comes from the path
	// titleSet: front matter gave the title, so no heading replaces it.
	titleSet bool
	links    []mdLink
	warns    []format.InputError // problems that do not stop the file (empty wikilinks)
}

// mdLink is an unresolved link from a file: a wikilink or a front-matter link.
type mdLink struct {
	rel, target string
}

// parseMarkdownFile turns one file into a record and its raw links.
func parseMarkdownFile(p string, data []byte) (*mdFile, *format.InputError) {
	stem := p[:len(p)-len(path.Ext(p))]
	f := &mdFile{path: p, stem: stem}
	f.rec.ID = stem
	f.rec.Title = path.Base(stem)
	if dir := path.Dir(p); dir != "." {
		f.rec.Kind = path.Base(dir)
	}
	fail := func(line int, err error) *format.InputError { return &format.InputError{File: p, Line: line, Err: err} }

	if !utf8.Valid(data) {
		f.rec.Binary = true
		if f.rec.Kind == "" {
			f.rec.Kind = defaultMarkdownKind
		}
		if err := store.ValidID(f.rec.ID); err != nil {
			return nil, fail(0, fmt.Errorf("the file path gives %w; set an id in front matter", err))
		}
		if err := store.ValidFields(f.rec.Kind, nil, nil); err != nil {
			return nil, fail(0, err)
		}
		return f, nil
	}
	text := strings.TrimPrefix(string(data), "\ufeff")

	fm, body, bodyLine, err := splitFrontMatter(text)
	if err != nil {
		return nil, fail(1, err)
	}
	idFromFM := false
	if fm != "" {
		line, err := f.applyFrontMatter(fm, 2)
		if err != nil {
			return nil, fail(line, err)
		}
		idFromFM = f.idLine > 0
	}
	if f.rec.Kind == "" {
		f.rec.Kind = defaultMarkdownKind
	}
	f.rec.Body = body
	if !f.titleSet {
		if h := firstHeading(body); h != "" {
			f.rec.Title = h
		}
	}
	if err := store.ValidID(f.rec.ID); err != nil {
		if idFromFM {
			return nil, fail(f.idLine, err)
		}
		return nil, fail(0, fmt.Errorf("the file path gives %w; set an id in front matter", err))
	}
	if err := store.ValidFields(f.rec.Kind, f.rec.Tags, f.rec.Meta); err != nil {
		// Front-matter values were checked where they stand; what is
		// left is the kind taken from the folder name.
		return nil, fail(0, fmt.Errorf("the folder name gives %w; set a kind in front matter", err))
	}
	links, empty := scanWikilinks(body)
	for _, w := range links {
		if err := store.ValidID(w.target); err != nil {
			return nil, fail(bodyLine+w.line-1, fmt.Errorf("wikilink [[%s]]: %w", clip.String(w.target, 60), err))
		}
		f.links = append(f.links, mdLink{rel: MentionsRel, target: w.target})
	}
	for _, w := range empty {
		f.warns = append(f.warns, format.InputError{File: p, Line: bodyLine + w.line - 1,
			Err: fmt.Errorf("empty wikilink %s names no record: no link made (write [[id]] or [[id|label]])", clip.String(w.target, 60))})
	}
	return f, nil
}

// splitFrontMatter separates "---\n...\n---\n" from the body. It returns
// the front matter text ("" when there is none), the body, and the 1-based
// line on which the body starts.
func splitFrontMatter(text string) (fm, body string, bodyLine int, err error) {
	first, rest, ok := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t\r") != "---" {
		return "", strings.TrimLeft(text, "\r\n"), 1 + leadingNewlines(text), nil
	}
	if !ok {
		return "", "", 0, errors.New(`front matter opened by "---" on line 1 has no closing "---" line`)
	}
	line := 2
	off := 0
	for off <= len(rest) {
		end := strings.IndexByte(rest[off:], '\n')
		var l string
		next := len(rest) + 1
		if end < 0 {
			l = rest[off:]
		} else {
			l = rest[off : off+end]
			next = off + end + 1
		}
		if t := strings.TrimRight(l, " \t\r"); t == "---" || t == "..." {
			fm = rest[:off]
			if next > len(rest) {
				body = ""
			} else {
				body = rest[next:]
			}
			n := leadingNewlines(body)
			return fm, strings.TrimLeft(body, "\r\n"), line + 1 + n, nil
		}
		line++
		off = next
	}
	return "", "", 0, errors.New(`front matter opened by "---" on line 1 has no closing "---" line`)
}

// leadingNewlines counts the newlines among the leading "\r\n" bytes of s.
func leadingNewlines(s string) int {
	n := 0
	for i := 0; i < len(s) && (s[i] == '\n' || s[i] == '\r'); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}

// firstHeading returns the text of the first "# Heading" outside fenced code.
func firstHeading(body string) string {
	fenced := false
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if isFence(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if h, ok := strings.CutPrefix(line, "# "); ok {
			if h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#")); h != "" {
				return h
			}
		}
	}
	return ""
}

// isFence reports whether a line opens or closes a ``` or ~~~ code block.
func isFence(line string) bool {
	t := strings.TrimLeft(line, " ")
	return len(line)-len(t) < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"))
}

// wikilink is one [[target]] found in a body, with its 1-based line.
type wikilink struct {
	target string
	line   int
}

// wikilinkRE matches [[target]], [[target|label]] and [[target#heading]],
// and the empty [[]].
var wikilinkRE = regexp.MustCompile(`\[\[([^\[\]\n]*)\]\]`)

// findWikilinks returns the wikilinks of body in order, outside fenced
// code. Targets are cleaned (label, heading and ".md" removed); a link to
// a heading of the same file ([[#heading]]) is no link and is skipped.
func findWikilinks(body string) []wikilink {
	links, _ := scanWikilinks(body)
	return links
}

// scanWikilinks returns the wikilinks of body (as findWikilinks) and the
// empty ones, such as [[]], [[ ]] and [[|label]], which name no target:
// their text is kept in target, for a warning.
func scanWikilinks(body string) (out, empty []wikilink) {
	fenced := false
	lineNo := 0
	for line := range strings.SplitSeq(body, "\n") {
		lineNo++
		if isFence(strings.TrimRight(line, "\r")) {
			fenced = !fenced
			continue
		}
		if fenced || !strings.Contains(line, "[[") {
			continue
		}
		for _, m := range wikilinkRE.FindAllStringSubmatch(line, -1) {
			target, _, _ := strings.Cut(m[1], "|")
			if t := cleanTarget(target); t != "" {
				out = append(out, wikilink{target: t, line: lineNo})
			} else if h, ok := strings.CutPrefix(strings.TrimSpace(target), "#"); !ok || strings.TrimSpace(h) == "" {
				empty = append(empty, wikilink{target: m[0], line: lineNo})
			}
		}
	}
	return out, empty
}

// cleanTarget strips a "#heading" part, surrounding space and ".md".
func cleanTarget(t string) string {
	t, _, _ = strings.Cut(t, "#")
	t = strings.TrimSpace(t)
	if isMarkdownName(path.Base(t)) {
		t = t[:len(t)-3]
	}
	return strings.TrimSpace(t)
}

// resolver maps link targets to record ids.
type resolver struct {
	ids    map[string]bool
	byStem map[string]string   // file path without ".md" -> id
	byLast map[string][]string // last path element of id or stem -> ids
}

func newResolver(files []*mdFile) *resolver {
	r := &resolver{ids: map[string]bool{}, byStem: map[string]string{}, byLast: map[string][]string{}}
	for _, f := range files {
		r.ids[f.rec.ID] = true
		r.byStem[f.stem] = f.rec.ID
		for _, name := range []string{path.Base(f.rec.ID), path.Base(f.stem)} {
			if !slices.Contains(r.byLast[name], f.rec.ID) {
				r.byLast[name] = append(r.byLast[name], f.rec.ID)
			}
		}
	}
	return r
}

// resolve returns the id a target names: an exact id, a file path, a
// unique last path element, or the target itself (dangling).
func (r *resolver) resolve(target string) string {
	if r.ids[target] {
		return target
	}
	if id, ok := r.byStem[target]; ok {
		return id
	}
	if ids := r.byLast[path.Base(target)]; len(ids) == 1 && !strings.Contains(target, "/") {
		return ids[0]
	}
	return target
}
