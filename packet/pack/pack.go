package pack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
)

// Category gives every file whose path matches Pattern the category
// Category. Patterns use .gitignore syntax relative to the packed
// directory ("docs/", "*.test.ts", "/scripts/**"); a pattern that matches
// a directory matches every file inside it.
type Category struct {
	Pattern  string `json:"pattern"`
	Category string `json:"category"`
}

// Root is the category of files at the top of the packed directory
// that no pattern claims.
const Root = "(root)"

// DefaultPriority returns the default category priority of the files
// profile, most important first: src, lib, app, packages, (root), tests,
// test, docs. The categories it does not list (fixtures, lock, and the
// top-level directories no pattern claims) form one pool that is dropped
// before any listed one.
func DefaultPriority() []string {
	return []string{"src", "lib", "app", "packages", Root, "tests", "test", "docs"}
}

// DefaultMaxFileBytes is the size above which a file is listed but not
// packed, unless Options.MaxFileBytes says otherwise.
const DefaultMaxFileBytes = 4 << 20

// Options tunes Dir. The zero value packs everything, in markdown,
// counted with o200k_base.
type Options struct {
	// Budget is the most tokens the rendered pack may hold; 0 means no
	// budget. Negative values are an error.
	Budget int
	// Counter counts tokens; nil means budget.NewCounter("o200k_base").
	Counter budget.Counter
	// Format is "md" (default; "markdown" too), "xml" or "json".
	Format string
	// Categories are tried in order; the first match gives a file its
	// category. Unmatched files take their top-level directory, or Root
	// at the top. nil means DefaultCategories, with the sources in the
	// order of srcLevel (front doors kept longest); an empty, non-nil
	// list means none (lmpack's own default: every file by its directory).
	Categories []Category
	// Priority ranks categories, most important first; nil means
	// DefaultPriority. Categories missing from it form one pool, dropped
	// before any listed one, largest file first whatever its category.
	Priority []string
	// GitDiff packs only what changed against HEAD (plus untracked files)
	// and the files beside them: the changed files are the focus, kept
	// whole unless they alone overflow the budget, and their neighbours
	// are the first to go. Needs git and a work tree.
	GitDiff bool
	// MaxFileBytes lists bigger files without packing them; 0 means
	// DefaultMaxFileBytes, negative means no limit.
	MaxFileBytes int64
	// Exclude lists files or directories the walk skips, as paths
	// relative to DIR or absolute (the CLI passes its -o file, so a pack
	// never packs its own earlier output). Paths outside DIR are ignored;
	// a symbolic link to an excluded file is skipped too.
	Exclude []string
	// Progress, when set, is told how far a large pack has come: the
	// phases "counting tokens" (done of total files) and "fitting" (0 of
	// 1, then 1 of 1). It is called from Dir's goroutine.
	Progress func(phase string, done, total int)
}

// Pack is a directory packed into a Context Packet (the files
// profile). Its exported fields are the whole packet; Render turns them
// into bytes.
type Pack struct {
	// Name is the base name of the packed directory: the title.
	Name string
	// Format is the format the pack was fitted in.
	Format string
	// Encoding is the counter's name.
	Encoding string
	// Budget is the budget asked for; 0 means none.
	Budget int
	// Tokens is the whole rendered pack (in Format), counted again.
	Tokens int
	// Hash identifies the packed content ("sha256:" and the 64 hex digits
	// of the full digest, as a packet's Hash):
	// the same files, deferrals and omissions give the same hash in every
	// format.
	Hash string
	// GitDiff says the pack was limited to changed files and neighbours.
	GitDiff bool
	// Files are the packed files in walk order (each directory sorted by
	// name, depth first): the order of the tree and of the blocks.
	Files []File
	// Deferred are the files dropped for the budget, in the order they
	// were dropped.
	Deferred []Deferred
	// NotPacked are files listed but not packed (binary, too large,
	// symlinks not followed), in walk order.
	NotPacked []NotPacked
	// GroupedNotes is set when the pack's deferral notes are one line a
	// directory rather than one a file, because one a file would have
	// taken more than a quarter of the budget. Deferred and the report
	// still list every file.
	GroupedNotes bool
	// FrameOnly is set when no file fitted: every file was deferred and
	// the pack holds only its frame and a warning, or, with a budget
	// below the frame, the largest shorter form of it that fits (its
	// title and the warning, its title, an empty document, or nothing);
	// the warning names the frame's size.
	FrameOnly bool
	// Warnings say what the user must know about this pack.
	Warnings []string

	out     []byte         // the fitted rendering
	counter budget.Counter // counts other formats in Render
	// form is how much of the frame a FrameOnly pack holds, and
	// frameWarning the warning a cut form shows (frame.go).
	form         frameForm
	frameWarning string
}

