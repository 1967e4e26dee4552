package pack

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
)

// packDropOrder is the engine's total order: rank (least important first),
// then level (the highest first: the order of sources under the default
// categories, srcLevel), then size (largest first), then path.
func packDropOrder(items []*fileItem) []*fileItem {
	order := slices.Clone(items)
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.rank != b.rank {
			return a.rank > b.rank
		}
		if a.level != b.level {
			return a.level > b.level
		}
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		return a.Path < b.Path
	})
	return order
}

// packDeferredOf lists the items not in kept, in drop order.
func packDeferredOf(items []*fileItem, kept map[string]bool, reason string) []Deferred {
	var out []Deferred
	for _, it := range packDropOrder(items) {
		if !kept[it.Path] {
			r := reason
			if it.neighbour && reason == packReasonBudget {
				r = packReasonNeighbour
			}
			out = append(out, Deferred{Path: it.Path, Category: it.Category, Rank: it.rank, Tokens: it.Tokens, Reason: r})
		}
	}
	return out
}

// packRank sets each item's rank from the priority list: listed
// categories rank by position (1 = most important); the categories
// missing from it form one pool ranked after all listed ones, so that
// among them the largest file goes first, whatever its category;
// neighbours of changed files rank after everything.
func packRank(items []*fileItem, priority []string) {
	rank := map[string]int{}
	for _, c := range priority {
		if _, ok := rank[c]; !ok {
			rank[c] = len(rank) + 1
		}
	}
	pool := len(rank) + 1
	for _, it := range items {
		r, ok := rank[it.Category]
		switch {
		case it.neighbour:
			r = pool + 1
		case !ok:
			r = pool
		}
		it.rank = r
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

// packCompiled is a compiled Category.
type packCompiled struct {
	pat      gitignorePattern
	category string
}

func packCompileCategories(cats []Category) ([]packCompiled, error) {
	var out []packCompiled
	for _, c := range cats {
		if strings.TrimSpace(c.Category) == "" {
			return nil, badvalue.Errorf(c.Pattern, "pack category for pattern %q: the category name is empty: %w", c.Pattern, ErrInvalid)
		}
		if strings.HasPrefix(c.Pattern, "!") {
			return nil, badvalue.Errorf(c.Pattern, "pack category pattern %q: negation means nothing here; give the files the category should match: %w", c.Pattern, ErrInvalid)
		}
		if err := packCheckGlob(c.Pattern); err != nil {
			return nil, err
		}
		pat, ok := gitignoreCompile("", c.Pattern)
		if !ok {
			return nil, badvalue.Errorf(c.Pattern, "pack category pattern %q: not a pattern (want e.g. %q or %q): %w", c.Pattern, "docs/", "*.test.ts", ErrInvalid)
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
			return badvalue.Errorf(pattern, "pack category pattern %q: malformed glob %q (close every \"[\", escape a literal one as \"\\[\"): %w", pattern, seg, ErrInvalid)
		}
	}
	return nil
}

// packCategory is the first matching category, else the top-level
// directory, else Root.
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
	return Root
}
