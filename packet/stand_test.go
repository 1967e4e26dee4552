package packet

import (
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
)

// The stand-in for a body of n tokens ("x x ... x", n words) counts n in
// both BPE encodings, and n+1 with the line end after it: the memo knows
// that count by the line's shape, without counting.
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
			told, ok := standLineCount(s + "\n")
			if got := c.Count(s + "\n"); got != n+1 || !ok || told != got {
				t.Fatalf("%s: stand(%d) with its line end counts %d, the memo takes it as %d (%t)", enc, n, got, told, ok)
			}
			if got := b.memo.Count(s + "\n# next\n"); got != c.Count(s+"\n")+c.Count("# next\n") {
				t.Fatalf("%s: the memo counts stand(%d) and a line after it as %d", enc, n, got)
			}
			if !strings.HasPrefix(s, "x") || strings.Count(s, "x") != n {
				t.Fatalf("%s: stand(%d) = %.20q...", enc, n, s)
			}
		}
	}
}

// Only a stand-in line is taken by its shape: text that is nearly one is
// counted.
func TestStandLineCountRefusesOtherText(t *testing.T) {
	for _, s := range []string{"", "\n", "x", "x x", "xx\n", "x x \n", "x  x\n", "x x\r\n", "x y x\n", "y x x\n",
		"x x\nx\n", " x x\n", "x" + strings.Repeat(" x", 3000) + "y\n"} {
		if n, ok := standLineCount(s); ok {
			t.Errorf("standLineCount(%.20q) = %d, true; want false", s, n)
		}
	}
	// The shared text grows to the longest stand-in asked for, and a
	// shorter one is still its prefix.
	long := standText(50000)
	if n, ok := standLineCount(long + "\n"); !ok || n != 50001 {
		t.Errorf("a stand-in of 50,000 words counts %d, %t", n, ok)
	}
	if standText(3) != "x x x" || standText(1) != "x" {
		t.Errorf("standText(3) = %q, standText(1) = %q", standText(3), standText(1))
	}
}
