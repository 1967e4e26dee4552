package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// defaultNS is the namespace used when --ns is not given.
const defaultNS = "default"

func newPutCommand(a *app) *cobra.Command {
	var (
		r          store.Record
		body, file string
		metas      []string
		supersedes string
		vectorFile string
	)
	c := &cobra.Command{
		Use:   "put [flags] ID",
		Short: "Store a record (body from --body, --file, or stdin)",
		Long: `Store one record. The body comes from --body, from --file PATH ('-' for
stdin), or from stdin when it is not a terminal. A put of identical content
changes nothing and says "unchanged"; a changed one bumps the version and
keeps the previous one in history.

A body holds at most 64 MiB (67,108,864 bytes); a larger one is refused,
naming the record. Search indexes the first MiB of a body (cut at a
word); get, export and packets give it whole.`,
		Example: `  lore put --ns novel --kind character --title "Mara Quell" mara < mara.md
  lore put --kind memory --tag user --body "prefers tea" pref-tea`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			r.ID = args[0]
			meta, err := parseMeta(metas)
			if err != nil {
				return usageError(c, err)
			}
			r.Meta = meta
			if vectorFile != "" {
				if vectorFile == "-" && (file == "-" || file == "" && body == "") {
					return usageError(c, fmt.Errorf("--vector-file - reads stdin, where the body comes from too; give the body with --body or --file"))
				}
				if r.Vector, err = readVectorFile(a.streams.in, vectorFile); err != nil {
					return err
				}
			}
			switch {
			case body != "" && file != "":
				return usageError(c, fmt.Errorf("--body and --file both given; use one"))
			case body != "":
				r.Body = body
			case file != "" || !isTerminal(a.streams.in):
				if r.Body, err = readBody(a.streams.in, file, r.NS, r.ID); err != nil {
					return err
				}
			}
			l, err := a.open(false)
			if err != nil {
				return err
			}
			defer l.Close()
			var res store.PutResult
			if supersedes != "" {
				res, err = l.Supersede(c.Context(), r, supersedes)
			} else {
				res, err = l.Put(c.Context(), r)
			}
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(res)
			}
			if !a.quiet {
				a.printf("%s %s/%s (version %d)\n", res.Status, res.NS, res.ID, res.Version)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&r.NS, "ns", defaultNS, "namespace")
	f.StringVar(&r.Kind, "kind", "", "kind (scene, character, canon, memory, ...)")
	f.StringVar(&r.Title, "title", "", "title")
	f.StringVar(&r.Summary, "summary", "", "short form: the facts and ids that can stand in for the body")
	f.StringSliceVar(&r.Tags, "tag", nil, "tag (repeatable, or comma-separated)")
	f.StringArrayVar(&r.Aliases, "alias", nil, "another name of the record, e.g. Sefa for Sefa Dunmore (repeatable; a packet whose focus says it brings the record in)")
	f.StringArrayVar(&r.Keys, "key", nil, "a lorebook-style trigger word or phrase (repeatable; its mention in a packet's focus brings the record in)")
	f.StringArrayVar(&metas, "meta", nil, "metadata KEY=VALUE (repeatable)")
	f.Int64Var(&r.Order, "order", 0, "position in a sequence (timeline, chapter, turn); 0 = none")
	f.BoolVar(&r.Pinned, "pinned", false, "never drop or truncate this record from a packet")
	f.StringVar(&body, "body", "", "body text")
	f.StringVar(&file, "file", "", "read the body from this file ('-' for stdin)")
	f.StringVar(&vectorFile, "vector-file", "", "the record's embedding, from your model: a JSON array of numbers or numbers separated by spaces ('-' for stdin); one dimension per namespace")
	f.StringVar(&supersedes, "supersedes", "", "this record replaces record ID (a newer fact): a supersedes link, and ID's meta.valid_until set to this one's valid_from (default now) where it has none; ID stays, with its history")
	return c
}

// parseMeta turns KEY=VALUE flags into a map, refusing malformed ones.
func parseMeta(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, badvalue.Errorf(kv, "--meta %q: want KEY=VALUE", kv)
		}
		m[k] = v
	}
	return m, nil
}

