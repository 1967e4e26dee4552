package packet

import (
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
)

// The stand-in for a body of n tokens ("x x ... x", n words) counts n in
// both BPE encodings, and n+1 with the line end after it: stand tells
// the memo so without counting.
func TestStandInCounts(t *testing.T) {
	for _, enc := range []string{"o200k_base", "cl100k_base"} {
		c, err := budget.NewCounter(enc)
		if err != nil {
			t.Fatal(err)
		}
		b := &builder{req: Request{Counter: c}, memo: newMemoCounter(c)}
		for n := 1; n <= 5000; n += 1 + n/7 {
			s := b.stand(n)
			if got := c.Count(s); got != n {
				t.Fatalf("%s: stand(%d) counts %d", enc, n, got)
			}
			if got, told := c.Count(s+"\n"), b.memo.counts[s+"\n"]; got != n+1 || told != got {
				t.Fatalf("%s: stand(%d) with its line end counts %d, the memo was told %d", enc, n, got, told)
			}
			if !strings.HasPrefix(s, "x") || strings.Count(s, "x") != n {
				t.Fatalf("%s: stand(%d) = %.20q...", enc, n, s)
			}
		}
	}
}
