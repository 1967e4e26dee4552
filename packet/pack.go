package packet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/lorekeep/lore/budget"
)

// PackCategory gives every file whose path matches Pattern the category
// Category. Patterns use .gitignore syntax relative to the packed
// directory ("docs/", "*.test.ts", "/scripts/**"); a pattern that matches
// a directory matches every file inside it.
type PackCategory struct {
	Pattern  string `json:"pattern"`
	Category string `json:"category"`
}

// PackRoot is the category of files at the top of the packed directory
// that no pattern claims.
const PackRoot = "(root)"

// PackDefaultPriority returns the default category priority of the files
// profile, most important first: src, lib, app, packages, (root), tests,
// test, docs.
func PackDefaultPriority() []string {
	return []string{"src", "lib", "app", "packages", PackRoot, "tests", "test", "docs"}
}

// PackDefaultMaxFileBytes is the size above which a file is listed but not
// packed, unless PackOptions.MaxFileBytes says otherwise.
const PackDefaultMaxFileBytes = 4 << 20

// PackOptions tunes PackDir. The zero value packs everything, in markdown,
// counted with o200k_base.
type PackOptions struct {
	// Budget is the most tokens the rendered pack may hold; 0 means no
	// budget. Negative values are an error.
	Budget int
	// Counter counts tokens; nil means budget.NewCounter("o200k_base").
	Counter budget.Counter
	// Format is "md" (default; "markdown" too), "xml" or "json".
	Format string
	// Categories are tried in order; the first match gives a file its
	// category. Unmatched files take their top-level directory, or
	// PackRoot at the top.
	Categories []PackCategory
	// Priority ranks categories, most important first; nil means
	// PackDefaultPriority. Categories missing from it are dropped before
	// any listed one (in reverse name order among themselves, as if
	// appended to the list sorted by name).
	Priority []string
	// GitDiff packs only what changed against HEAD (plus untracked files)
	// and the files beside them: the changed files are the focus, kept
	// whole unless they alone overflow the budget, and their neighbours
	// are the first to go. Needs git and a work tree.
	GitDiff bool
	// MaxFileBytes lists bigger files without packing them; 0 means
	// PackDefaultMaxFileBytes, negative means no limit.
	MaxFileBytes int64
	// Exclude lists files or directories the walk skips, as paths
	// relative to DIR or absolute (the CLI passes its -o file, so a pack
	// never packs its own earlier output). Paths outside DIR are ignored;
	// a symbolic link to an excluded file is skipped too.
	Exclude []string
}

// FilePack is a directory packed into a Context Packet (the files
// profile). Its exported fields are the whole packet; Render turns them
// into bytes.
type FilePack struct {
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
	Files []PackFile
	// Deferred are the files dropped for the budget, in the order they
	// were dropped.
	Deferred []PackDeferred
	// NotPacked are files listed but not packed (binary, too large,
	// symlinks not followed), in walk order.
	NotPacked []PackNotPacked
	// GroupedNotes is set when the pack's deferral notes are one line a
	// directory rather than one a file, because one a file would have
	// taken more than a quarter of the budget. Deferred and the report
	// still list every file.
	GroupedNotes bool
	// FrameOnly is set when even the frame did not fit: every file was
	// deferred and the pack holds only its frame and a warning.
	FrameOnly bool
	// Warnings say what the user must know about this pack.
	Warnings []string

	out     []byte         // the fitted rendering
	counter budget.Counter // counts other formats in Render
}

// PackFile is one packed file.
type PackFile struct {
	Path     string `json:"path"`
	Category string `json:"category"`
	// Tokens is what the file costs as rendered on its own (its block and
	// its line in the tree).
	Tokens int `json:"tokens"`
	// Focus marks a changed file under GitDiff.
	Focus   bool   `json:"focus,omitempty"`
	Content string `json:"content"`
}

