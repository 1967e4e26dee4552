package store_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

func TestFilingWord(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	for _, c := range []struct{ name, want string }{
		{"Mara Voss", "voss"},           // equally long: the last
		{"The Needle cliffs", "cliffs"}, // equally long: the last
		{"Sefa Dunmore", "dunmore"},
		{"O'Neill", "neill"},
		{"ÆRØSKØBING", "ærøskøbing"},
		{"...", ""},
		{"", ""},
		{long, strings.Repeat("é", 32)}, // cut at a rune boundary
		{"a" + long, "a" + strings.Repeat("é", 31)},
	} {
		got := store.FilingWord(c.name)
		if got != c.want {
			t.Errorf("store.FilingWord(%q) = %q; want %q", c.name, got, c.want)
		}
		if len(got) > store.MaxFilingWord || !utf8.ValidString(got) {
			t.Errorf("store.FilingWord(%q) = %q: over %d bytes or not UTF-8", c.name, got, store.MaxFilingWord)
		}
	}
	if w, others := store.NameWords("The Needle of the cliffs"); w != "cliffs" || !slices.Equal(others, []string{"needle", "of", "the"}) {
		t.Errorf("store.NameWords = %q, %q; want cliffs and needle, of, the", w, others)
	}
	if w, others := store.NameWords("..."); w != "" || others != nil {
		t.Errorf("store.NameWords of a name without a word = %q, %q", w, others)
	}
	if got := store.TextWords("The cliffs, the CLIFFS", "a"+long); !slices.Equal(got, []string{"a" + strings.Repeat("é", 31), "cliffs", "the"}) {
		t.Errorf("store.TextWords = %q", got)
	}
}
