package main

import (
	"context"

	"github.com/spf13/cobra"
)

func newWhyCommand(a *app) *cobra.Command {
	var pf packetFlags
	c := &cobra.Command{
		Use:   "why [flags] ID [QUERY]",
		Short: "Say why a record is in a packet, or what keeps it out and what brings it in",
		Long: `Build the packet that ` + "`lore packet`" + ` builds with the same flags and say where
record ID stands in it: in (its form, rank and the rule that brought it:
focus, hit, link, mention, story time, pinned), or out and what kept it out
(the budget, a condition or kind filter, story time, the namespace wall, or
nothing of the request reaching it).

For a record out of the packet or shortened in it, why gives the least
budget at which it comes in (or whole) and the ` + "`lore packet`" + ` line that does
it, or the change to the request that brings it in (--when, --task,
--kind, --as-of, --hops, --mentions-depth, --scan-query). Every budget and
line it gives was built and checked: the packet at that budget holds the
record and the packet one token under it does not.

Exit status: 0 the answer was given (in or out); 1 an error.`,
		Example: `  lore why --ns tidewater-lamp --focus scene-06 --budget 2k --task draft ines-rule
  lore why --ns memory --profile agent --budget 500 m187 "what does the user prefer?"`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmpty(c, "budget", "scope", "model", "profile", "encoding", "task", "ns"); err != nil {
				return err
			}
			if len(args) == 2 {
				pf.req.Query = args[1]
			}
			return a.runWhy(c.Context(), c, &pf, args[0])
		},
	}
	addRequestFlags(c, &pf)
	return c
}

func (a *app) runWhy(ctx context.Context, c *cobra.Command, pf *packetFlags, id string) error {
	l, err := a.openForRequest(c, pf)
	if err != nil {
		return err
	}
	defer l.Close()
	v, err := l.Why(ctx, pf.req, id)
	if err != nil {
		return a.packetError(err)
	}
	if a.jsonOut {
		return a.printJSON(v)
	}
	a.printf("%s", v.Text())
	return nil
}