// PackDeferred is one file dropped for the budget.
type PackDeferred struct {
	Path     string `json:"path"`
	Category string `json:"category"`
	// Rank is the file's place in the drop order's categories: 1 is the
	// most important.
	Rank int `json:"rank"`
	// Tokens is what the file would have cost.
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
}

// PackNotPacked is a file that is listed but not packed.
type PackNotPacked struct {
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
	PackFile
	rank      int
	neighbour bool
}

// PackDir packs the files under dir into a Context Packet of the files
// profile: .gitignore files honoured, .git and .lore skipped, binary files
// listed but not packed, and, under a budget, whole files dropped by
// category priority (largest first within a category), put back where
// they still fit, and the whole rendering counted again. A pack with
// anything deferred is still a pack: ExitCode says 2. PackDir may run
// concurrently with itself; a FilePack is not meant to be mutated.
func PackDir(ctx context.Context, dir string, opts PackOptions) (*FilePack, error) {
	format, err := packFormat(opts.Format)
	if err != nil {
		return nil, err
	}
	if opts.Budget < 0 {
		return nil, fmt.Errorf("pack budget %d: must be 0 (no budget) or a positive number of tokens: %w", opts.Budget, ErrPackInvalid)
	}
	cats, err := packCompileCategories(opts.Categories)
	if err != nil {
		return nil, err
	}
	priority := opts.Priority
	if priority == nil {
		priority = PackDefaultPriority()
	}
	for _, c := range priority {
		if strings.TrimSpace(c) == "" {
			return nil, fmt.Errorf("pack priority %q: category names must not be empty: %w", priority, ErrPackInvalid)
		}
	}
	counter := opts.Counter
	if counter == nil {
		if counter, err = budget.NewCounter("o200k_base"); err != nil {
			return nil, err
		}
	}
	maxBytes := opts.MaxFileBytes
	if maxBytes == 0 {
		maxBytes = PackDefaultMaxFileBytes
	}

	entries, err := fileWalk(ctx, dir, maxBytes, opts.Exclude)
	if err != nil {
		return nil, err
	}
	p := &FilePack{
		Name:     packName(dir),
		Format:   format,
		Encoding: counter.Name(),
		Budget:   opts.Budget,
		GitDiff:  opts.GitDiff,
	}
	var changed map[string]bool
	if opts.GitDiff {
		if changed, err = fileGitChanged(ctx, dir); err != nil {
			return nil, err
		}
		entries = packDiffScope(entries, changed)
		if len(entries) == 0 {
			p.Warnings = append(p.Warnings, "no file changed against HEAD: nothing to pack")
		}
	}

	var items []*fileItem
	for _, e := range entries {
		if e.notPacked != "" {
			p.NotPacked = append(p.NotPacked, PackNotPacked{Path: e.path, Bytes: e.bytes, Reason: e.notPacked})
			continue
		}
		it := &fileItem{PackFile: PackFile{Path: e.path, Category: packCategory(cats, e.path), Content: e.content}}
		if changed != nil {
			it.Focus = changed[e.path]
			it.neighbour = !it.Focus
		}
		items = append(items, it)
	}
	packRank(items, priority)
	for i, it := range items {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		it.Tokens = counter.Count(packItemText(format, it.PackFile))
	}
	if counter.Name() == budget.Estimate {
		p.Warnings = append(p.Warnings, "token counts are estimates (counter \"estimate\"): keep a margin below the model's window")
	}
	if err := packFit(p, items, counter); err != nil {
		return nil, err
	}
	return p, nil
}

