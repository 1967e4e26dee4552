package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	"github.com/spf13/cobra"
)

func newInitCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a store (.lore/ in DIR, default the working directory)",
		Long: `Create a store: a .lore/ folder holding lore.bolt (the records) and
index/ (the search index, derived). With --store, create the store there.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := a.storeFlag
			if env := os.Getenv(lore.EnvStore); dir == "" && len(args) == 0 && store.IsURL(env) {
				dir = env // a store URL (etcd) has no folder to make here
			}
			if dir == "" {
				base := "."
				if len(args) == 1 {
					base = args[0]
				}
				dir = filepath.Join(base, lore.DirName)
			} else if len(args) == 1 {
				return usageError(c, errors.New("give either --store or DIR, not both"))
			}
			if err := lore.Init(dir); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]string{"store": dir})
			}
			if !a.quiet {
				a.printf("initialised empty Lore store in %s\n", dir)
			}
			return nil
		},
	}
}

func newStatsCommand(a *app) *cobra.Command {
	var ns string
	c := &cobra.Command{
		Use:   "stats [flags]",
		Short: "Count records, links and versions, by namespace and kind",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			st, err := l.Stats(ns)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(st)
			}
			a.printf("store:      %s\n", l.Dir())
			a.printf("encoding:   %s\n", l.Config().Encoding)
			a.printf("records:    %d\n", st.Records)
			a.printf("links:      %d\n", st.Links)
			a.printf("versions:   %d\n", st.Versions)
			a.printf("last seq:   %d\n", st.LastSeq)
			if etcdstore.IsURL(l.Store().Path()) {
				a.printf("etcd bytes: %d (the member's whole database: every prefix, not only this store's)\n", st.FileBytes)
			} else {
				a.printf("file bytes: %d\n", st.FileBytes)
			}
			printCounts := func(title string, m map[string]int) {
				if len(m) == 0 {
					return
				}
				a.printf("%s:\n", title)
				keys := make([]string, 0, len(m))
				for k := range m {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					a.printf("  %-24s %d\n", k, m[k])
				}
			}
			printCounts("namespaces", st.Namespaces)
			printCounts("kinds", st.Kinds)
			return nil
		},
	}
	c.Flags().StringVar(&ns, "ns", "", "only this namespace (default: all)")
	return c
}

// version is set by the linker for releases; otherwise the module's
// build information is used.
var version = ""

func newVersionCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print Lore's version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			v := version
			goVersion := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				if v == "" {
					v = bi.Main.Version
				}
				goVersion = bi.GoVersion
			}
			if v == "" {
				v = "(devel)"
			}
			if a.jsonOut {
				return a.printJSON(map[string]string{"version": v, "go": goVersion})
			}
			a.printf("lore %s (%s)\n", v, goVersion)
			return nil
		},
	}
}

func newCompletionCommand(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell. It completes commands and flags,
the values of --format, --task, --when, --scope, --profile, --encoding and
--model, and, read from the discovered store (read-only; nothing when there
is none), namespaces (--ns), kinds (--kind) and record ids (get, rm, link,
unlink, neighbors, --focus).

Load it:

  bash        needs the bash-completion package (apt install bash-completion,
              brew install bash-completion@2): without it the script fails
              with "_get_comp_words_by_ref: command not found". Then:
                source <(lore completion bash)            # this shell
                lore completion bash > ~/.local/share/bash-completion/completions/lore
  zsh         source <(lore completion zsh)               # this shell
              lore completion zsh > "${fpath[1]}/_lore"   # for good (needs compinit
              in ~/.zshrc: autoload -U compinit; compinit)
  fish        lore completion fish | source               # this shell
              lore completion fish > ~/.config/fish/completions/lore.fish
  powershell  lore completion powershell | Out-String | Invoke-Expression
              (add that line to $PROFILE to keep it)`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			out := a.streams.out
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(out)
			}
			return usageError(c, badvalue.Errorf(args[0], "unknown shell %q: want bash, zsh, fish or powershell", args[0]))
		},
	}
}
