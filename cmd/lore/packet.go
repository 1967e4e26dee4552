package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/packet/pack"
	"github.com/spf13/cobra"
)

// packetFlags are the flags of `lore packet`.
type packetFlags struct {
	req     packet.Request
	spec    lore.BudgetSpec
	explain bool
	// deferred lists the grouped deferral notes of these kinds instead
	// of the packet: a group line's handle.
	deferred []string
	// queryVectorFile holds the query's embedding (see readVectorFile).
	queryVectorFile string
}

func newPacketCommand(a *app) *cobra.Command {
	var pf packetFlags
	c := &cobra.Command{
		Use:   "packet [flags] [QUERY]",
		Short: "Build a Context Packet: ranked records fitted into a token budget",
		Long: `Build a Context Packet for one decision: the focus records, full-text hits
for QUERY, graph neighbours, open obligations and bounding timeline entries,
ranked by decision relevance (profile novel or agent), fitted into the budget
with the deferral ladder, and rendered. The packet goes to stdout, the report
to stderr.

Budget: --budget N (8000, 8k, 1.5k, 1m) or --scope scene|chapter|arc|novel;
--model NAME caps it at the model's window minus --reserve and picks its
encoding.

Exit status: 0 everything fitted; 2 the packet was written but something was
deferred (the notes at its end say what, why, and how to fetch it); 3 the
budget cannot hold the protected content: nothing on stdout, and stderr lists
the protected records, the least budget at which the packet is written, and
proposed splits, each command of which was built and writes a packet; 1 any
other error.`,
		Example: `  lore packet --ns tidewater-lamp --focus scene-03 --scope scene
  lore packet --ns tidewater-lamp --focus scene-06 --budget 5k --task draft --when power "the false fire"
  lore packet --ns memory --profile agent --budget 4k "what does the user prefer?"`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := refuseEmpty(c, "budget", "scope", "model", "profile", "format", "encoding", "task", "ns"); err != nil {
				return err
			}
			if len(args) == 1 {
				pf.req.Query = args[0]
			}
			return a.runPacket(c.Context(), c, &pf)
		},
	}
	addRequestFlags(c, &pf)
	f := c.Flags()
	f.BoolVar(&pf.explain, "explain", false, "print only why each record is included")
	f.StringSliceVar(&pf.deferred, "deferred", nil, "print only the deferred records of these kinds that the packet counts in a group line, each with its reason and fetch command (the group's handle)")
	return c
}

// addRequestFlags adds the flags that make a packet request: `lore
// packet`'s and `lore why`'s.
func addRequestFlags(c *cobra.Command, pf *packetFlags) {
	f := c.Flags()
	f.StringVar(&pf.req.NS, "ns", defaultNS, "namespace")
	f.StringSliceVar(&pf.req.Focus, "focus", nil, "focus record ids: the active scene, the POV character (repeatable)")
	f.StringVar(&pf.spec.Budget, "budget", "", "token budget: 8000, 8k, 1.5k, 1m, or a scope name")
	f.StringVar(&pf.spec.Scope, "scope", "", "scope: scene (8,000), chapter (20,000), arc (60,000), novel (120,000)")
	f.StringVar(&pf.spec.Model, "model", "", "model name: sets the encoding and caps the budget at its window")
	f.IntVar(&pf.spec.Reserve, "reserve", 0, "tokens to leave for the question, system prompt and answer")
	f.StringVar(&pf.req.Task, "task", "", "task mode: draft, revise, plan or audit")
	f.StringSliceVar(&pf.req.When, "when", nil, "conditions that hold: power, info-control, thematic")
	f.IntVar(&pf.req.Hops, "hops", 1, "graph walk from the focus: 1 or 2")
	f.IntVar(&pf.req.MentionsDepth, "mentions-depth", 1, "how far names bring records in: 1, what the focus names; 2, also what their text names (unprotected, within mention_share of the budget: 10% unless lore.json says)")
	f.BoolVar(&pf.req.ScanQuery, "scan-query", false, "also bring in the records whose names, aliases or keys the query says")
	f.StringVar(&pf.req.At, "at", "", "the time the packet is for, against records' meta.valid_from/valid_until: a date or an RFC 3339 time (default: now)")
	f.Int64Var(&pf.req.AsOf, "as-of", 0, "story position: leave out what is not true yet (or any more) there (default: the focus's order; -1: no story time)")
	f.StringVar(&pf.req.Profile, "profile", "", "rank table: novel or agent (default from lore.json, else novel)")
	f.StringSliceVar(&pf.req.Kinds, "kind", nil, "only these kinds (focus records always stay)")
	f.StringSliceVar(&pf.req.ExcludeKinds, "exclude-kind", nil, "leave out these kinds")
	f.StringVar(&pf.req.Format, "format", "md", "output format: md, xml or json")
	f.StringVar(&pf.req.Encoding, "encoding", "", "token encoding (default: the store's, or the model's)")
	f.StringVar(&pf.queryVectorFile, "query-vector-file", "", "the query's embedding, from the model that embedded the records: hits by words and by vector, fused ('-' for stdin)")
}