// packFit decides which items stay, renders the pack and counts it whole.
func packFit(p *FilePack, items []*fileItem, counter budget.Counter) error {
	p.counter = counter
	counter = &packLastCounter{Counter: counter}
	guess := 0 // the last total: the next rendering states about as much
	// set makes the pack hold the kept items and renders it.
	set := func(kept map[string]bool, reason string) {
		p.Files = nil
		for _, it := range items {
			if kept[it.Path] {
				p.Files = append(p.Files, it.PackFile)
			}
		}
		p.Deferred = packDeferredOf(items, kept, reason)
		p.Hash = packHash(p)
		p.out, p.Tokens = packRenderCounted(p, p.Format, counter, guess)
		guess = p.Tokens
	}
	all := make(map[string]bool, len(items))
	for _, it := range items {
		all[it.Path] = true
	}
	if p.Budget == 0 {
		set(all, "")
		return nil
	}

	// The frame: the pack with no file and no note in it (heading, empty
	// tree, the not-packed list). Below it nothing can be met.
	base := counter.Count(packRenderFrame(p))

	// view renders the pack as it would be with kept, for the engine's
	// whole re-count and for the cost of the deferral notes.
	view := func(kept map[string]bool, withFiles bool) ([]byte, int) {
		v := *p
		v.Files = nil
		if withFiles {
			for _, it := range items {
				if kept[it.Path] {
					v.Files = append(v.Files, it.PackFile)
				}
			}
		}
		v.Deferred = packDeferredOf(items, kept, packReasonBudget)
		v.Hash = packHash(&v)
		out, n := packRenderCounted(&v, p.Format, counter, guess)
		if withFiles {
			guess = n
		}
		return out, n
	}
	render := func(kept []budget.Fitted) string {
		k := make(map[string]bool, len(kept))
		for _, f := range kept {
			k[f.ID] = true
		}
		out, _ := view(k, true)
		return string(out)
	}

	fitItems := make([]budget.Item, len(items))
	focusTokens := 0
	for i, it := range items {
		fitItems[i] = budget.Item{ID: it.Path, Kind: "file", Tokens: it.Tokens, Rank: it.rank, Order: int64(i), Pinned: it.Focus}
		if it.Focus {
			focusTokens += it.Tokens
		}
	}
	pinned := focusTokens > 0
	var pinNotes []string // why the changed files lost their pin: kept across attempts
	unpin := func(why string) {
		for i := range fitItems {
			fitItems[i].Pinned = false
		}
		pinned = false
		pinNotes = append(pinNotes, why)
		p.Warnings = append(p.Warnings, why)
	}
	if pinned && base+focusTokens > p.Budget {
		unpin(fmt.Sprintf("the changed files alone (%s tokens) do not fit in budget %s: not all of them are packed",
			packThousands(focusTokens), packThousands(p.Budget)))
	}

	// attempt fits with the current notes style; false means not even one
	// arrangement with the notes fitted.
	attempt := func() (bool, error) {
		var kept map[string]bool // set by every round of the loop below
		if base > p.Budget {
			return false, nil
		}
		// The deferral notes grow as files go, and the engine only knows
		// a fixed frame: fit by the sums alone with the frame plus the
		// notes of the last answer until the answer stops changing, then
		// once more with the whole rendering counted again (rule 6).
		frame := base
		var prev map[string]bool
		for round := 0; ; round++ {
			final := round >= 6
			req := budget.Request{Items: fitItems, Limit: p.Budget, Counter: counter, Frame: frame}
			if final {
				req.Render = render
			}
			res, err := budget.Fit(req)
			if errors.Is(err, budget.ErrOverBudget) && pinned {
				unpin(fmt.Sprintf("the changed files do not fit in budget %s beside the frame and notes: not all of them are packed",
					packThousands(p.Budget)))
				continue
			}
			if err != nil {
				return false, fmt.Errorf("pack %q: %w", p.Name, err)
			}
			if res.FrameOnly {
				return false, nil
			}
			kept = make(map[string]bool, len(res.Kept))
			for _, f := range res.Kept {
				kept[f.ID] = true
			}
			if final {
				break
			}
			if prev != nil && maps.Equal(prev, kept) {
				round = 5 // converged: the next round is the final one
				continue
			}
			prev = kept
			_, frame = view(kept, false)
		}
		// Re-count whole; while over, drop the next file in the order
		// (changed files last), whatever the engine concluded.
		order := packDropOrder(items)
		set(kept, packReasonBudget)
		for p.Tokens > p.Budget {
			next := ""
			for _, focus := range []bool{false, true} {
				for _, it := range order {
					if kept[it.Path] && it.Focus == focus {
						next = it.Path
						break
					}
				}
				if next != "" {
					break
				}
			}
			if next == "" {
				break
			}
			kept = maps.Clone(kept)
			delete(kept, next)
			set(kept, packReasonBudget)
		}
		return p.Tokens <= p.Budget, nil
	}

	warnings := slices.Clone(p.Warnings)
	if len(pinNotes) > 0 {
		warnings = warnings[:len(warnings)-len(pinNotes)]
	}
	ok, err := attempt()
	if err != nil {
		return err
	}
	// One note a file is the rule; when those notes would eat more than a
	// quarter of the budget (a big tree, a small budget), one note a
	// directory may leave room to more files: taken only if it does. The
	// report still lists each file.
	notes := 0
	if ok && len(p.Deferred) > 0 {
		kept := make(map[string]bool, len(p.Files))
		for _, f := range p.Files {
			kept[f.Path] = true
		}
		_, withNotes := view(kept, false)
		notes = withNotes - base
	}
	if !ok || notes > p.Budget/4 {
		full := *p
		p.GroupedNotes = true
		// The warning is part of what is counted, so it goes in first.
		p.Warnings = append(append(slices.Clone(warnings), pinNotes...),
			"the deferral notes are grouped by directory to leave room for files; the report lists each file")
		okGrouped, err := attempt()
		if err != nil {
			return err
		}
		keptTokens := func(fp *FilePack) int {
			n := 0
			for _, f := range fp.Files {
				n += f.Tokens
			}
			return n
		}
		switch {
		case okGrouped && (!ok || keptTokens(p) > keptTokens(&full)):
			ok = true
		case ok:
			*p = full
		}
	}
	if ok {
		return nil
	}

	// Frame only: every file deferred, the notes in the report alone.
	reason := packReasonFrame
	warn := fmt.Sprintf("budget %s is below the frame of the pack (%s tokens): every file was dropped",
		packThousands(p.Budget), packThousands(base))
	if base <= p.Budget {
		reason = packReasonNotes
		warn = fmt.Sprintf("budget %s cannot hold any file with the deferral notes: every file was dropped, the notes are in the report",
			packThousands(p.Budget))
	}
	p.FrameOnly, p.GroupedNotes = true, false
	p.Warnings = append(append(warnings, pinNotes...), warn)
	set(nil, reason)
	return nil
}

