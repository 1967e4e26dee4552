package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
	"github.com/spf13/cobra"
)

func newSearchCommand(a *app) *cobra.Command {
	var q index.Query
	var vectorFile string
	c := &cobra.Command{
		Use:   "search [flags] QUERY",
		Short: "Full-text search within one namespace (with --query-vector-file, by words and vector fused)",
		Args:  cobra.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if q.Limit < 0 {
				return usageError(c, fmt.Errorf("--limit %d: must be positive", q.Limit))
			}
			if len(args) == 0 && vectorFile == "" {
				return usageError(c, fmt.Errorf("give a QUERY, a --query-vector-file, or both"))
			}
			if len(args) == 1 {
				q.Text = args[0]
			}
			if vectorFile != "" {
				v, err := readVectorFile(a.streams.in, vectorFile)
				if err != nil {
					return err
				}
				q.Vector = v
			}
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			if l.Stale() {
				a.note("warning: the index lags the store; results are checked against the store (a writable command catches it up)\n")
			}
			hits, err := l.Search(c.Context(), q)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"ns": q.NS, "query": q.Text, "hits": hits})
			}
			for _, h := range hits {
				a.printf("%.3f\t%s\t%s\t%s\n", h.Score, h.ID, h.Kind, h.Title)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&q.NS, "ns", defaultNS, "namespace")
	f.StringSliceVar(&q.Kinds, "kind", nil, "only these kinds")
	f.StringSliceVar(&q.Tags, "tag", nil, "only records with these tags")
	f.IntVar(&q.Limit, "limit", 20, "at most this many hits")
	f.StringVar(&vectorFile, "query-vector-file", "", "the query's embedding, from the model that embedded the records: hits by words and by vector, fused ('-' for stdin)")
	return c
}

func newReindexCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the search index from the store alone",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(false)
			if err != nil {
				return err
			}
			defer l.Close()
			bar := a.progressLine()
			err = l.ReindexContext(withProgress(c.Context(), bar))
			bar.close()
			if err != nil {
				return err
			}
			st, err := l.Stats("")
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"records": st.Records, "seq": st.LastSeq})
			}
			a.note("reindexed %s (change log at %s)\n", plural(st.Records, "record"), numfmt.Thousands(int(st.LastSeq)))
			return nil
		},
	}
}