// File is one packed file.
type File struct {
	Path     string `json:"path"`
	Category string `json:"category"`
	// Tokens is what the file costs as rendered on its own (its block and
	// its line in the tree).
	Tokens int `json:"tokens"`
	// Focus marks a changed file under GitDiff.
	Focus   bool   `json:"focus,omitempty"`
	Content string `json:"content"`
}

// Deferred is one file dropped for the budget.
type Deferred struct {
	Path     string `json:"path"`
	Category string `json:"category"`
	// Rank is the file's place in the drop order's categories: 1 is the
	// most important; the categories missing from the priority share the
	// rank after the listed ones, and neighbours of changed files come
	// after that.
	Rank int `json:"rank"`
	// Tokens is what the file would have cost.
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
}

// NotPacked is a file that is listed but not packed.
type NotPacked struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	Reason string `json:"reason"`
}

// Deferral reasons of the files profile.
const (
	packReasonBudget    = "over budget"
	packReasonNeighbour = "neighbour of a changed file, dropped first"
	packReasonFrame     = "budget below the frame"
	packReasonNotes     = "deferral notes over budget"
)

// fileItem is a packable file on its way through the fit.
type fileItem struct {
	File
	rank      int
	level     int // within a rank, a higher level goes first (srcLevel)
	neighbour bool
}

// Dir packs the files under dir into a Context Packet of the files
// profile: .gitignore files honoured, .git and .lore skipped, binary files
// listed but not packed, and, under a budget, whole files dropped by
// category priority (largest first within a category), put back where
// they still fit, and the whole rendering counted again. A pack with
// anything deferred is still a pack: ExitCode says 2. Dir may run
// concurrently with itself; a Pack is not meant to be mutated.
func Dir(ctx context.Context, dir string, opts Options) (*Pack, error) {
	p, items, set, err := packPrepare(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	set.progress("fitting", 0, 1)
	if err := packFit(p, items, set.counter); err != nil {
		return nil, err
	}
	set.progress("fitting", 1, 1)
	return p, nil
}

// packPrepare walks dir and returns the pack without its files and the
// items to fit into it, ranked and counted.
func packPrepare(ctx context.Context, dir string, opts Options) (*Pack, []*fileItem, settings, error) {
	set, err := opts.settle()
	if err != nil {
		return nil, nil, set, err
	}
	entries, err := fileWalk(ctx, dir, set.maxBytes, opts.Exclude)
	if err != nil {
		return nil, nil, set, err
	}
	p := &Pack{
		Name:     packName(dir),
		Format:   set.format,
		Encoding: set.counter.Name(),
		Budget:   opts.Budget,
		GitDiff:  opts.GitDiff,
	}
	var changed map[string]bool
	if opts.GitDiff {
		if changed, err = fileGitChanged(ctx, dir); err != nil {
			return nil, nil, set, err
		}
		entries = packDiffScope(entries, changed)
		if len(entries) == 0 {
			p.Warnings = append(p.Warnings, "no file changed against HEAD: nothing to pack")
		}
	}
	if opts.Categories == nil {
		set.project = projectNames(dir)
	}
	items, err := packItems(ctx, p, entries, changed, set)
	if err != nil {
		return nil, nil, set, err
	}
	if set.counter.Name() == budget.Estimate {
		p.Warnings = append(p.Warnings, "token counts are estimates (counter \"estimate\"): keep a margin below the model's window")
	}
	return p, items, set, nil
}

// settings are Options checked and with their defaults filled in.
type settings struct {
	format   string
	cats     []packCompiled
	priority []string
	// project names the project's own file at the top of the tree when
	// the categories are the defaults (srcLevel); nil otherwise.
	project  map[string]bool
	counter  budget.Counter
	maxBytes int64
	progress func(phase string, done, total int) // never nil
}

// settle checks the options and fills in the defaults.
func (o Options) settle() (settings, error) {
	s := settings{progress: o.Progress}
	if s.progress == nil {
		s.progress = func(string, int, int) {}
	}
	var err error
	if s.format, err = packFormat(o.Format); err != nil {
		return s, err
	}
	if o.Budget < 0 {
		return s, fmt.Errorf("pack budget %d: must be 0 (no budget) or a positive number of tokens: %w", o.Budget, ErrInvalid)
	}
	cats := o.Categories
	if cats == nil {
		cats = DefaultCategories()
	}
	if s.cats, err = packCompileCategories(cats); err != nil {
		return s, err
	}
	s.priority = o.Priority
	if s.priority == nil {
		s.priority = DefaultPriority()
	}
	for _, c := range s.priority {
		if strings.TrimSpace(c) == "" {
			return s, fmt.Errorf("pack priority %q: category names must not be empty: %w", s.priority, ErrInvalid)
		}
	}
	s.counter = o.Counter
	if s.counter == nil {
		if s.counter, err = budget.NewCounter("o200k_base"); err != nil {
			return s, err
		}
	}
	s.maxBytes = o.MaxFileBytes
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxFileBytes
	}
	return s, nil
}

