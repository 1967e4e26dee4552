package packet

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
)

// A refusal's proposals (ladder step 5, "split") are requests, each shown
// as the `lore packet` line that makes it (commandFor), and shown only
// when every one of them, built here with the same source, searcher,
// configuration and counter, writes a packet (exit 0 or 2): a proposal
// that is refused in turn is worse than none. The line and the check
// come from one Request, so what is checked is what the line runs.

// proposalBase is the request a refusal's proposals start from: the
// request as given (story time as the caller set it, not as the focus
// filled it in), at its budget. A scope that is not one of the
// configured names cannot be given on the command line, so it is left
// out (a scope sets only the horizon of obligations and a word of the
// frame).
func (b *builder) proposalBase() Request {
	r := b.asked
	r.Budget = b.req.Budget
	if _, ok := b.cfg.Scopes[r.Scope]; !ok {
		r.Scope = ""
	}
	return r
}

// commandFor is the `lore packet` line that builds r, using only flags
// the command has: the same request, flag for flag, as the CLI makes of
// it (lists as one comma-separated value, quoted as CSV where an item
// needs it; a query after "--" when it starts with a dash).
func (b *builder) commandFor(r Request) string { return commandLine(b.cfg, r) }

// commandLine is the `lore packet` line that builds r under cfg.
func commandLine(cfg Config, r Request) string {
	args := []string{"lore", "packet", "--ns", shellQuote(r.NS)}
	if len(r.Focus) > 0 {
		args = append(args, "--focus", listFlag(r.Focus))
	}
	if r.Hops > 1 {
		args = append(args, "--hops", fmt.Sprint(r.Hops))
	}
	if r.MentionsDepth > 1 {
		args = append(args, "--mentions-depth", fmt.Sprint(r.MentionsDepth))
	}
	if r.ScanQuery && r.Query != "" {
		args = append(args, "--scan-query")
	}
	if r.Task != "" {
		args = append(args, "--task", shellQuote(r.Task))
	}
	if len(r.When) > 0 {
		args = append(args, "--when", listFlag(r.When))
	}
	if r.AsOf != 0 {
		args = append(args, fmt.Sprintf("--as-of=%d", r.AsOf))
	}
	if r.At != "" {
		args = append(args, "--at", shellQuote(r.At))
	}
	if r.Profile != "" && r.Profile != cfg.DefaultProfile {
		args = append(args, "--profile", shellQuote(r.Profile))
	}
	if len(r.Kinds) > 0 {
		args = append(args, "--kind", listFlag(r.Kinds))
	}
	if len(r.ExcludeKinds) > 0 {
		args = append(args, "--exclude-kind", listFlag(r.ExcludeKinds))
	}
	if r.Format != "" && r.Format != "md" {
		args = append(args, "--format", r.Format)
	}
	if r.Encoding != "" && r.Encoding != defaultEncoding {
		args = append(args, "--encoding", shellQuote(r.Encoding))
	}
	if r.Scope != "" {
		args = append(args, "--scope", shellQuote(r.Scope))
	}
	if r.Scope == "" || cfg.Scopes[r.Scope] != r.Budget {
		args = append(args, "--budget", fmt.Sprint(r.Budget))
	}
	if r.VectorDims > 0 && r.QueryVectorFile != "" && r.QueryVectorFile != "-" {
		args = append(args, "--query-vector-file", shellQuote(r.QueryVectorFile))
	}
	if r.Query != "" {
		if strings.HasPrefix(r.Query, "-") {
			args = append(args, "--") // "--" ends the flags
		}
		args = append(args, shellQuote(r.Query))
	}
	return strings.Join(args, " ")
}

// listFlag is the value of a list flag (--focus, --kind, --when): the
// items joined by commas as one CSV record, which is how the CLI reads
// it, shell-quoted.
func listFlag(items []string) string {
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	if err := w.Write(items); err != nil {
		return shellQuote(strings.Join(items, ","))
	}
	w.Flush()
	return shellQuote(strings.TrimSuffix(sb.String(), "\n"))
}

// writes builds r as a proposal of this refusal and reports whether it
// is written. A markdown build whose protected records alone pass its
// budget stops before pricing (checkOnly), and one that fits stops at
// the ladder's first fit (fitsOnly: put-back never refuses).
func (b *builder) writes(ctx context.Context, r Request) bool {
	r.fitsOnly = true
	_, ok := b.sizeOf(ctx, r)
	return ok
}

