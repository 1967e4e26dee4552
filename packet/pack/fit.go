package pack

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/numfmt"
)

// fitter fits the items of one pack into its budget: the engine decides
// which files stay, the pack is rendered, and the rendering is counted
// again whole (lmpack's rule 4). Its methods are the steps of packFit.
type fitter struct {
	p       *Pack
	items   []*fileItem
	counter budget.Counter // remembers the last count (packLastCounter)
	guess   int            // the last total: the next rendering states about as much
	base    int            // the frame: the pack with no file and no note
	req     []budget.Item  // the items as the engine sees them
	pinned  bool           // the changed files (GitDiff) are pinned
	// pinNotes say why the changed files lost their pin; they are kept
	// across attempts.
	pinNotes []string
}

// packFit decides which items stay, renders the pack and counts it whole.
func packFit(p *Pack, items []*fileItem, counter budget.Counter) error {
	p.counter = counter
	f := &fitter{p: p, items: items, counter: &packLastCounter{Counter: counter}}
	if p.Budget == 0 {
		all := make(map[string]bool, len(items))
		for _, it := range items {
			all[it.Path] = true
		}
		f.set(all, "")
		return nil
	}
	// Below the frame (heading, empty tree, the not-packed list) nothing
	// can be met.
	f.base = f.counter.Count(packRenderFrame(p))
	f.engineItems()

	warnings := slices.Clone(p.Warnings)
	if len(f.pinNotes) > 0 {
		warnings = warnings[:len(warnings)-len(f.pinNotes)]
	}
	ok, err := f.attempt()
	if err != nil {
		return err
	}
	if ok, err = f.maybeGroup(ok, warnings); err != nil || ok {
		return err
	}
	f.frameOnly(warnings)
	return nil
}

// engineItems builds the engine's items; the changed files are pinned
// unless they alone overflow the budget beside the frame.
func (f *fitter) engineItems() {
	f.req = make([]budget.Item, len(f.items))
	focusTokens := 0
	for i, it := range f.items {
		// The engine drops the lowest score first: a higher level goes
		// first.
		f.req[i] = budget.Item{ID: it.Path, Kind: "file", Tokens: it.Tokens, Rank: it.rank, Score: -float64(it.level), Order: int64(i), Pinned: it.Focus}
		if it.Focus {
			focusTokens += it.Tokens
		}
	}
	f.pinned = focusTokens > 0
	if f.pinned && f.base+focusTokens > f.p.Budget {
		f.unpin(fmt.Sprintf("the changed files alone (%s tokens) do not fit in budget %s: not all of them are packed",
			numfmt.Thousands(focusTokens), numfmt.Thousands(f.p.Budget)))
	}
}

// unpin lets the changed files go like any other, and says why.
func (f *fitter) unpin(why string) {
	for i := range f.req {
		f.req[i].Pinned = false
	}
	f.pinned = false
	f.pinNotes = append(f.pinNotes, why)
	f.p.Warnings = append(f.p.Warnings, why)
}

// kept lists the items of kept in walk order.
func (f *fitter) kept(kept map[string]bool) []File {
	var out []File
	for _, it := range f.items {
		if kept[it.Path] {
			out = append(out, it.File)
		}
	}
	return out
}

// set makes the pack hold the kept items and renders it.
func (f *fitter) set(kept map[string]bool, reason string) {
	p := f.p
	p.Files = f.kept(kept)
	p.Deferred = packDeferredOf(f.items, kept, reason)
	p.Hash = packHash(p)
	p.out, p.Tokens = packRenderCounted(p, p.Format, f.counter, f.guess)
	f.guess = p.Tokens
}

// view renders the pack as it would be with kept, for the engine's whole
// re-count and (without the files) for the cost of the deferral notes.
func (f *fitter) view(kept map[string]bool, withFiles bool) ([]byte, int) {
	v := *f.p
	v.Files = nil
	if withFiles {
		v.Files = f.kept(kept)
	}
	v.Deferred = packDeferredOf(f.items, kept, packReasonBudget)
	v.Hash = packHash(&v)
	out, n := packRenderCounted(&v, f.p.Format, f.counter, f.guess)
	if withFiles {
		f.guess = n
	}
	return out, n
}

// render is the engine's Render: the pack with the fitted files.
func (f *fitter) render(fitted []budget.Fitted) string {
	out, _ := f.view(keptSet(fitted), true)
	return string(out)
}

func keptSet(fitted []budget.Fitted) map[string]bool {
	k := make(map[string]bool, len(fitted))
	for _, it := range fitted {
		k[it.ID] = true
	}
	return k
}

