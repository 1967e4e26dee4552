package pack

import (
	"fmt"
	"strings"
)

// Report is the report `lore pack` prints on stderr, in lmpack's words:
//
//	Packed: 37 files, 19,859 tokens (99% of budget 20,000)
//	Dropped by budget: 17 files, 14,013 tokens freed:
//	  1,236  docs/src/content/docs/index.mdx  (category docs)
//
// then the files listed but not packed and the warnings. Dropped files
// come in the order they were dropped, each with what it would have cost.
func (p *Pack) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Packed: %s, %s tokens", packFiles(len(p.Files)), packThousands(p.Tokens))
	if p.Budget > 0 {
		fmt.Fprintf(&b, " (%d%% of budget %s)", p.Tokens*100/p.Budget, packThousands(p.Budget))
	}
	b.WriteString("\n")
	if len(p.Deferred) > 0 {
		freed, width := 0, 0
		for _, d := range p.Deferred {
			freed += d.Tokens
			width = max(width, len(packThousands(d.Tokens)))
		}
		fmt.Fprintf(&b, "Dropped by budget: %s, %s tokens freed:\n", packFiles(len(p.Deferred)), packThousands(freed))
		for _, d := range p.Deferred {
			fmt.Fprintf(&b, "  %*s  %s  (category %s", width, packThousands(d.Tokens), packShow(d.Path), d.Category)
			if d.Reason != packReasonBudget {
				fmt.Fprintf(&b, "; %s", d.Reason)
			}
			b.WriteString(")\n")
		}
	}
	if len(p.NotPacked) > 0 {
		fmt.Fprintf(&b, "Listed, not packed: %s:\n", packFiles(len(p.NotPacked)))
		for _, n := range p.NotPacked {
			fmt.Fprintf(&b, "  %s  (%s, %s bytes)\n", packShow(n.Path), n.Reason, packThousands(int(n.Bytes)))
		}
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "Warning: %s\n", w)
	}
	return b.String()
}

// packFiles says "1 file" or "n files".
func packFiles(n int) string {
	if n == 1 {
		return "1 file"
	}
	return packThousands(n) + " files"
}