// sizeOf builds r as a proposal of this refusal, whole, and reports the
// tokens of the packet written, or false when it is refused.
func (b *builder) sizeOf(ctx context.Context, r Request) (int, bool) {
	r.proposing, r.checkOnly = true, true
	cfg := b.cfg
	r.Config, r.work = &cfg, r.work.own()
	p, err := Build(ctx, b.src, b.srch, r)
	if err != nil || !fits(p.Tokens, r.Budget) {
		return 0, false
	}
	return p.Tokens, true
}

// maxSplitPackets is the most packets a proposal splits into: more is
// no proposal a writer would follow, and each is built to be checked.
const maxSplitPackets = 6

// propose adds the proposal words with the command lines of reqs when
// every one of them writes a packet, and reports whether it did.
func (b *builder) propose(e *SplitError, words string, reqs ...Request) bool {
	if len(reqs) > maxSplitPackets {
		return false
	}
	for _, r := range reqs {
		if !b.writes(b.ctx, r) {
			return false
		}
	}
	lines := make([]string, len(reqs))
	for k, r := range reqs {
		lines[k] = b.commandFor(r)
	}
	e.Proposals = append(e.Proposals, words+splitCmds(lines...))
	return true
}

// proposeFocus proposes one packet per focus, when there are several.
func (b *builder) proposeFocus(e *SplitError) {
	if len(b.req.Focus) <= 1 {
		return
	}
	var reqs []Request
	for _, f := range b.req.Focus {
		r := b.proposalBase()
		r.Focus = []string{f}
		reqs = append(reqs, r)
	}
	b.propose(e, "one packet per focus", reqs...)
}

// proposeScenes proposes a smaller scope: the scenes the focus holds, one
// packet each.
func (b *builder) proposeScenes(e *SplitError) {
	var reqs []Request
	for i, c := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut && c.rank > 1 && c.rec.Kind == "scene" {
			r := b.proposalBase()
			r.Focus = []string{c.rec.ID}
			reqs = append(reqs, r)
		}
	}
	if len(reqs) >= 2 {
		b.propose(e, "a smaller scope, one packet per scene", reqs...)
	}
}

// proposeNarrow proposes the walk narrowed to one hop.
func (b *builder) proposeNarrow(e *SplitError) {
	if b.req.Hops <= 1 {
		return
	}
	r := b.proposalBase()
	r.Hops = 1
	b.propose(e, "narrow the walk to one hop", r)
}

// proposeFailKind proposes, when content of a kind whose overflow action
// is "fail" overflowed, the packet without that kind, and that kind's
// records in a packet of their own where that one is written too.
func (b *builder) proposeFailKind(e *SplitError) {
	var oe *budget.OverflowError
	if !errors.As(e.Cause, &oe) || oe.Cause != budget.CauseFail || len(oe.Kinds) != 1 {
		return
	}
	kind := oe.Kinds[0]
	without := b.proposalBase()
	without.ExcludeKinds = sortedSet(append(without.ExcludeKinds, kind))
	alone := b.proposalBase()
	alone.Kinds = []string{kind}
	if !b.propose(e, fmt.Sprintf("two packets, the %s records apart (their overflow action is fail)", kind), without, alone) {
		b.propose(e, fmt.Sprintf("leave the %s records out (their overflow action is fail)", kind), without)
	}
}

// proposeLarger proposes the least budget at which the packet is written
// (e.Need, found by building it), and the smallest scope that holds it
// when that scope's packet is written too.
func (b *builder) proposeLarger(e *SplitError) {
	larger := b.proposalBase()
	larger.Budget = e.Need
	if larger.Scope != b.asked.Scope && !b.writes(b.ctx, larger) {
		return // the line differs from the request searched: checked again
	}
	scope, size := "", 0
	for _, name := range sortedKeys(b.cfg.Scopes) {
		if s := b.cfg.Scopes[name]; fits(e.Need, s) && (size == 0 || s < size) {
			scope, size = name, s
		}
	}
	lines := []string{b.commandFor(larger)}
	words := fmt.Sprintf("a larger budget: at least %s tokens", numfmt.Thousands(e.Need))
	if scope != "" {
		r := b.proposalBase()
		r.Scope, r.Budget = scope, size
		if b.writes(b.ctx, r) {
			lines = append(lines, b.commandFor(r))
			words += fmt.Sprintf(" (--scope %s is %s)", scope, numfmt.Thousands(size))
		}
	}
	e.Proposals = append(e.Proposals, words+splitCmds(lines...))
}
