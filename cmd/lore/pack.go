package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/packet/pack"
	"github.com/spf13/cobra"
)

// packFlags are the flags of `lore pack`; opts gathers what they set
// directly, the rest is parsed into it by packOptions.
type packFlags struct {
	budgetText string
	opts       pack.Options
	categories []string
	priority   []string
	encoding   string
	out        string
	report     string
}

func newPackCommand(a *app) *cobra.Command {
	var pf packFlags
	c := &cobra.Command{
		Use:   "pack [flags] [DIR]",
		Short: "Pack a directory of files into a budgeted Context Packet",
		Long: `Pack the files of DIR (default .) for a model: .gitignore honoured, binary
files listed but not packed, a tree of the included files at the top. Over
budget, whole files are dropped: categories from the end of the priority
first, largest first within a category; then what still fits is put back,
and the rendered pack is counted again whole.

A file's category is the first matching --category PATTERN=NAME, else its
top-level directory, else (root). Without --category (or "categories" in
lore.json) the defaults apply: sources of any language are src; tests by
name (*_test.go, test_*.py, *_test.py, *.test.*, *.spec.*, *_spec.rb) and
tests/ are tests; testdata/, fixtures/ and fuzz corpora are fixtures; *.md,
*.mdx and docs/ are docs; go.sum, package-lock.json and *.lock are lock;
vendor/ is vendor. Categories missing from the priority are one pool,
dropped first, largest first. With the default categories, the front
doors of the sources stay longest (doc.*, main.*, index.*, __init__.py,
lib.rs, the file named after its directory or, at the top, after the
project), the deepest directories go first. Categories and priority also come from the
"pack" section of lore.json when a store is found.

The pack is never over its budget. Below its frame (heading, tree, the
files not packed) every file is dropped and the frame is cut to what fits:
its title and a warning, its title, an empty document, or nothing; the
report names the frame's size.

Exit status: 0 everything packed; 2 something was dropped (see the report).`,
		Example: `  lore pack . --budget 20k > pack.md
  lore pack --git-diff --budget 8k
  lore pack src --category '**/*_test.go=tests' --priority src,tests,docs`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmpty(c, "budget", "format", "encoding", "model"); err != nil {
				return err
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return a.runPack(c, &pf, dir)
		},
	}
	f := c.Flags()
	f.StringVar(&pf.budgetText, "budget", "", "token budget: 20000, 20k, 1.5k, 1m (default: none)")
	f.StringVar(&pf.opts.Format, "format", "md", "output format: md, xml or json")
	f.StringArrayVar(&pf.categories, "category", nil, "PATTERN=CATEGORY, first match wins (repeatable; replaces the default categories)")
	f.StringSliceVar(&pf.priority, "priority", nil, "categories, most important first (default src,lib,app,packages,(root),tests,test,docs)")
	f.BoolVar(&pf.opts.GitDiff, "git-diff", false, "focus on files changed against HEAD; their neighbours go first")
	f.StringVar(&pf.encoding, "encoding", "o200k_base", "token encoding: o200k_base, cl100k_base or estimate")
	f.StringVarP(&pf.out, "output", "o", "", "write the pack to this file instead of stdout")
	f.StringVar(&pf.report, "report", "summary", "the report on stderr: summary (past 20 dropped files, one line a category) or full (every dropped file)")
	return c
}

// runPack packs dir, writes the pack and its report, and returns
// errDeferred when something was dropped.
func (a *app) runPack(c *cobra.Command, pf *packFlags, dir string) error {
	if err := a.packOptions(c, pf); err != nil {
		return err
	}
	opts := &pf.opts
	bar := a.progressLine()
	if bar != nil {
		opts.Progress = packProgress(bar)
	}
	p, err := pack.Dir(c.Context(), dir, *opts)
	bar.close()
	if err != nil {
		return err
	}
	rendered, err := p.Render(opts.Format)
	if err != nil {
		return err
	}
	if err := a.writePack(p, rendered, pf.out, cmp.Or(opts.Format, "md")); err != nil {
		return err
	}
	if !a.quiet {
		rep := p.Report()
		if pf.report == "full" {
			rep = p.ReportFull()
		}
		fmt.Fprint(a.streams.err, rep)
	}
	if p.ExitCode() == exitDeferred {
		return errDeferred
	}
	return nil
}

// packOptions checks the flags and completes pf.opts from them and from
// lore.json; a bad flag is a usage error.
func (a *app) packOptions(c *cobra.Command, pf *packFlags) error {
	opts := &pf.opts
	if c.Flags().Changed("budget") {
		n, err := budget.ParseBudget(pf.budgetText, nil)
		if err != nil {
			return usageError(c, err)
		}
		if n == 0 {
			return usageError(c, badvalue.Errorf(pf.budgetText, "--budget %q: a pack needs at least one token (leave --budget out for no budget)", pf.budgetText))
		}
		opts.Budget = n
	}
	if pf.report != "summary" && pf.report != "full" {
		return usageError(c, badvalue.Errorf(pf.report, "--report %q: want summary (the dropped files by category past %d of them) or full (every dropped file)", pf.report, pack.ReportListMax))
	}
	counter, err := budget.NewCounter(pf.encoding)
	if err != nil {
		return usageError(c, err)
	}
	opts.Counter = counter
	if a.jsonOut && !c.Flags().Changed("format") {
		opts.Format = "json"
	}
	if opts.Categories, err = parseCategories(pf.categories); err != nil {
		return usageError(c, err)
	}
	opts.Priority = pf.priority
	a.packConfig(opts)
	if pf.out != "" && pf.out != "-" {
		// Never pack the pack itself on a second run.
		abs, err := filepath.Abs(pf.out)
		if err != nil {
			return err
		}
		opts.Exclude = append(opts.Exclude, abs)
	}
	return nil
}

// parseCategories reads --category PATTERN=CATEGORY values.
func parseCategories(kvs []string) ([]pack.Category, error) {
	var cats []pack.Category
	for _, kv := range kvs {
		pat, cat, ok := strings.Cut(kv, "=")
		if !ok || pat == "" || cat == "" {
			return nil, badvalue.Errorf(kv, "--category %q: want PATTERN=CATEGORY", kv)
		}
		cats = append(cats, pack.Category{Pattern: pat, Category: cat})
	}
	return cats, nil
}

// packConfig fills the categories and priority the flags left empty from
// the "pack" section of lore.json, when a store is found.
func (a *app) packConfig(opts *pack.Options) {
	if len(opts.Categories) > 0 && len(opts.Priority) > 0 {
		return
	}
	cfg, ok := a.optionalConfig()
	if !ok {
		return
	}
	if len(opts.Categories) == 0 {
		opts.Categories = cfg.Pack.Categories
	}
	if len(opts.Priority) == 0 {
		opts.Priority = cfg.Pack.Priority
	}
}

// packProgress shows pack's phases on bar: files while reading, a bare
// count while fitting.
func packProgress(bar *progress) func(phase string, done, total int) {
	return func(phase string, done, total int) {
		unit := "files"
		if phase == "fitting" {
			unit = ""
		}
		bar.update(phase, unit, done, total)
	}
}
