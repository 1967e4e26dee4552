package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/packet"
	"github.com/spf13/cobra"
)

// Exit codes of `lore diff`, as diff(1) has them: a script asks "did my
// packet change?" with the status alone.
const (
	exitDiffSame      = 0
	exitDiffDifferent = 1
	exitDiffTrouble   = 2
)

// maxPacketFileBytes bounds a packet file diff reads: a packet is a
// model's context, far below this.
const maxPacketFileBytes = 64 << 20

// diffFlags are `lore diff`'s flags: a request and the other side of it.
type diffFlags struct {
	packetFlags
	otherBudget string
	otherAsOf   int64
}

func newDiffCommand(a *app) *cobra.Command {
	var df diffFlags
	c := &cobra.Command{
		Use:   "diff [flags] (A.json B.json | --other-budget N [QUERY] | --other-as-of N [QUERY])",
		Short: "Compare two packets record by record: added, removed, changed in form",
		Long: `Compare two Context Packets record by record: the records one holds and the
other does not, and those both hold in another form (full, excerpt,
summary, title), each with its rank, tokens and the reason on each side
(why it is in, or the note that deferred it).

Two packet files Lore wrote in JSON (--format json, or lore --json packet)
or XML; a markdown packet is refused (its headings are not marked apart
from the text they hold). Or one request, with the flags of lore packet,
built at two budgets (--budget and --other-budget) or two story points
(--as-of and --other-as-of).

Exit status, as diff(1): 0 the packets hold the same records in the same
forms; 1 they differ; 2 trouble (a file unreadable or not a packet, a
request refused or wrong).`,
		Example: `  lore packet --ns tidewater-lamp --focus scene-03 --format json > before.json
  lore diff before.json after.json
  lore diff --ns tidewater-lamp --focus scene-03 --budget 3k --other-budget 5k
  lore diff --ns tidewater-lamp --focus scene-06 --task plan --as-of 3 --other-as-of 6`,
		RunE: func(c *cobra.Command, args []string) error {
			err := a.runDiff(c.Context(), c, &df, args)
			var st *exitStatus
			switch {
			case err == nil:
				return nil
			case errors.As(err, &st) && st.usage != "": // called wrong: trouble, though usageError says 1
				return &exitStatus{code: exitDiffTrouble, err: st.err, usage: st.usage}
			case errors.As(err, &st) && st.code == exitDiffDifferent:
				return err
			}
			return &exitStatus{code: exitDiffTrouble, err: err}
		},
	}
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitStatus{code: exitDiffTrouble, err: err, usage: c.UseLine()}
	})
	addRequestFlags(c, &df.packetFlags)
	f := c.Flags()
	f.StringVar(&df.otherBudget, "other-budget", "", "build the request at this budget too, and compare")
	f.Int64Var(&df.otherAsOf, "other-as-of", 0, "build the request at this story position too, and compare")
	return c
}

func (a *app) runDiff(ctx context.Context, c *cobra.Command, df *diffFlags, args []string) error {
	byRequest := c.Flags().Changed("other-budget") || c.Flags().Changed("other-as-of")
	var left, right packet.View
	var leftName, rightName string
	switch {
	case byRequest && len(args) > 1:
		return usageError(c, fmt.Errorf("with --other-budget or --other-as-of, give at most one argument, the query (got %d)", len(args)))
	case byRequest:
		if len(args) == 1 {
			df.req.Query = args[0]
		}
		var err error
		left, right, leftName, rightName, err = a.diffRequest(ctx, c, df)
		if err != nil {
			return err
		}
	case len(args) == 2:
		var err error
		if left, err = readPacketFile(args[0]); err != nil {
			return err
		}
		if right, err = readPacketFile(args[1]); err != nil {
			return err
		}
		leftName, rightName = args[0], args[1]
	default:
		return usageError(c, errors.New("give two packet files, or a request with --other-budget or --other-as-of"))
	}
	d := packet.Compare(left, right)
	if a.jsonOut {
		if err := a.printJSON(map[string]any{"a": leftName, "b": rightName, "same": d.Same, "changes": d.Changes}); err != nil {
			return err
		}
	} else {
		a.writeDiff(d, leftName, rightName)
	}
	if !d.Same {
		return &exitStatus{code: exitDiffDifferent, quiet: true}
	}
	return nil
}

// diffRequest builds df's request twice: at its budget and story point,
// and at the other ones given.
func (a *app) diffRequest(ctx context.Context, c *cobra.Command, df *diffFlags) (left, right packet.View, leftName, rightName string, err error) {
	l, err := a.openForRequest(c, &df.packetFlags)
	if err != nil {
		return left, right, "", "", err
	}
	defer l.Close()
	other := df.req
	leftName, rightName = "budget "+numfmt.Thousands(df.req.Budget), ""
	if c.Flags().Changed("other-budget") {
		spec := df.spec
		spec.Budget = df.otherBudget
		res, err := l.ResolveBudget(spec)
		if err != nil {
			return left, right, "", "", err
		}
		other.Budget = res.Tokens
		rightName = "budget " + numfmt.Thousands(other.Budget)
	}
	if c.Flags().Changed("other-as-of") {
		other.AsOf = df.otherAsOf
		leftName += fmt.Sprintf(", as of %d", df.req.AsOf)
		if rightName == "" {
			rightName = "budget " + numfmt.Thousands(other.Budget)
		}
		rightName += fmt.Sprintf(", as of %d", other.AsOf)
	}
	for _, side := range []struct {
		req  *packet.Request
		view *packet.View
	}{{&df.req, &left}, {&other, &right}} {
		p, err := l.Packet(ctx, *side.req)
		if err != nil {
			return left, right, "", "", err
		}
		*side.view = packet.ViewOf(p)
	}
	return left, right, leftName, rightName, nil
}

// readPacketFile reads a packet file Lore wrote, naming the file in any
// error.
func readPacketFile(name string) (packet.View, error) {
	f, err := os.Open(name)
	if err != nil {
		return packet.View{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPacketFileBytes+1))
	if err != nil {
		return packet.View{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxPacketFileBytes {
		return packet.View{}, fmt.Errorf("%s: over %d MiB: not a packet", name, maxPacketFileBytes>>20)
	}
	v, err := packet.ReadView(data)
	if err != nil {
		return packet.View{}, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// writeDiff prints d as diff(1) would: the two sides named, a line a
// record ("+" added, "-" removed, "~" another form), then the counts.
func (a *app) writeDiff(d packet.Difference, leftName, rightName string) {
	a.printf("--- %s\n+++ %s\n", leftName, rightName)
	side := func(s *packet.Side) string {
		if s == nil {
			return "not in the packet"
		}
		tokens := ""
		if s.Tokens > 0 {
			tokens = ", " + numfmt.Thousands(s.Tokens) + " tokens"
		}
		return fmt.Sprintf("%s, rank %d%s: %s", s.Form, s.Rank, tokens, s.Why)
	}
	counts := map[string]int{}
	for _, ch := range d.Changes {
		counts[ch.What]++
		mark := map[string]string{"added": "+", "removed": "-", "form": "~"}[ch.What]
		a.printf("%s %s\n    a: %s\n    b: %s\n", mark, ch.ID, side(ch.A), side(ch.B))
	}
	a.printf("%d added, %d removed, %d in another form\n", counts["added"], counts["removed"], counts["form"])
}
