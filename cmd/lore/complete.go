package main

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// completeLockTimeout bounds how long a completion waits for a writer's
// lock: a shell must never hang on a tab.
const completeLockTimeout = 100 * time.Millisecond

// completeLimit bounds the ids one completion lists.
const completeLimit = 2000

// Fixed values of the enumerated flags, as the commands check them.
var (
	formatValues   = []string{"md", "xml", "json"}
	taskValues     = []string{"draft", "revise", "plan", "audit"}
	whenValues     = []string{"power", "info-control", "thematic"}
	encodingValues = []string{"o200k_base", "cl100k_base", "estimate"}
)

// completer answers the shell's questions from the discovered store,
// read-only. Every failure (no store, a locked or damaged one) completes
// nothing rather than failing the shell.
type completer struct{ a *app }

// withStore runs f on the discovered store's bbolt file, read-only, and
// its lore.json (defaults when it has none or it is bad).
func (cp completer) withStore(f func(st *store.Store, cfg lore.Config)) {
	dir, err := cp.a.storeDir()
	if err != nil {
		return
	}
	st, err := store.Open(filepath.Join(dir, lore.BoltFile), &store.Options{ReadOnly: true, LockTimeout: completeLockTimeout})
	if err != nil {
		return
	}
	defer st.Close()
	cfg, err := lore.LoadConfig(filepath.Join(dir, lore.ConfigFile))
	if err != nil {
		cfg = lore.Config{}
	}
	f(st, cfg)
}

func (cp completer) namespaces(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	cp.withStore(func(st *store.Store, _ lore.Config) {
		out, _ = st.Namespaces()
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

// ids completes record ids of the command's --ns.
func (cp completer) ids(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	ns := defaultNS
	if f := c.Flags().Lookup("ns"); f != nil {
		ns = f.Value.String()
	}
	var out []string
	cp.withStore(func(st *store.Store, _ lore.Config) {
		var heads []store.Record
		if prefix != "" {
			// List starts after its cursor: the prefix itself may be an id.
			if h, err := st.Head(ns, prefix); err == nil {
				heads = append(heads, h)
			}
		}
		more, _, err := st.List(store.ListOptions{NS: ns, Limit: completeLimit, After: prefix})
		if err != nil {
			return
		}
		for _, h := range append(heads, more...) {
			if !strings.HasPrefix(h.ID, prefix) {
				break // sorted by id: past the prefix
			}
			out = append(out, h.ID+"\t"+firstNonEmpty(h.Title, h.Kind))
		}
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func (cp completer) kinds(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	cp.withStore(func(st *store.Store, _ lore.Config) {
		s, err := st.Stats("")
		if err != nil {
			return
		}
		for k := range s.Kinds {
			if k != "" {
				out = append(out, k)
			}
		}
	})
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

func (cp completer) scopes(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	names := map[string]bool{}
	for k := range budget.DefaultScopes() {
		names[k] = true
	}
	cp.withStore(func(_ *store.Store, cfg lore.Config) {
		for k := range cfg.Packet.Scopes {
			names[k] = true
		}
	})
	return sortedNames(names), cobra.ShellCompDirectiveNoFileComp
}

func (cp completer) profiles(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	names := map[string]bool{"novel": true, "agent": true}
	cp.withStore(func(_ *store.Store, cfg lore.Config) {
		for k := range cfg.Packet.Profiles {
			names[k] = true
		}
	})
	return sortedNames(names), cobra.ShellCompDirectiveNoFileComp
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func models(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, m := range budget.Models() {
		out = append(out, m.Name)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func fixed(values []string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}

// registerCompletions gives every flag with known values, and the id
// arguments, their completions, across the whole tree.
func registerCompletions(a *app, root *cobra.Command) {
	cp := completer{a: a}
	flags := map[string]cobra.CompletionFunc{
		"ns":           cp.namespaces,
		"kind":         cp.kinds,
		"exclude-kind": cp.kinds,
		"focus":        cp.ids,
		"scope":        cp.scopes,
		"profile":      cp.profiles,
		"model":        models,
		"format":       fixed(formatValues),
		"task":         fixed(taskValues),
		"when":         fixed(whenValues),
		"encoding":     fixed(encodingValues),
	}
	idArgs := map[string]func(argIndex int) bool{
		"get":       func(int) bool { return true },
		"rm":        func(int) bool { return true },
		"neighbors": func(i int) bool { return i == 0 },
		"why":       func(i int) bool { return i == 0 }, // ID [QUERY]
		"link":      func(i int) bool { return i != 1 }, // FROM REL TO
		"unlink":    func(i int) bool { return i != 1 },
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if fn, ok := flags[f.Name]; ok {
				_ = c.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		if want, ok := idArgs[c.Name()]; ok && c.Parent() == root {
			c.ValidArgsFunction = func(c *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if !want(len(args)) {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return cp.ids(c, args, prefix)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
