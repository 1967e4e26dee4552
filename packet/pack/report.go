package pack

import (
	"fmt"
	"strings"

	"github.com/lorekeep/lore/internal/numfmt"
)

// ReportListMax is the most dropped files Report lists one by one; past
// it Report sums them up by category, and ReportFull still lists each.
const ReportListMax = 20

// Report is the report `lore pack` prints on stderr, in lmpack's words:
//
//	Packed: 37 files, 19,859 tokens (99% of budget 20,000)
//	Dropped by budget: 17 files, 14,013 tokens freed:
//	  1,236  docs/src/content/docs/index.mdx  (category docs)
//
// then the files listed but not packed and the warnings. Dropped files
// come in the order they were dropped, each with what it would have cost.
// When more than ReportListMax files were dropped, one line a category
// (and reason) says how many files and tokens went, in the order the
// categories were dropped.
func (p *Pack) Report() string {
	return p.report(len(p.Deferred) <= ReportListMax)
}

// ReportFull is Report with every dropped file listed, however many
// (`lore pack --report full`).
func (p *Pack) ReportFull() string {
	return p.report(true)
}

func (p *Pack) report(each bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Packed: %s, %s tokens", packFiles(len(p.Files)), numfmt.Thousands(p.Tokens))
	if p.Budget > 0 {
		fmt.Fprintf(&b, " (%d%% of budget %s)", p.Tokens*100/p.Budget, numfmt.Thousands(p.Budget))
	}
	b.WriteString("\n")
	if len(p.Deferred) > 0 {
		freed := 0
		for _, d := range p.Deferred {
			freed += d.Tokens
		}
		if each {
			fmt.Fprintf(&b, "Dropped by budget: %s, %s tokens freed:\n", packFiles(len(p.Deferred)), numfmt.Thousands(freed))
			reportEach(&b, p.Deferred)
		} else {
			fmt.Fprintf(&b, "Dropped by budget: %s, %s tokens freed, by category (--report full lists each file):\n",
				packFiles(len(p.Deferred)), numfmt.Thousands(freed))
			reportByCategory(&b, p.Deferred)
		}
	}
	if len(p.NotPacked) > 0 {
		fmt.Fprintf(&b, "Listed, not packed: %s:\n", packFiles(len(p.NotPacked)))
		for _, n := range p.NotPacked {
			fmt.Fprintf(&b, "  %s  (%s, %s bytes)\n", packShow(n.Path), n.Reason, numfmt.Thousands(int(n.Bytes)))
		}
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n", w)
	}
	return b.String()
}

// reportEach writes one line a dropped file.
func reportEach(b *strings.Builder, ds []Deferred) {
	width := 0
	for _, d := range ds {
		width = max(width, len(numfmt.Thousands(d.Tokens)))
	}
	for _, d := range ds {
		fmt.Fprintf(b, "  %*s  %s  (category %s", width, numfmt.Thousands(d.Tokens), packShow(d.Path), d.Category)
		if d.Reason != packReasonBudget {
			fmt.Fprintf(b, "; %s", d.Reason)
		}
		b.WriteString(")\n")
	}
}

// reportByCategory writes one line a category and reason, in the order
// of their first dropped file.
func reportByCategory(b *strings.Builder, ds []Deferred) {
	type key struct{ category, reason string }
	type sum struct{ files, tokens int }
	var order []key
	sums := map[key]*sum{}
	for _, d := range ds {
		k := key{d.Category, d.Reason}
		s := sums[k]
		if s == nil {
			s = &sum{}
			sums[k] = s
			order = append(order, k)
		}
		s.files++
		s.tokens += d.Tokens
	}
	width, fwidth := 0, 0
	for _, k := range order {
		width = max(width, len(numfmt.Thousands(sums[k].tokens)))
		fwidth = max(fwidth, len(packFiles(sums[k].files)))
	}
	for _, k := range order {
		s := sums[k]
		fmt.Fprintf(b, "  %*s  %-*s  (category %s", width, numfmt.Thousands(s.tokens), fwidth, packFiles(s.files), k.category)
		if k.reason != packReasonBudget {
			fmt.Fprintf(b, "; %s", k.reason)
		}
		b.WriteString(")\n")
	}
}

// packFiles says "1 file" or "n files".
func packFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return numfmt.Thousands(n) + " files"
}