func (a *app) runPacket(ctx context.Context, c *cobra.Command, pf *packetFlags) error {
	format := pf.req.Format
	if a.jsonOut && !c.Flags().Changed("format") {
		pf.req.Format, format = "json", "json"
	}
	l, err := a.openForRequest(c, pf)
	if err != nil {
		return err
	}
	defer l.Close()
	p, err := l.Packet(ctx, pf.req)
	if err != nil {
		return a.packetError(err)
	}
	if len(pf.deferred) > 0 {
		return a.writeDeferred(p, pf.deferred)
	}
	if err := a.writePacket(p, format, pf.explain); err != nil {
		return err
	}
	if p.Incomplete() {
		return errDeferred
	}
	return nil
}

// openForRequest checks pf's flags, opens the store read-only and fills
// in pf's request from it (packetRequest): what packet, why and diff do
// before they build. The caller closes the store.
func (a *app) openForRequest(c *cobra.Command, pf *packetFlags) (*lore.Lore, error) {
	if err := checkDepths(c, pf); err != nil {
		return nil, err
	}
	if pf.queryVectorFile != "" {
		v, err := readVectorFile(a.streams.in, pf.queryVectorFile)
		if err != nil {
			return nil, err
		}
		pf.req.QueryVector, pf.req.QueryVectorFile = v, pf.queryVectorFile
	}
	l, err := a.open(true)
	if err != nil {
		return nil, err
	}
	if err := a.packetRequest(c, l, pf); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// checkDepths checks the walk's flags, before a store is opened.
func checkDepths(c *cobra.Command, pf *packetFlags) error {
	if pf.req.Hops < 1 || pf.req.Hops > 2 {
		return usageError(c, fmt.Errorf("--hops %d: must be 1 or 2", pf.req.Hops))
	}
	if pf.req.MentionsDepth < 1 || pf.req.MentionsDepth > 2 {
		return usageError(c, fmt.Errorf("--mentions-depth %d: must be 1 or 2", pf.req.MentionsDepth))
	}
	return nil
}

// packetRequest fills in pf's request: its budget, scope and encoding,
// noting the defaults it took on stderr.
func (a *app) packetRequest(c *cobra.Command, l *lore.Lore, pf *packetFlags) error {
	res, err := l.ResolveBudget(pf.spec)
	if err != nil {
		return usageError(c, err)
	}
	pf.req.Budget = res.Tokens
	if pf.req.Scope == "" {
		pf.req.Scope = cmp.Or(pf.spec.Scope, res.DefaultScope)
	}
	if res.DefaultScope != "" {
		a.note("note: no --budget, --scope or --model: using scope %s (%s tokens; set \"scope\" in lore.json to change it)\n",
			res.DefaultScope, numfmt.Thousands(res.Tokens))
	}
	if pf.req.Encoding == "" && pf.spec.Model != "" {
		pf.req.Encoding = res.Encoding
	}
	if res.Estimate {
		a.note("note: model %s has no exact tokenizer here: counts are estimates and the budget keeps a %d%% margin (%d tokens)\n",
			pf.spec.Model, budget.EstimateMargin, res.Tokens)
	}
	if l.Stale() {
		a.note("warning: the search index lags the store; hits are checked against the store (a writable command catches it up)\n")
	}
	return nil
}

// writeDeferred prints the grouped deferral notes of kinds (--deferred):
// one a line, as the report lists them, with the command that fetches
// each record.
func (a *app) writeDeferred(p *packet.Packet, kinds []string) error {
	notes := p.DeferredOf(kinds)
	if a.jsonOut {
		if notes == nil {
			notes = []packet.Note{}
		}
		return a.printJSON(notes)
	}
	if len(notes) == 0 {
		a.note("no deferred records of kind %s in a group line of this packet\n", strings.Join(kinds, ", "))
		return nil
	}
	for _, n := range notes {
		a.printf("%8s  %s  (%s, rank %d, %s)  %s\n", numfmt.Thousands(n.Tokens), n.ID, n.Kind, n.Rank, n.Reason, n.Fetch)
	}
	return nil
}

// packetError turns a packet that cannot fit into exit 3 with its report
// (in the error itself under --json, so stderr holds one document).
func (a *app) packetError(err error) error {
	var split *packet.SplitError
	if !errors.As(err, &split) {
		return err
	}
	if a.jsonOut {
		return &exitStatus{code: exitNoFit, err: errors.New(strings.TrimSpace(split.Report()))}
	}
	fmt.Fprint(a.streams.err, split.Report())
	return &exitStatus{code: exitNoFit, err: err}
}

// writePacket prints p: its explain table, or its rendering in format
// (wrapped in a JSON document under --json when format is md or xml),
// then the report on stderr.
func (a *app) writePacket(p *packet.Packet, format string, explain bool) error {
	if explain {
		if a.jsonOut {
			return a.printJSON(newExplainJSON(p))
		}
		a.printf("%s", p.Explain())
		return nil
	}
	out, err := p.Render(format)
	if err != nil {
		return err
	}
	if a.jsonOut && format != "json" {
		err = a.printJSON(newRenderedJSON(p, format, out))
	} else {
		_, err = a.streams.out.Write(out)
	}
	if err != nil {
		return err
	}
	if !a.quiet {
		fmt.Fprint(a.streams.err, p.Report())
	}
	return nil
}

// writePack writes a rendered pack to stdout, or to the file out with,
// under --json, a summary of it on stdout.
func (a *app) writePack(p *pack.Pack, rendered []byte, out, format string) error {
	if out == "" || out == "-" {
		_, err := a.streams.out.Write(rendered)
		return err
	}
	if err := writeFileAtomic("pack", out, a.storeDirIfAny(), func(w io.Writer) error {
		_, err := w.Write(rendered)
		return err
	}); err != nil {
		return err
	}
	if !a.jsonOut {
		return nil
	}
	return a.printJSON(packSummary{File: out, Bytes: len(rendered), Format: format,
		Encoding: p.Encoding, Budget: p.Budget, Tokens: p.Tokens, Hash: p.Hash,
		Files: len(p.Files), Deferred: len(p.Deferred), NotPacked: len(p.NotPacked)})
}

// optionalConfig loads lore.json of the discovered store, if there is one.
func (a *app) optionalConfig() (lore.Config, bool) {
	dir, err := a.storeDir()
	if err != nil {
		return lore.Config{}, false
	}
	cfg, err := lore.LoadConfig(filepath.Join(dir, lore.ConfigFile))
	if err != nil {
		a.note("warning: %v (ignored for pack)\n", err)
		return lore.Config{}, false
	}
	return cfg, true
}
