package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/demo"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
	"github.com/spf13/cobra"
)

// demoFlags are the flags of `lore demo`.
type demoFlags struct {
	budget int
	keep   bool
	dir    string
}

// demoDirHint is the store folder the demo's hints name when --dir is not
// given.
const demoDirHint = "lore-demo"

func newDemoCommand(a *app) *cobra.Command {
	var df demoFlags
	c := &cobra.Command{
		Use:   "demo",
		Short: "Build the bundled demo canon into a store and print a packet",
		Long: `Import the bundled demo canon (two small original novels, one namespace
each) into a store and print a scene packet under a budget small enough
that the deferral ladder and its notes show, then the exact command that
builds the same packet again.

The store is temporary and deleted at the end, unless --dir DIR (the store
is made in DIR, a new or empty folder, and kept: the "Try next" lines then
run as printed) or --keep (the temporary store is kept and its path shown).`,
		Example: `  lore demo
  lore demo --dir lore-demo && lore --store lore-demo ls --ns tidewater-lamp`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return a.runDemo(c.Context(), &df)
		},
	}
	c.Flags().IntVar(&df.budget, "budget", lore.DemoBudget, "token budget of the demo packet")
	c.Flags().BoolVar(&df.keep, "keep", false, "keep the temporary store and print its path")
	c.Flags().StringVar(&df.dir, "dir", "", "make the store in this new or empty folder and keep it")
	return c
}

// demoStore makes the folder of the demo's store: DIR, or a temporary
// one. cleanup removes a temporary one unless --keep.
func demoStore(df *demoFlags) (dir string, cleanup func(), err error) {
	if df.dir != "" {
		if entries, err := os.ReadDir(df.dir); err == nil && len(entries) > 0 {
			return "", nil, fmt.Errorf("demo --dir %s: the folder is not empty; give a new or empty folder", df.dir)
		} else if err == nil || os.IsNotExist(err) {
			return df.dir, func() {}, nil
		} else {
			return "", nil, fmt.Errorf("demo --dir: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", "lore-demo-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if df.keep {
		cleanup = func() {}
	}
	return filepath.Join(tmp, lore.DirName), cleanup, nil
}

func (a *app) runDemo(ctx context.Context, df *demoFlags) error {
	dir, cleanup, err := demoStore(df)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := lore.Init(dir); err != nil {
		return err
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		return err
	}
	defer l.Close()
	sum, err := demo.Load(ctx, l)
	if err != nil {
		return err
	}
	kept := df.dir != "" || df.keep
	where := "a temporary store (deleted at the end; --dir DIR keeps one)"
	if kept {
		where = dir
	}
	a.note("Imported the demo canon: %d records, %d links, into %s\n\n", sum.Added, sum.Links, where)
	format := "md"
	if a.jsonOut {
		format = "json"
	}
	req := packet.Request{
		NS:     lore.DemoNS,
		Focus:  []string{lore.DemoFocus},
		Query:  demoQuery,
		Budget: df.budget,
		Scope:  "scene",
		Task:   "draft",
		Format: format,
	}
	p, err := l.Packet(ctx, req)
	if err != nil {
		return a.packetError(err)
	}
	if err := a.writePacket(p, format, false); err != nil {
		return err
	}
	if !a.quiet {
		a.demoHints(p, dir, kept, df.budget)
	}
	if p.Incomplete() {
		return errDeferred
	}
	return nil
}

// demoQuery is the query of the demo packet.
const demoQuery = "second light"

// demoHints says how to build the same packet again and what to try.
func (a *app) demoHints(p *packet.Packet, dir string, kept bool, budgetTokens int) {
	w := a.streams.err
	if p.Incomplete() {
		fmt.Fprintf(w, "\nExit status 2: the packet was written, and the notes at its end say what was deferred and why.\n")
	}
	store := dir
	if !kept {
		store = demoDirHint
	}
	store = shellQuote(store)
	json := ""
	if a.jsonOut {
		json = " --json"
	}
	fmt.Fprintf(w, "\nThat was: lore --store %s%s packet --ns %s --focus %s --budget %d --scope scene --task draft %s\n",
		store, json, lore.DemoNS, lore.DemoFocus, budgetTokens, strconv.Quote(demoQuery))
	fmt.Fprintf(w, "  (the same bytes, hash %s", p.Hash)
	if !kept {
		fmt.Fprintf(w, ", in a store made by: lore demo --dir %s", store)
	}
	fmt.Fprintf(w, ")\nTry next:\n")
	if !kept {
		fmt.Fprintf(w, "  lore demo --dir %s                  # the demo again, its store kept in ./%s\n", store, store)
	}
	fmt.Fprintf(w, "  lore --store %s ls --ns %s --kind character\n", store, lore.DemoNS)
	fmt.Fprintf(w, "  lore --store %s packet --ns %s --focus %s --scope chapter   # a roomier budget: fewer deferrals\n", store, lore.DemoNS, lore.DemoFocus)
	fmt.Fprintf(w, "  lore --store %s packet --ns %s --focus scene-06 --budget 6000 --when power --explain\n", store, lore.DemoNS)
	if len(p.Deferred) > 0 {
		fmt.Fprintf(w, "  lore --store %s get --ns %s %s   # a record a deferral note names\n", store, lore.DemoNS, p.Deferred[0].ID)
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '/' || r == '.' || r == '-' || r == '_') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
