package shellwords

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"lore packet --ns a", []string{"lore", "packet", "--ns", "a"}},
		{"a  'b c'  d", []string{"a", "b c", "d"}},
		{`'it'\''s'`, []string{"it's"}}, // shellQuote's form of a quote
		{`a\ b ''`, []string{"a b", ""}},
		{"-- '-q x'", []string{"--", "-q x"}},
		{"", nil},
	} {
		got, err := Split(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	if _, err := Split("a 'b"); err == nil {
		t.Error(`Split("a 'b"): no error for an open quote`)
	}
}
