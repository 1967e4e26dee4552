package packet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/internal/numfmt"
)

// Report is the summary for stderr (README, "Context Packets"):
//
//	Packed: 37 records, 19,859 tokens (99% of budget 20,000)
//	Deferred: 17 records, 14,013 tokens freed:
//	   1,236  docs/index.mdx  (rank 8, dropped: over budget)
//	     892  mara-backstory  (rank 2, replaced by summary: saves 880)
//
// followed by the count of records not loaded and any warnings. Records
// shown by their summary count as packed and are listed as deferred too;
// "tokens freed" adds what each note gave back (the whole record, or the
// saving of its shorter form).
func (p *Packet) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Packed: %s, %s tokens (%d%% of budget %s)\n",
		records(len(p.Records)), numfmt.Thousands(p.Tokens), percent(p.Tokens, p.Budget), numfmt.Thousands(p.Budget))
	if len(p.Deferred) > 0 {
		freed := 0
		for _, n := range p.Deferred {
			freed += n.freed()
		}
		fmt.Fprintf(&b, "Deferred: %s, %s tokens freed:\n", records(len(p.Deferred)), numfmt.Thousands(freed))
		for _, n := range p.Deferred {
			fmt.Fprintf(&b, "%8s  %s  (rank %d, %s)\n", numfmt.Thousands(n.Tokens), n.ID, n.Rank, n.Reason)
		}
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(&b, "Not loaded: %s (condition false, filtered, out of date or dangling; --explain lists them)\n", records(len(p.Skipped)))
	}
	if p.Request.Encoding == "estimate" {
		b.WriteString("Note: token counts are estimates, not a model's tokenizer: keep a margin\n")
	}
	for i, w := range p.Warnings {
		if p.FrameOnly && i == p.frameWarn {
			w = frameWarningText(p.Budget, p.Tokens) // the size as written
		}
		fmt.Fprintf(&b, "Warning: %s\n", w)
	}
	return b.String()
}

// DeferredOf is the deferral notes of records of the given kinds that
// the packet groups rather than lists one by one, in the packet's order:
// what a group's handle (NoteGroup.Fetch, lore packet --deferred KINDS)
// lists, each note with its reason and the command that fetches it.
func (p *Packet) DeferredOf(kinds []string) []Note {
	listed := make(map[string]bool, len(p.listed))
	for _, n := range p.listed {
		listed[n.ID] = true
	}
	var out []Note
	for _, n := range p.Deferred {
		if slices.Contains(kinds, n.Kind) && !listed[n.ID] {
			out = append(out, n)
		}
	}
	return out
}

// Explain is the why table alone (--explain): every included record with
// its rank, form, tokens and the rule that brought it in, then the
// deferred records and those not loaded, with why.
func (p *Packet) Explain() string {
	rows := [][]string{{"rank", "tokens", "form", "id", "kind", "why"}}
	for _, e := range p.Records {
		why := e.Why
		for _, c := range e.Contradicts {
			why += "; contradicts " + c
		}
		rows = append(rows, []string{fmt.Sprint(e.Rank), numfmt.Thousands(e.Tokens), e.Form, e.ID, e.Kind, why})
	}
	for _, n := range p.Deferred {
		rows = append(rows, []string{fmt.Sprint(n.Rank), numfmt.Thousands(n.Tokens), "deferred", n.ID, n.Kind, fmt.Sprintf("step %d: %s", n.Step, n.Reason)})
	}
	for _, s := range p.Skipped {
		rows = append(rows, []string{"-", "-", "not loaded", s.ID, s.Kind, s.Reason})
	}
	width := make([]int, 5)
	for _, r := range rows {
		for i := range width {
			width[i] = max(width[i], len(r[i]))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%*s  %*s  %-*s  %-*s  %-*s  %s\n", width[0], r[0], width[1], r[1], width[2], r[2], width[3], r[3], width[4], r[4], r[5])
	}
	return b.String()
}

// records says "1 record" or "n records".
func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return numfmt.Thousands(n) + " records"
}
