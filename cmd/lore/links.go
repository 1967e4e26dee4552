package main

import (
	"fmt"

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
		ns   string
		hops int
		rels []string
	)
	c := &cobra.Command{
		Use:   "neighbors [flags] ID",
		Short: "List the records linked to ID, within 1 or 2 hops",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if hops < 1 || hops > 2 {
				return usageError(c, fmt.Errorf("--hops %d: must be 1 or 2", hops))
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
			if a.jsonOut {
				if ns2 == nil {
					ns2 = []store.Neighbor{}
				}
				return a.printJSON(map[string]any{"ns": ns, "id": args[0], "neighbors": ns2})
			}
			for _, n := range ns2 {
				dir := "->"
				if n.Via.To != n.ID {
					dir = "<-"
				}
				a.printf("%d\t%s%s\t%s\n", n.Hops, dir, n.Via.Rel, n.ID)
			}
			return nil
		},
	}
	c.Flags().StringVar(&ns, "ns", defaultNS, "namespace")
	c.Flags().IntVar(&hops, "hops", 1, "how far to walk: 1 or 2")
	c.Flags().StringSliceVar(&rels, "rel", nil, "follow only these relations")
	return c
}