// attempt fits with the current notes style; false means not even one
// arrangement with the notes fitted.
func (f *fitter) attempt() (bool, error) {
	if f.base > f.p.Budget {
		return false, nil
	}
	kept, ok, err := f.converge()
	if err != nil || !ok {
		return false, err
	}
	kept = f.recount(kept)
	if f.p.Tokens > f.p.Budget {
		return false, nil
	}
	f.putBack(kept)
	return f.p.Tokens <= f.p.Budget, nil
}

// converge runs the engine. The deferral notes grow as files go, and the
// engine only knows a fixed frame: it fits by the sums alone with the
// frame plus the notes of the last answer until the answer stops
// changing, then once more with the whole rendering counted again.
func (f *fitter) converge() (map[string]bool, bool, error) {
	var kept, prev map[string]bool
	frame := f.base
	for round := 0; ; round++ {
		final := round >= 6
		req := budget.Request{Items: f.req, Limit: f.p.Budget, Counter: f.counter, Frame: frame}
		if final {
			req.Render = f.render
		}
		res, err := budget.Fit(req)
		if errors.Is(err, budget.ErrOverBudget) && f.pinned {
			f.unpin(fmt.Sprintf("the changed files do not fit in budget %s beside the frame and notes: not all of them are packed",
				numfmt.Thousands(f.p.Budget)))
			continue
		}
		if err != nil {
			return nil, false, badvalue.Errorf(f.p.Name, "pack %q: %w", f.p.Name, err)
		}
		if res.FrameOnly {
			return nil, false, nil
		}
		kept = keptSet(res.Kept)
		if final {
			return kept, true, nil
		}
		if prev != nil && maps.Equal(prev, kept) {
			round = 5 // converged: the next round is the final one
			continue
		}
		prev = kept
		_, frame = f.view(kept, false)
	}
}

// recount renders the pack with kept and counts it whole; while over, it
// drops the next file in the order (changed files last), whatever the
// engine concluded.
func (f *fitter) recount(kept map[string]bool) map[string]bool {
	order := packDropOrder(f.items)
	f.set(kept, packReasonBudget)
	for f.p.Tokens > f.p.Budget {
		next := nextToDrop(order, kept)
		if next == "" {
			break
		}
		kept = maps.Clone(kept)
		delete(kept, next)
		f.set(kept, packReasonBudget)
	}
	return kept
}

// putBackSlack bounds how far the whole rendering's count may move from
// the sum of its sections' counts when one file comes back: the joins
// of the tree, the block and the notes with what is around them, and the
// digits of the stated totals.
const putBackSlack = 24

// putBack is lmpack's rule 3, decided by the real count of the whole
// rendering rather than by the sums: it starts again from the walk's
// prefix (every file of the drop order up to the most important one
// dropped is out), then walks that prefix back from the most important
// file and restores each one that still fits. The engine's own put-back
// works on sums whose frame holds the notes of files it then puts back,
// and the re-count may drop more after it: either can leave room a file
// would still fit in.
//
// What a file adds is measured by sections (its block, the tree and the
// notes counted with and without it); far from the budget that decides,
// near it the whole pack is rendered and counted. The result is what
// restoring one file at a time by the real count gives.
func (f *fitter) putBack(kept map[string]bool) {
	order := f.dropOrder()
	pos := 0
	for i, it := range order {
		if !kept[it.Path] {
			pos = i + 1
		}
	}
	start := make(map[string]bool, len(order)-pos)
	for _, it := range order[pos:] {
		start[it.Path] = true
	}
	// The pack with kept is rendered and counted: with fewer files it
	// counts no more (a file costs more than its note), which bounds the
	// count of start without rendering it.
	b := &putBacker{f: f, upper: f.p.Tokens, exact: len(start) == len(kept)}
	b.reset(start)
	for i := pos - 1; i >= 0; i-- {
		b.try(order[i])
	}
	f.set(b.kept, packReasonBudget)
	if f.p.Tokens > f.p.Budget { // a bound did not hold: the re-count rules
		f.recount(b.kept)
	}
}

// dropOrder is the order files go in: the engine's order, changed files
// last.
func (f *fitter) dropOrder() []*fileItem {
	var out, focus []*fileItem
	for _, it := range packDropOrder(f.items) {
		if it.Focus {
			focus = append(focus, it)
		} else {
			out = append(out, it)
		}
	}
	return append(out, focus...)
}

// putBacker restores files one at a time, tracking an upper bound of the
// real count of the pack with them in.
type putBacker struct {
	f     *fitter
	kept  map[string]bool
	upper int  // at least the real count of the pack with kept
	exact bool // upper is the real count
	tree  int  // the count of the tree of kept (md, xml)
	notes int  // the count of the notes of the files not in kept
	group int  // the longest group line, when notes are grouped
}