// packDropOrder is the engine's total order: rank (least important first),
// then size (largest first), then path.
func packDropOrder(items []*fileItem) []*fileItem {
	order := slices.Clone(items)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.rank != b.rank {
			return a.rank > b.rank
		}
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		return a.Path < b.Path
	})
	return order
}

// packDeferredOf lists the items not in kept, in drop order.
func packDeferredOf(items []*fileItem, kept map[string]bool, reason string) []PackDeferred {
	var out []PackDeferred
	for _, it := range packDropOrder(items) {
		if !kept[it.Path] {
			r := reason
			if it.neighbour && reason == packReasonBudget {
				r = packReasonNeighbour
			}
			out = append(out, PackDeferred{Path: it.Path, Category: it.Category, Rank: it.rank, Tokens: it.Tokens, Reason: r})
		}
	}
	return out
}

// packRank sets each item's rank from the priority list: listed
// categories rank by position (1 = most important); categories missing
// from it rank after all listed ones, sorted by name; neighbours of
// changed files rank after everything.
func packRank(items []*fileItem, priority []string) {
	rank := map[string]int{}
	for _, c := range priority {
		if _, ok := rank[c]; !ok {
			rank[c] = len(rank) + 1
		}
	}
	var missing []string
	for _, it := range items {
		if _, ok := rank[it.Category]; !ok && !slices.Contains(missing, it.Category) {
			missing = append(missing, it.Category)
		}
	}
	sort.Strings(missing)
	for _, c := range missing {
		rank[c] = len(rank) + 1
	}
	for _, it := range items {
		it.rank = rank[it.Category]
		if it.neighbour {
			it.rank = len(rank) + 1
		}
	}
}