// readBody reads the body of record ns/id from path ("" or "-": stdin)
// into a string: a file's is sized from the file, so it is held once, not
// copied again. Reading stops past store.DefaultMaxBodyBytes, so an input
// too large is refused, naming the record, without being held whole.
func readBody(stdin io.Reader, path, ns, id string) (string, error) {
	const limit = store.DefaultMaxBodyBytes
	src, what := stdin, "stdin"
	var sb strings.Builder
	tooBig := func() error {
		return fmt.Errorf("%w: record %s/%s: the body in %s is over the limit of %d bytes (64 MiB); split it into records, or keep it as a file",
			store.ErrInvalid, ns, id, what, limit)
	}
	if path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		src, what = f, path
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > limit {
				return "", tooBig()
			}
			sb.Grow(int(fi.Size()))
		}
	}
	n, err := io.Copy(&sb, io.LimitReader(src, limit+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", what, err)
	}
	if n > limit {
		return "", tooBig()
	}
	return sb.String(), nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newGetCommand(a *app) *cobra.Command {
	var (
		ns      string
		version int
		history bool
	)
	c := &cobra.Command{
		Use:   "get [flags] ID",
		Short: "Print a record (front matter and body)",
		Long: `Print a record as markdown with YAML front matter, the same shape
'lore import' reads. --version N prints a kept earlier version; --history
lists the kept versions.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			id := args[0]
			if history {
				hist, err := l.History(ns, id)
				if err != nil {
					return err
				}
				if a.jsonOut {
					return a.printJSON(map[string]any{"versions": hist})
				}
				for _, h := range hist {
					a.printf("%d\t%s\t%s\n", h.Version, h.Updated.UTC().Format("2006-01-02T15:04:05Z"), h.SHA256[:min(12, len(h.SHA256))])
				}
				return nil
			}
			if version < 0 {
				return usageError(c, fmt.Errorf("--version %d: want a version number from 1 (see --history)", version))
			}
			var r store.Record
			if version > 0 {
				r, err = l.GetVersion(ns, id, version)
			} else {
				r, err = l.Get(ns, id)
			}
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(r)
			}
			_, err = io.WriteString(a.streams.out, formatRecord(r))
			return err
		},
	}
	c.Flags().StringVar(&ns, "ns", defaultNS, "namespace")
	c.Flags().IntVar(&version, "version", 0, "print this kept version instead of the current one")
	c.Flags().BoolVar(&history, "history", false, "list the kept versions")
	return c
}

// formatRecord renders a record as markdown with YAML front matter.
func formatRecord(r store.Record) string {
	var b strings.Builder
	b.WriteString("---\n")
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, strconv.Quote(v))
		}
	}
	field("ns", r.NS)
	field("id", r.ID)
	field("kind", r.Kind)
	field("title", r.Title)
	field("summary", r.Summary)
	list := func(k string, vs []string) {
		if len(vs) > 0 {
			q := make([]string, len(vs))
			for i, t := range vs {
				q[i] = strconv.Quote(t)
			}
			fmt.Fprintf(&b, "%s: [%s]\n", k, strings.Join(q, ", "))
		}
	}
	list("tags", r.Tags)
	list("aliases", r.Aliases)
	list("keys", r.Keys)
	if r.Order != 0 {
		fmt.Fprintf(&b, "order: %d\n", r.Order)
	}
	if r.Pinned {
		b.WriteString("pinned: true\n")
	}
	if len(r.Meta) > 0 {
		b.WriteString("meta:\n")
		keys := make([]string, 0, len(r.Meta))
		for k := range r.Meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", strconv.Quote(k), strconv.Quote(r.Meta[k]))
		}
	}
	fmt.Fprintf(&b, "version: %d\n", r.Version)
	if len(r.Vector) > 0 { // a comment: the numbers are for --json, and front matter has no field for them
		fmt.Fprintf(&b, "# vector: %d dimensions\n", len(r.Vector))
	}
	b.WriteString("---\n")
	b.WriteString(r.Body)
	if r.Body != "" && !strings.HasSuffix(r.Body, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

func newRmCommand(a *app) *cobra.Command {
	var (
		ns      string
		cascade bool
	)
	c := &cobra.Command{
		Use:   "rm [flags] ID...",
		Short: "Delete records (--cascade also removes their links)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(false)
			if err != nil {
				return err
			}
			defer l.Close()
			for _, id := range args {
				if err := l.Delete(c.Context(), ns, id, cascade); err != nil {
					return err
				}
				if !a.jsonOut && !a.quiet {
					a.printf("deleted %s/%s\n", ns, id)
				}
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"deleted": args, "ns": ns})
			}
			return nil
		},
	}
	c.Flags().StringVar(&ns, "ns", defaultNS, "namespace")
	c.Flags().BoolVar(&cascade, "cascade", false, "also remove the records' links, both directions")
	return c
}

func newLsCommand(a *app) *cobra.Command {
	var opts store.ListOptions
	c := &cobra.Command{
		Use:   "ls [flags]",
		Short: "List records (id, kind, version, title), one page at a time",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return usageError(c, fmt.Errorf("--limit %d: must be 0 (no limit) or positive", opts.Limit))
			}
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			heads, next, err := l.List(opts)
			if err != nil {
				return err
			}
			if a.jsonOut {
				items := make([]listItem, len(heads))
				for i, h := range heads {
					items[i] = listItem{NS: h.NS, ID: h.ID, Kind: h.Kind, Title: h.Title, Version: h.Version, Tags: h.Tags}
				}
				return a.printJSON(map[string]any{"records": items, "next": next})
			}
			for _, h := range heads {
				a.printf("%s\t%s\t%d\t%s\n", h.ID, h.Kind, h.Version, h.Title)
			}
			if next != "" {
				a.note("more: lore ls --ns %s --after %s\n", opts.NS, strconv.Quote(next))
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&opts.NS, "ns", defaultNS, "namespace")
	f.StringVar(&opts.Kind, "kind", "", "only this kind")
	f.StringVar(&opts.Tag, "tag", "", "only records with this tag")
	f.StringVar(&opts.After, "after", "", "start after this id (paging cursor)")
	f.IntVar(&opts.Limit, "limit", 100, "at most this many records (0: all)")
	return c
}

// listItem is the --json shape of one `lore ls` line.
type listItem struct {
	NS      string   `json:"ns"`
	ID      string   `json:"id"`
	Kind    string   `json:"kind"`
	Title   string   `json:"title"`
	Version int      `json:"version"`
	Tags    []string `json:"tags,omitempty"`
}