// packItems turns the walked entries into ranked and counted items; the
// files listed but not packed go to p.NotPacked.
func packItems(ctx context.Context, p *Pack, entries []fileEntry, changed map[string]bool, set settings) ([]*fileItem, error) {
	var items []*fileItem
	for _, e := range entries {
		if e.notPacked != "" {
			p.NotPacked = append(p.NotPacked, NotPacked{Path: e.path, Bytes: e.bytes, Reason: e.notPacked})
			continue
		}
		it := &fileItem{File: File{Path: e.path, Category: packCategory(set.cats, e.path), Content: e.content}}
		if changed != nil {
			it.Focus = changed[e.path]
			it.neighbour = !it.Focus
		}
		items = append(items, it)
	}
	packRank(items, set.priority)
	if set.project != nil {
		for _, it := range items {
			if it.Category == "src" {
				it.level = srcLevel(it.Path, set.project)
			}
		}
	}
	for i, it := range items {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			set.progress("counting tokens", i, len(items))
		}
		it.Tokens = set.counter.Count(packItemText(set.format, it.File))
	}
	set.progress("counting tokens", len(items), len(items))
	return items, nil
}

// packName is the title of a pack: the base name of the directory.
func packName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	name := filepath.Base(dir)
	if name == string(filepath.Separator) || name == "." || name == "" {
		return "pack"
	}
	return name
}

// packFormat normalises a format name.
func packFormat(f string) (string, error) {
	switch strings.ToLower(f) {
	case "", "md", "markdown":
		return "md", nil
	case "xml":
		return "xml", nil
	case "json":
		return "json", nil
	}
	return "", badvalue.Errorf(f, "pack format %q: want md, xml or json: %w", f, ErrInvalid)
}

// packHash hashes what the pack holds, independent of the format: each
// packed file's path and content, then the deferred and not-packed paths.
func packHash(p *Pack) string {
	h := sha256.New()
	for _, f := range p.Files {
		fmt.Fprintf(h, "file\x00%s\x00%d\x00%s\x00", f.Path, len(f.Content), f.Content)
	}
	for _, d := range p.Deferred {
		fmt.Fprintf(h, "deferred\x00%s\x00%s\x00", d.Path, d.Reason)
	}
	for _, n := range p.NotPacked {
		fmt.Fprintf(h, "notpacked\x00%s\x00%s\x00", n.Path, n.Reason)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ExitCode is the exit code of `lore pack` for this pack: 2 when a file
// was dropped for the budget (or only the frame fitted), else 0.
func (p *Pack) ExitCode() int {
	if len(p.Deferred) > 0 || p.FrameOnly {
		return 2
	}
	return 0
}

// Render returns the pack in format ("" for the format it was fitted in).
// Only the fitted format is guaranteed to stay within the budget: another
// format renders the same files and may count differently.
func (p *Pack) Render(format string) ([]byte, error) {
	if format == "" {
		format = p.Format
	}
	f, err := packFormat(format)
	if err != nil {
		return nil, err
	}
	if f == p.Format && p.out != nil {
		return slices.Clone(p.out), nil
	}
	counter := p.counter
	if counter == nil {
		var err error
		if counter, err = budget.NewCounter(p.Encoding); err != nil {
			return nil, err
		}
	}
	out, _ := packRenderCounted(p, f, counter, p.Tokens)
	return out, nil
}
