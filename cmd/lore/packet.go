package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/packet/pack"
	"github.com/spf13/cobra"
)

// packetFlags are the flags of `lore packet`.
type packetFlags struct {
	req     packet.Request
	spec    lore.BudgetSpec
	explain bool
}

func newPacketCommand(a *app) *cobra.Command {
	var pf packetFlags
	c := &cobra.Command{
		Use:   "packet [flags] [QUERY]",
		Short: "Build a Context Packet: ranked records fitted into a token budget",
		Long: `Build a Context Packet for one decision: the focus records, full-text hits
for QUERY, graph neighbours, open obligations and bounding timeline entries,
ranked by decision relevance (profile novel or agent), fitted into the budget
with the deferral ladder, and rendered. The packet goes to stdout, the report
to stderr.

Budget: --budget N (8000, 8k, 1.5k, 1m) or --scope scene|chapter|arc|novel;
--model NAME caps it at the model's window minus --reserve and picks its
encoding.

Exit status: 0 everything fitted; 2 the packet was written but something was
deferred (the notes at its end say what, why, and how to fetch it); 3 the
budget cannot hold the protected content: nothing on stdout, and stderr lists
the protected records and a proposed split; 1 any other error.`,
		Example: `  lore packet --ns tidewater-lamp --focus scene-03 --scope scene
  lore packet --ns tidewater-lamp --focus scene-06 --budget 5k --task draft --when power "the false fire"
  lore packet --ns memory --profile agent --budget 4k "what does the user prefer?"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				pf.req.Query = args[0]
			}
			return a.runPacket(c.Context(), c, &pf)
		},
	}
	f := c.Flags()
	f.StringVar(&pf.req.NS, "ns", defaultNS, "namespace")
	f.StringSliceVar(&pf.req.Focus, "focus", nil, "focus record ids: the active scene, the POV character (repeatable)")
	f.StringVar(&pf.spec.Budget, "budget", "", "token budget: 8000, 8k, 1.5k, 1m, or a scope name")
	f.StringVar(&pf.spec.Scope, "scope", "", "scope: scene (8,000), chapter (20,000), arc (60,000), novel (120,000)")
	f.StringVar(&pf.spec.Model, "model", "", "model name: sets the encoding and caps the budget at its window")
	f.IntVar(&pf.spec.Reserve, "reserve", 0, "tokens to leave for the question, system prompt and answer")
	f.StringVar(&pf.req.Task, "task", "", "task mode: draft, revise, plan or audit")
	f.StringSliceVar(&pf.req.When, "when", nil, "conditions that hold: power, info-control, thematic")
	f.IntVar(&pf.req.Hops, "hops", 1, "graph walk from the focus: 1 or 2")
	f.IntVar(&pf.req.MentionsDepth, "mentions-depth", 1, "how far names bring records in: 1, what the focus names; 2, also what their text names (unprotected, within mention_share of the budget: 10% unless lore.json says)")
	f.BoolVar(&pf.req.ScanQuery, "scan-query", false, "also bring in the records whose names, aliases or keys the query says")
	f.Int64Var(&pf.req.AsOf, "as-of", 0, "story position: leave out what is not true yet (or any more) there (default: the focus's order; -1: no story time)")
	f.StringVar(&pf.req.Profile, "profile", "", "rank table: novel or agent (default from lore.json, else novel)")
	f.StringSliceVar(&pf.req.Kinds, "kind", nil, "only these kinds (focus records always stay)")
	f.StringSliceVar(&pf.req.ExcludeKinds, "exclude-kind", nil, "leave out these kinds")
	f.StringVar(&pf.req.Format, "format", "md", "output format: md, xml or json")
	f.StringVar(&pf.req.Encoding, "encoding", "", "token encoding (default: the store's, or the model's)")
	f.BoolVar(&pf.explain, "explain", false, "print only why each record is included")
	return c
}

func (a *app) runPacket(ctx context.Context, c *cobra.Command, pf *packetFlags) error {
	format := pf.req.Format
	if a.jsonOut && !c.Flags().Changed("format") {
		pf.req.Format, format = "json", "json"
	}
	if pf.req.Hops < 1 || pf.req.Hops > 2 {
		return usageError(c, fmt.Errorf("--hops %d: must be 1 or 2", pf.req.Hops))
	}
	if pf.req.MentionsDepth < 1 || pf.req.MentionsDepth > 2 {
		return usageError(c, fmt.Errorf("--mentions-depth %d: must be 1 or 2", pf.req.MentionsDepth))
	}
	l, err := a.open(true)
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := l.ResolveBudget(pf.spec)
	if err != nil {
		return usageError(c, err)
	}
	pf.req.Budget = res.Tokens
	if pf.req.Scope == "" {
		pf.req.Scope = cmp.Or(pf.spec.Scope, res.DefaultScope)
	}
	if res.DefaultScope != "" {
		a.note("note: no --budget, --scope or --model: using scope %s (%s tokens; set \"scope\" in lore.json to change it)\n",
			res.DefaultScope, numfmt.Thousands(res.Tokens))
	}
	if pf.req.Encoding == "" && pf.spec.Model != "" {
		pf.req.Encoding = res.Encoding
	}
	if res.Estimate {
		a.note("note: model %s has no exact tokenizer here: counts are estimates and the budget keeps a %d%% margin (%d tokens)\n",
			pf.spec.Model, budget.EstimateMargin, res.Tokens)
	}
	if l.Stale() {
		a.note("warning: the search index lags the store; hits are checked against the store (a writable command catches it up)\n")
	}
	p, err := l.Packet(ctx, pf.req)
	if err != nil {
		return a.packetError(err)
	}
	if err := a.writePacket(p, format, pf.explain); err != nil {
		return err
	}
	if p.Incomplete() {
		return errDeferred
	}
	return nil
}

// packetError turns a packet that cannot fit into exit 3 with its report
// (in the error itself under --json, so stderr holds one document).
func (a *app) packetError(err error) error {
	var split *packet.SplitError
	if !errors.As(err, &split) {
		return err
	}
	if a.jsonOut {
		return &exitStatus{code: exitNoFit, err: errors.New(strings.TrimSpace(split.Report()))}
	}
	fmt.Fprint(a.streams.err, split.Report())
	return &exitStatus{code: exitNoFit, err: err}
}

// writePacket prints p: its explain table, or its rendering in format
// (wrapped in a JSON document under --json when format is md or xml),
// then the report on stderr.
func (a *app) writePacket(p *packet.Packet, format string, explain bool) error {
	if explain {
		if a.jsonOut {
			return a.printJSON(newExplainJSON(p))
		}
		a.printf("%s", p.Explain())
		return nil
	}
	out, err := p.Render(format)
	if err != nil {
		return err
	}
	if a.jsonOut && format != "json" {
		err = a.printJSON(newRenderedJSON(p, format, out))
	} else {
		_, err = a.streams.out.Write(out)
	}
	if err != nil {
		return err
	}
	if !a.quiet {
		fmt.Fprint(a.streams.err, p.Report())
	}
	return nil
}

func newPackCommand(a *app) *cobra.Command {
	var (
		budgetText string
		opts       pack.Options
		categories []string
		priority   []string
		encoding   string
		out        string
		report     string
	)
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

Exit status: 0 everything packed; 2 something was dropped (see the report).`,
		Example: `  lore pack . --budget 20k > pack.md
  lore pack --git-diff --budget 8k
  lore pack src --category '**/*_test.go=tests' --priority src,tests,docs`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if c.Flags().Changed("budget") {
				n, err := budget.ParseBudget(budgetText, nil)
				if err != nil {
					return usageError(c, err)
				}
				if n == 0 {
					return usageError(c, fmt.Errorf("--budget %q: a pack needs at least one token (leave --budget out for no budget)", budgetText))
				}
				opts.Budget = n
			}
			if report != "summary" && report != "full" {
				return usageError(c, fmt.Errorf("--report %q: want summary (the dropped files by category past %d of them) or full (every dropped file)", report, pack.ReportListMax))
			}
			counter, err := budget.NewCounter(encoding)
			if err != nil {
				return usageError(c, err)
			}
			opts.Counter = counter
			if a.jsonOut && !c.Flags().Changed("format") {
				opts.Format = "json"
			}
			for _, kv := range categories {
				pat, cat, ok := strings.Cut(kv, "=")
				if !ok || pat == "" || cat == "" {
					return usageError(c, fmt.Errorf("--category %q: want PATTERN=CATEGORY", kv))
				}
				opts.Categories = append(opts.Categories, pack.Category{Pattern: pat, Category: cat})
			}
			opts.Priority = priority
			if len(opts.Categories) == 0 || len(opts.Priority) == 0 {
				if cfg, ok := a.optionalConfig(); ok {
					if len(opts.Categories) == 0 {
						opts.Categories = cfg.Pack.Categories
					}
					if len(opts.Priority) == 0 {
						opts.Priority = cfg.Pack.Priority
					}
				}
			}
			if out != "" && out != "-" {
				// Never pack the pack itself on a second run.
				abs, err := filepath.Abs(out)
				if err != nil {
					return err
				}
				opts.Exclude = append(opts.Exclude, abs)
			}
			bar := a.progressLine()
			if bar != nil {
				opts.Progress = func(phase string, done, total int) {
					unit := "files"
					if phase == "fitting" {
						unit = ""
					}
					bar.update(phase, unit, done, total)
				}
			}
			p, err := pack.Dir(c.Context(), dir, opts)
			bar.close()
			if err != nil {
				return err
			}
			rendered, err := p.Render(opts.Format)
			if err != nil {
				return err
			}
			if err := a.writePack(p, rendered, out, cmp.Or(opts.Format, "md")); err != nil {
				return err
			}
			if !a.quiet {
				rep := p.Report()
				if report == "full" {
					rep = p.ReportFull()
				}
				fmt.Fprint(a.streams.err, rep)
			}
			if p.ExitCode() == exitDeferred {
				return errDeferred
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&budgetText, "budget", "", "token budget: 20000, 20k, 1.5k, 1m (default: none)")
	f.StringVar(&opts.Format, "format", "md", "output format: md, xml or json")
	f.StringArrayVar(&categories, "category", nil, "PATTERN=CATEGORY, first match wins (repeatable; replaces the default categories)")
	f.StringSliceVar(&priority, "priority", nil, "categories, most important first (default src,lib,app,packages,(root),tests,test,docs)")
	f.BoolVar(&opts.GitDiff, "git-diff", false, "focus on files changed against HEAD; their neighbours go first")
	f.StringVar(&encoding, "encoding", "o200k_base", "token encoding: o200k_base, cl100k_base or estimate")
	f.StringVarP(&out, "output", "o", "", "write the pack to this file instead of stdout")
	f.StringVar(&report, "report", "summary", "the report on stderr: summary (past 20 dropped files, one line a category) or full (every dropped file)")
	return c
}

// writePack writes a rendered pack to stdout, or to the file out with,
// under --json, a summary of it on stdout.
func (a *app) writePack(p *pack.Pack, rendered []byte, out, format string) error {
	if out == "" || out == "-" {
		_, err := a.streams.out.Write(rendered)
		return err
	}
	if err := writeFileAtomic("pack", out, a.storeDirIfAny(), func(w io.Writer) error {
		_, err := w.Write(rendered)
		return err
	}); err != nil {
		return err
	}
	if !a.jsonOut {
		return nil
	}
	return a.printJSON(packSummary{File: out, Bytes: len(rendered), Format: format,
		Encoding: p.Encoding, Budget: p.Budget, Tokens: p.Tokens, Hash: p.Hash,
		Files: len(p.Files), Deferred: len(p.Deferred), NotPacked: len(p.NotPacked)})
}

// optionalConfig loads lore.json of the discovered store, if there is one.
func (a *app) optionalConfig() (lore.Config, bool) {
	dir, err := a.storeDir()
	if err != nil {
		return lore.Config{}, false
	}
	cfg, err := lore.LoadConfig(filepath.Join(dir, lore.ConfigFile))
	if err != nil {
		a.note("warning: %v (ignored for pack)\n", err)
		return lore.Config{}, false
	}
	return cfg, true
}
