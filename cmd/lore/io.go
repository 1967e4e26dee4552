package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore/format"
	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/format/markdown"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
	"github.com/spf13/cobra"
)

func newImportCommand(a *app) *cobra.Command {
	var (
		ns      string
		skipBad bool
	)
	c := &cobra.Command{
		Use:   "import [flags] PATH...",
		Short: "Import JSONL files or markdown folders (all or nothing)",
		Long: `Import records and links. A PATH is a JSONL file (one record a line,
'-' for stdin) or a folder of markdown files (YAML front matter gives the
fields, [[wikilinks]] become 'mentions' links, the folder gives the kind, the
file path is the default id).

The import is all or nothing: if any line or file is bad, nothing is written
and every bad one is listed with its file and line. --skip-bad imports the
good ones and lists the rest.`,
		Example: `  lore import --ns mynovel canon/
  lore export --ns mynovel | lore --store other/.lore import -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runImport(c, args, ns, skipBad)
		},
	}
	c.Flags().StringVar(&ns, "ns", defaultNS, "namespace for records that do not name one")
	c.Flags().BoolVar(&skipBad, "skip-bad", false, "import the good records and list the bad ones")
	return c
}

// importInput is what the import paths held: the good records and links,
// the bad inputs and the warnings.
type importInput struct {
	recs  []store.Record
	links []store.Link
	bad   []format.InputError
	warns []format.InputError
}

// runImport reads every path, then writes all the good records in one
// transaction, or none when a path holds a bad one and skipBad is off.
func (a *app) runImport(c *cobra.Command, paths []string, ns string, skipBad bool) error {
	bar := a.progressLine()
	defer bar.close()
	in, err := a.readImports(c.Context(), paths, ns, bar)
	if err != nil {
		return err
	}
	for _, w := range in.warns {
		fmt.Fprintf(a.streams.err, "warning: %s\n", w.Error())
	}
	for _, e := range in.bad {
		fmt.Fprintf(a.streams.err, "%s\n", e.Error())
	}
	if len(in.bad) > 0 && !skipBad {
		return fmt.Errorf("%d bad input(s), nothing imported (fix them, or pass --skip-bad to import the %s)", len(in.bad), plural(len(in.recs), "good record"))
	}
	l, err := a.open(false)
	if err != nil {
		return err
	}
	defer l.Close()
	if !a.streams.write.begin() {
		// run gave up on the command after a signal and said so.
		return fmt.Errorf("nothing imported: %w", context.Cause(c.Context()))
	}
	a.note("writing %s and %s in one transaction\n", plural(len(in.recs), "record"), plural(len(in.links), "link"))
	sum, err := l.Import(withProgress(c.Context(), bar), in.recs, in.links)
	// Committed (err nil): from here run waits for this command to
	// report, even past a signal's grace, so as not to exit 130 over a
	// store that holds the import.
	a.streams.write.end(err == nil)
	bar.end()
	if err != nil {
		return err
	}
	sum.Errors, sum.Warnings = in.bad, in.warns
	if err := a.reportImport(sum); err != nil {
		return err
	}
	if len(in.bad) > 0 {
		return &exitStatus{code: exitError, err: fmt.Errorf("%d bad input(s) skipped", len(in.bad))}
	}
	return nil
}

// readImports reads the paths in order, noting what each held; a stop
// (a signal) while reading imports nothing.
func (a *app) readImports(ctx context.Context, paths []string, ns string, bar *progress) (importInput, error) {
	var in importInput
	for _, p := range paths {
		r, lk, errs, ws, err := a.readImport(p, ns, bar)
		bar.end()
		if err != nil {
			return in, err
		}
		in.recs, in.links, in.bad, in.warns = append(in.recs, r...), append(in.links, lk...), append(in.bad, errs...), append(in.warns, ws...)
		a.note("read %s: %s, %s, %d bad\n", p, plural(len(r), "record"), plural(len(lk), "link"), len(errs))
		if ctx.Err() != nil {
			return in, fmt.Errorf("nothing imported, stopped while reading: %w", context.Cause(ctx))
		}
	}
	return in, nil
}

// reportImport prints the import's summary: a JSON document under --json,
// else a note on stderr.
func (a *app) reportImport(sum lore.ImportSummary) error {
	if a.jsonOut {
		if err := a.printJSON(sum); err != nil {
			return err
		}
	} else {
		a.note("imported: %d added, %d updated, %d unchanged, %s, %s, %s\n",
			sum.Added, sum.Updated, sum.Unchanged, plural(sum.Links, "link"), plural(len(sum.Errors), "error"), plural(len(sum.Warnings), "warning"))
	}
	if sum.Batches > 0 {
		a.note("the cluster's transaction limits took %d batches: each was all or nothing\n", sum.Batches)
	}
	if sum.IndexBehind {
		a.note("the index has not taken them in yet: the next command that opens the store catches it up\n")
	}
	return nil
}

// readImport reads one import path: a markdown folder or a JSONL file.
func (a *app) readImport(path, ns string, bar *progress) ([]store.Record, []store.Link, []format.InputError, []format.InputError, error) {
	if path == "-" {
		r, lk, errs := jsonl.Read(a.streams.in, "stdin", ns)
		return r, lk, errs, nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("import: %w", err)
	}
	if fi.IsDir() {
		// os.Root's FS refuses any path, symlinks included, that leaves
		// the folder.
		root, err := os.OpenRoot(path)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("import: %w", err)
		}
		defer root.Close()
		r, lk, errs, warns := markdown.ReadDirWarn(root.FS(), ns)
		for _, list := range [][]format.InputError{errs, warns} {
			for i := range list {
				list[i].File = filepath.Join(path, list[i].File)
			}
		}
		return r, lk, errs, warns, nil
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".jsonl" && ext != ".json" && ext != ".ndjson" {
		return nil, nil, nil, nil, fmt.Errorf("import %s: not a folder of markdown files nor a .jsonl file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	var in io.Reader = f
	if bar != nil {
		in = &progressReader{r: f, p: bar, phase: "reading " + filepath.Base(path), total: int(fi.Size())}
	}
	r, lk, errs := jsonl.Read(in, path, ns)
	return r, lk, errs, nil, nil
}

func newExportCommand(a *app) *cobra.Command {
	var (
		ns      string
		out     string
		history bool
	)
	c := &cobra.Command{
		Use:   "export [flags]",
		Short: "Write records and links as JSONL (that import reads back)",
		Long: `Write records and links as JSONL, one record a line with its outgoing
links, sorted by namespace and id. Import reads it back: into an empty store
it keeps every record's created, updated and version, so the store exports
the same bytes again. --history also writes the earlier versions the store
keeps, oldest first, before each record; import restores them.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			opts := lore.ExportOptions{History: history}
			if out == "" || out == "-" {
				return l.ExportWith(a.streams.out, ns, opts)
			}
			return writeFileAtomic("export", out, l.Dir(), func(w io.Writer) error { return l.ExportWith(w, ns, opts) })
		},
	}
	c.Flags().StringVar(&ns, "ns", "", "only this namespace (default: all)")
	c.Flags().BoolVar(&history, "history", false, "also write each record's kept earlier versions, oldest first (import restores them)")
	c.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	return c
}

// plural says "1 record" or "2 records" (n with thousands separators).
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return numfmt.Thousands(n) + " " + noun + "s"
}
