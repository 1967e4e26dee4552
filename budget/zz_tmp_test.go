package budget

import (
	"fmt"
	"testing"
)

func TestTmpLongS(t *testing.T) {
	words := []string{"a", "e", "o", "i", "u", "on", "en", "es", "t", "tuff", "ion", "ch", "h", "ſ", "ſt", "ter", "ing", "y", "ie", "el", "ec"}
	n := 0
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(t, enc)
		for _, p := range []string{"x", "", " ", "X", "de"} {
			for _, w := range words {
				s := p + "'ſ" + w
				longSFolds = true
				a := c.Encode(s)
				longSFolds = false
				b := c.Encode(s)
				if fmt.Sprint(a) != fmt.Sprint(b) && n < 6 {
					n++
					fmt.Printf("%s\t%q\tfold=%v\tnofold=%v\n", enc, s, a, b)
				}
			}
		}
	}
	longSFolds = true
}