// packDiffScope keeps the changed files and the files in the same
// directories (their neighbours); files listed but not packed stay listed
// only if they changed.
func packDiffScope(entries []fileEntry, changed map[string]bool) []fileEntry {
	dirs := map[string]bool{}
	for _, e := range entries {
		if changed[e.path] {
			dirs[fileDir(e.path)] = true
		}
	}
	var out []fileEntry
	for _, e := range entries {
		if changed[e.path] || (e.notPacked == "" && dirs[fileDir(e.path)]) {
			out = append(out, e)
		}
	}
	return out
}

// packCompiled is a compiled PackCategory.
type packCompiled struct {
	pat      gitignorePattern
	category string
}

func packCompileCategories(cats []PackCategory) ([]packCompiled, error) {
	var out []packCompiled
	for _, c := range cats {
		if strings.TrimSpace(c.Category) == "" {
			return nil, fmt.Errorf("pack category for pattern %q: the category name is empty: %w", c.Pattern, ErrPackInvalid)
		}
		if strings.HasPrefix(c.Pattern, "!") {
			return nil, fmt.Errorf("pack category pattern %q: negation means nothing here; give the files the category should match: %w", c.Pattern, ErrPackInvalid)
		}
		if err := packCheckGlob(c.Pattern); err != nil {
			return nil, err
		}
		pat, ok := gitignoreCompile("", c.Pattern)
		if !ok {
			return nil, fmt.Errorf("pack category pattern %q: not a pattern (want e.g. %q or %q): %w", c.Pattern, "docs/", "*.test.ts", ErrPackInvalid)
		}
		out = append(out, packCompiled{pat: pat, category: c.Category})
	}
	return out, nil
}

// packCheckGlob rejects a category pattern with a malformed glob segment
// (an unclosed "[", a trailing backslash): in a .gitignore such a line is
// taken literally, but a category pattern is typed on purpose, and one
// that silently matches nothing is a mistake to report.
func packCheckGlob(pattern string) error {
	for _, seg := range strings.Split(strings.TrimSuffix(pattern, "/"), "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("pack category pattern %q: malformed glob %q (close every \"[\", escape a literal one as \"\\[\"): %w", pattern, seg, ErrPackInvalid)
		}
	}
	return nil
}

// packCategory is the first matching category, else the top-level
// directory, else PackRoot.
func packCategory(cats []packCompiled, p string) string {
	for _, c := range cats {
		if c.pat.match(p, false) {
			return c.category
		}
		// A pattern that matches a parent directory matches the file, as
		// in .gitignore.
		for d := fileDir(p); d != ""; d = fileDir(d) {
			if c.pat.match(d, true) {
				return c.category
			}
		}
	}
	if top, _, ok := strings.Cut(p, "/"); ok {
		return top
	}
	return PackRoot
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
	return "", fmt.Errorf("pack format %q: want md, xml or json: %w", f, ErrPackInvalid)
}

// packHash hashes what the pack holds, independent of the format: each
// packed file's path and content, then the deferred and not-packed paths.
func packHash(p *FilePack) string {
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
func (p *FilePack) ExitCode() int {
	if len(p.Deferred) > 0 || p.FrameOnly {
		return 2
	}
	return 0
}

// Render returns the pack in format ("" for the format it was fitted in).
// Only the fitted format is guaranteed to stay within the budget: another
// format renders the same files and may count differently.
func (p *FilePack) Render(format string) ([]byte, error) {
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
