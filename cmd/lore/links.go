package main

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
	"github.com/spf13/cobra"
)

func newLinkCommand(a *app) *cobra.Command {
	var lk store.Link
	c := &cobra.Command{
		Use:     "link [flags] FROM REL TO",
		Short:   "Link two records of one namespace",
		Long:    "Link FROM to TO with relation REL. TO may not exist yet; 'lore check' reports dangling links.",
		Example: "  lore link --ns novel scene-03 appears_in mara",
		Args:    cobra.ExactArgs(3),
		RunE: func(c *cobra.Command, args []string) error {
			lk.From, lk.Rel, lk.To = args[0], args[1], args[2]
			l, err := a.open(false)
			if err != nil {
				return err
			}
			defer l.Close()
			changed, err := l.Link(c.Context(), lk)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"link": lk, "changed": changed})
			}
			if !a.quiet {
				state := "linked"
				if !changed {
					state = "unchanged"
				}
				a.printf("%s %s -%s-> %s\n", state, lk.From, lk.Rel, lk.To)
			}
			return nil
		},
	}
	c.Flags().StringVar(&lk.NS, "ns", defaultNS, "namespace")
	c.Flags().Float64Var(&lk.Weight, "weight", 0, "link weight")
	return c
}

func newUnlinkCommand(a *app) *cobra.Command {
	var ns string
	c := &cobra.Command{
		Use:   "unlink [flags] FROM REL TO",
		Short: "Remove a link",
		Args:  cobra.ExactArgs(3),
		RunE: func(c *cobra.Command, args []string) error {
			l, err := a.open(false)
			if err != nil {
				return err
			}
			defer l.Close()
			if err := l.Unlink(c.Context(), ns, args[0], args[1], args[2]); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"unlinked": store.Link{NS: ns, From: args[0], Rel: args[1], To: args[2]}})
			}
			if !a.quiet {
				a.printf("unlinked %s -%s-> %s\n", args[0], args[1], args[2])
			}
			return nil
		},
	}
	c.Flags().StringVar(&ns, "ns", defaultNS, "namespace")
	return c
}

func newNeighborsCommand(a *app) *cobra.Command {
	var (
		ns     string
		hops   int
		rels   []string
		format string
	)
	c := &cobra.Command{
		Use:   "neighbors [flags] ID",
		Short: "List the records linked to ID, within 1 or 2 hops",
		Long: `List the records linked to ID, one a line: hops, the direction and
relation of the link (->rel out of the record before, <-rel into it), the
id, its title ("-" for none, "(missing)" for a link to a record that does not
exist yet) and, two hops away, "via MID": the record the walk went through.

--format dot or mermaid prints the same graph for Graphviz or Mermaid
instead: the record, its neighbours (titled; a missing one dashed) and the
links between them, e.g. lore neighbors --hops 2 --format dot ID | dot -Tsvg.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if hops < 1 || hops > 2 {
				return usageError(c, fmt.Errorf("--hops %d: must be 1 or 2", hops))
			}
			if !slices.Contains(graphFormats, format) {
				return usageError(c, badvalue.Errorf(format, "--format %q: want %s", format, strings.Join(graphFormats, ", ")))
			}
			l, err := a.open(true)
			if err != nil {
				return err
			}
			defer l.Close()
			ns2, err := l.Neighbors(ns, args[0], hops, rels)
			if err != nil {
				return err
			}
			if len(ns2) == 0 {
				// Nothing linked: say so when the record itself is missing
				// too, since that is most likely a typo.
				if _, err := l.Get(ns, args[0]); err != nil {
					return err
				}
			}
			return a.printNeighbors(l, ns, args[0], ns2, format)
		},
	}
	c.Flags().StringVar(&ns, "ns", defaultNS, "namespace")
	c.Flags().IntVar(&hops, "hops", 1, "how far to walk: 1 or 2")
	c.Flags().StringSliceVar(&rels, "rel", nil, "follow only these relations")
	c.Flags().StringVar(&format, "format", "text", "output: text (a line a neighbour), dot (Graphviz) or mermaid")
	return c
}

// neighborOut is one neighbour as --json prints it: store.Neighbor's
// fields, its title, and for two hops the record it was reached through.
type neighborOut struct {
	ID      string     `json:"id"`
	Hops    int        `json:"hops"`
	Via     store.Link `json:"via"`
	Title   string     `json:"title,omitempty"`
	Through string     `json:"through,omitempty"`
	Missing bool       `json:"missing,omitempty"`
}

// printNeighbors prints one line a neighbour: hops, direction and
// relation, id, title ("-" for none, "(missing)" for a dangling link)
// and, for two hops, "via MID".
func (a *app) printNeighbors(l *lore.Lore, ns, id string, list []store.Neighbor, format string) error {
	out := make([]neighborOut, 0, len(list))
	for _, n := range list {
		o := neighborOut{ID: n.ID, Hops: n.Hops, Via: n.Via}
		if h, err := l.Head(ns, n.ID); err == nil {
			o.Title = h.Title
		} else if errors.Is(err, store.ErrNotFound) {
			o.Missing = true
		} else {
			return err
		}
		if n.Hops > 1 {
			o.Through = n.Via.From
			if o.Through == n.ID {
				o.Through = n.Via.To
			}
		}
		out = append(out, o)
	}
	switch {
	case format == "dot" || format == "mermaid":
		title := ""
		if h, err := l.Head(ns, id); err == nil {
			title = h.Title
		}
		a.printf("%s", graphText(format, ns, id, title, out))
		return nil
	case a.jsonOut:
		return a.printJSON(map[string]any{"ns": ns, "id": id, "neighbors": out})
	}
	for _, n := range out {
		dir := "->"
		if n.Via.To != n.ID {
			dir = "<-"
		}
		title := cmp.Or(n.Title, "-")
		if n.Missing {
			title = "(missing)"
		}
		line := fmt.Sprintf("%d\t%s%s\t%s\t%s", n.Hops, dir, n.Via.Rel, n.ID, title)
		if n.Through != "" {
			line += "\tvia " + n.Through
		}
		a.printf("%s\n", line)
	}
	return nil
}