// reset makes kept the files in, and counts its sections.
func (b *putBacker) reset(kept map[string]bool) {
	b.kept = kept
	b.tree, b.notes = b.sections(kept)
	if b.f.p.GroupedNotes {
		for _, g := range packDeferredGroups(packDeferredOf(b.f.items, kept, packReasonBudget)) {
			b.group = max(b.group, b.f.counter.Count(packGroupText(b.f.p.Format, g)))
		}
	}
}

// sections counts the tree and the notes of the pack with kept.
func (b *putBacker) sections(kept map[string]bool) (tree, notes int) {
	f := b.f
	if f.p.Format != "json" {
		v := Pack{Name: f.p.Name, Files: f.kept(kept)}
		tree = f.counter.Count(packTree(&v))
	}
	ds := packDeferredOf(f.items, kept, packReasonBudget)
	notes = f.counter.Count(packNotesText(f.p.Format, f.p.GroupedNotes, ds))
	return tree, notes
}

// try restores it if the pack with it counts within the budget.
func (b *putBacker) try(it *fileItem) {
	f := b.f
	// Cheap first: its block costs at least its counted tokens less its
	// tree line, and its note frees at most the note (or, grouped, the
	// longest group line).
	if b.exact {
		free := b.group
		if !f.p.GroupedNotes {
			free = f.counter.Count(packNoteText(f.p.Format, f.deferredOf(it)))
		}
		tree := f.counter.Count(packItemText(f.p.Format, it.File)[len(packItemBlock(f.p.Format, it.File)):])
		if b.upper+it.Tokens-tree-free-2*putBackSlack > f.p.Budget {
			return
		}
	}
	try := maps.Clone(b.kept)
	try[it.Path] = true
	tree, notes := b.sections(try)
	add := f.counter.Count(packItemBlock(f.p.Format, it.File)) + tree - b.tree + notes - b.notes
	if b.upper+add+putBackSlack <= f.p.Budget {
		b.take(try, b.upper+add+putBackSlack, false, tree, notes)
		return
	}
	if !b.exact {
		_, b.upper = f.view(b.kept, true)
		b.exact = true
	}
	if b.upper+add-putBackSlack > f.p.Budget {
		return // cannot fit, whatever the joins
	}
	if _, n := f.view(try, true); n <= f.p.Budget {
		b.take(try, n, true, tree, notes)
	}
}

func (b *putBacker) take(kept map[string]bool, upper int, exact bool, tree, notes int) {
	b.kept, b.upper, b.exact, b.tree, b.notes = kept, upper, exact, tree, notes
}

// deferredOf is the deferral note of one item.
func (f *fitter) deferredOf(it *fileItem) Deferred {
	r := packReasonBudget
	if it.neighbour {
		r = packReasonNeighbour
	}
	return Deferred{Path: it.Path, Category: it.Category, Rank: it.rank, Tokens: it.Tokens, Reason: r}
}

// nextToDrop is the first kept file of order that is not a changed file,
// else the first kept changed file, else "".
func nextToDrop(order []*fileItem, kept map[string]bool) string {
	for _, focus := range []bool{false, true} {
		for _, it := range order {
			if kept[it.Path] && it.Focus == focus {
				return it.Path
			}
		}
	}
	return ""
}

// maybeGroup tries one deferral note a directory instead of one a file.
// One note a file is the rule; when those notes would eat more than a
// quarter of the budget (a big tree, a small budget), one note a
// directory may leave room to more files: taken only if it does. The
// report still lists each file. ok says whether the pack now fits.
func (f *fitter) maybeGroup(ok bool, warnings []string) (bool, error) {
	p := f.p
	notes := 0
	if ok && len(p.Deferred) > 0 {
		kept := make(map[string]bool, len(p.Files))
		for _, file := range p.Files {
			kept[file.Path] = true
		}
		_, withNotes := f.view(kept, false)
		notes = withNotes - f.base
	}
	if ok && notes <= p.Budget/4 {
		return true, nil
	}
	full := *p
	p.GroupedNotes = true
	// The warning is part of what is counted, so it goes in first.
	p.Warnings = append(append(slices.Clone(warnings), f.pinNotes...),
		"the deferral notes are grouped by directory to leave room for files; the report lists each file")
	okGrouped, err := f.attempt()
	if err != nil {
		return false, err
	}
	switch {
	case okGrouped && (!ok || keptTokens(p) > keptTokens(&full)):
		return true, nil
	case ok:
		*p = full
		return true, nil
	}
	return false, nil
}

func keptTokens(p *Pack) int {
	n := 0
	for _, f := range p.Files {
		n += f.Tokens
	}
	return n
}
