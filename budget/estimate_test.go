package budget

import (
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	csv := "id,name,age\n1,ann,31\n2,bob,42\n3,cy,25\n"           // 4 lines, 2 commas each
	tsv := "a\tb\n1\t2\n3\t4\n"                                   // 3 lines with tabs
	md := "| a | b |\n|---|---|\n| 1 | 2 |\n"                     // 3 lines, 3 pipes
	jsonl := `{"id":1}` + "\n" + `{"id":2}` + "\n"                // 2 JSON objects
	poem := "Roses are red,\nviolets are blue,\nsugar is sweet\n" // one comma a line, not CSV
	long := strings.Repeat("x", 400) + "," + strings.Repeat("y", 400) + "\n" + strings.Repeat("z", 400) + "," + strings.Repeat("w", 400) + "\n"
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"empty", "", 0},
		{"one char", "a", 1},
		{"prose", "hello world", 3},            // 11 chars -> ceil(11/4)
		{"prose exact", "abcdefgh", 2},         // 8 chars
		{"cjk counts characters", "中文中文中", 2},  // 5 runes, not 15 bytes
		{"invalid utf-8", "\xF0\x9F\x98ab", 1}, // U+FFFD a b: 3 chars
		{"csv", csv, 4 * 12},                   // lines*12 > 42/4
		{"tsv", tsv, 3 * 12},
		{"markdown table", md, 3 * 12},
		{"jsonl", jsonl, 2 * 12},
		{"poem is prose", poem, (len(poem) + 3) / 4}, // ASCII: chars = bytes
		{"long records keep chars/4", long, (len(long) + 3) / 4},
		{"blank lines do not count", "\n\na\tb\n\n1\t2\n\n", 2 * 12},
	} {
		if got := EstimateTokens(tc.in); got != tc.want {
			t.Errorf("%s: EstimateTokens(%q) = %d, want %d", tc.name, tc.in, got, tc.want)
		}
	}
	c, err := NewCounter("estimate")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Count(csv); got != 48 {
		t.Errorf("estimate counter Count(csv) = %d, want 48", got)
	}
}

func FuzzEstimateTokens(f *testing.F) {
	f.Add("a,b,c\n1,2,3\n")
	f.Add("hello")
	f.Fuzz(func(t *testing.T, s string) {
		n := EstimateTokens(s)
		// Never below chars/4, never above the larger floor.
		chars := (len([]rune(sanitize(s))) + 3) / 4
		if n < chars || n > max(chars, 12*(strings.Count(s, "\n")+1)) {
			t.Fatalf("EstimateTokens(%q) = %d, chars/4 = %d", s, n, chars)
		}
	})
}