func newCheckCommand(a *app) *cobra.Command {
	var (
		strict         bool
		salvage        string
		contradictions bool
		ns             string
	)
	cmd := &cobra.Command{
		Use:   "check [--strict] [--salvage NEWDIR] [--contradictions [--ns NS]]",
		Short: "Verify the store and its index; say in words what is wrong",
		Long: `Check bbolt's own consistency, that both directions of every link agree,
that the change log has no gaps, dangling links, cached token counts, the
index's watermark, and that the index holds exactly the store's records
(each one it lacks or holds beyond them is named). Exit 1 when something is wrong. A link to a record
that does not exist (yet) is legal: it is reported as a warning (exit 0)
unless --strict makes warnings errors. With --json each problem carries
"severity": "error" or "warning".

A damaged lore.bolt (truncated, scribbled over) is refused by every command
with exit 1. --salvage NEWDIR reads what is still readable of it, page by
page without trusting any, into a new store in NEWDIR: every record whose
head and body survive, and every link, with a count of what was lost.
Records start afresh there (version 1), as with an import. The damaged
store is only read.

--contradictions lists, instead, the records that contradict each other:
two records that state different values of one attribute of one subject
(meta "fact.ATTRIBUTE" about meta.subject, or a record's own fields), both
holding at some same time or story position (meta.valid_from,
valid_until), neither superseding the other (lore put --supersedes). One
line each, --json for the list; exit 0 whatever it finds: the writer
decides (docs/TIME.md).`,
		Example: `  lore check
  lore check --salvage ../rescued/.lore
  lore check --contradictions --ns tidewater-lamp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if salvage != "" {
				return a.salvage(salvage)
			}
			if contradictions {
				return a.contradictions(ns)
			}
			if c.Flags().Changed("ns") {
				return usageError(c, fmt.Errorf("--ns is for --contradictions: the store check covers every namespace"))
			}
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			probs, err := l.Check()
			if err != nil {
				return err
			}
			errs := 0
			for i := range probs {
				if probs[i].Severity == "" {
					probs[i].Severity = store.SeverityError
				}
				if !probs[i].Warning() || strict {
					errs++
				}
			}
			if a.jsonOut {
				if probs == nil {
					probs = []store.Problem{}
				}
				if err := a.printJSON(map[string]any{"ok": errs == 0, "problems": probs}); err != nil {
					return err
				}
			} else {
				for _, p := range probs {
					where := ""
					if p.ID != "" {
						where = fmt.Sprintf("%s/%s: ", p.NS, p.ID)
					}
					a.printf("%s%s: %s\n", where, p.Severity, p.What)
				}
			}
			if errs > 0 {
				return &exitStatus{code: exitError, err: fmt.Errorf("check: %d problem(s) in %s", errs, l.Dir())}
			}
			if len(probs) > 0 {
				a.note("ok: %s (%d warning(s))\n", l.Dir(), len(probs))
				return nil
			}
			a.note("ok: %s\n", l.Dir())
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings (dangling links) as errors")
	cmd.Flags().StringVar(&salvage, "salvage", "", "copy what is readable of a damaged store into a new store in this folder")
	cmd.Flags().BoolVar(&contradictions, "contradictions", false, "list the records that contradict each other instead (docs/TIME.md)")
	cmd.Flags().StringVar(&ns, "ns", "", "with --contradictions: only this namespace (default: every one)")
	return cmd
}

// contradictions runs `check --contradictions`: one line a contradiction,
// or the list under --json.
func (a *app) contradictions(ns string) error {
	l, err := a.open(true)
	if err != nil {
		return err
	}
	defer l.Close()
	cs, err := l.Contradictions(ns)
	if err != nil {
		return err
	}
	if a.jsonOut {
		if cs == nil {
			cs = []lore.Contradiction{}
		}
		return a.printJSON(map[string]any{"contradictions": cs})
	}
	for _, c := range cs {
		a.printf("%s: %s %s: %s says %q, %s says %q\n", c.NS, c.Subject, c.Attribute, c.A, c.AValue, c.B, c.BValue)
	}
	a.note("%d contradictions\n", len(cs))
	return nil
}

// salvage runs `check --salvage NEWDIR`.
func (a *app) salvage(newDir string) error {
	dir, err := a.storeDir()
	if err != nil {
		return err
	}
	rep, err := lore.Salvage(dir, newDir)
	if err != nil {
		return err
	}
	if a.jsonOut {
		return a.printJSON(rep)
	}
	if rep.LostUnknown {
		// Pages outside the tree were read: what was lost cannot be
		// counted, only what the change log still names.
		a.note("salvaged %d records (%d from pages outside the tree, %d of them from their text alone: kind %q, titled by their id) "+
			"and %d links from %s into %s; lost: %d unreadable pages, %d records the change log names, and an unknown number more, "+
			"%d bad values; links are taken from the tree alone\n",
			rep.Records, rep.FromPages, rep.Headless, store.HeadlessKind, rep.Links, dir, newDir, rep.LostPages, rep.LostRecords, rep.BadValues)
		return nil
	}
	a.note("salvaged %d records and %d links from %s into %s; lost: %d unreadable pages, %d records, %d bad values\n",
		rep.Records, rep.Links, dir, newDir, rep.LostPages, rep.LostRecords, rep.BadValues)
	return nil
}

func newBackupCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the store while it is in use",
		Long: `Write a consistent copy of lore.bolt to FILE while other readers keep
using the store. The index is not copied: to restore, put FILE as lore.bolt
in a new store folder and run 'lore reindex'.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			dst := args[0]
			var n int64
			err = writeFileAtomic("backup", dst, l.Dir(), func(w io.Writer) error {
				var err error
				n, err = l.Backup(w)
				return err
			})
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"file": dst, "bytes": n})
			}
			a.note("wrote %s (%d bytes)\n", dst, n)
			return nil
		},
	}
}

func newCountCommand(a *app) *cobra.Command {
	var encoding string
	c := &cobra.Command{
		Use:   "count [flags] [FILE...]",
		Short: "Count tokens of files or stdin, like wc",
		Long: `Count the tokens of each FILE (or stdin) with --encoding: one line a
file and a total. No store is needed: the quick way to measure before loading.`,
		RunE: func(c *cobra.Command, args []string) error {
			counter, err := budget.NewCounter(encoding)
			if err != nil {
				return usageError(c, err)
			}
			type row struct {
				File   string `json:"file"`
				Tokens int    `json:"tokens"`
				Bytes  int    `json:"bytes"`
			}
			var rows []row
			countOne := func(name string, r io.Reader) error {
				b, err := io.ReadAll(r)
				if err != nil {
					return fmt.Errorf("count %s: %w", name, err)
				}
				rows = append(rows, row{File: name, Tokens: counter.Count(string(b)), Bytes: len(b)})
				return nil
			}
			if len(args) == 0 {
				if err := countOne("-", a.streams.in); err != nil {
					return err
				}
			}
			var errs []error
			for _, p := range args {
				f, err := os.Open(p)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				err = countOne(p, f)
				f.Close()
				if err != nil {
					errs = append(errs, err)
				}
			}
			total := 0
			for _, r := range rows {
				total += r.Tokens
			}
			if a.jsonOut {
				if rows == nil {
					rows = []row{}
				}
				if err := a.printJSON(map[string]any{"encoding": counter.Name(), "exact": budget.Exact(counter), "files": rows, "total": total}); err != nil {
					return err
				}
			} else {
				for _, r := range rows {
					a.printf("%8d %s\n", r.Tokens, r.File)
				}
				if len(rows) > 1 {
					a.printf("%8d total\n", total)
				}
			}
			return errors.Join(errs...)
		},
	}
	c.Flags().StringVar(&encoding, "encoding", "o200k_base", "o200k_base, cl100k_base or estimate")
	return c
}
