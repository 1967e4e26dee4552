package mention

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
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
		got := FilingWord(c.name)
		if got != c.want {
			t.Errorf("FilingWord(%q) = %q; want %q", c.name, got, c.want)
		}
		if len(got) > MaxFilingWord || !utf8.ValidString(got) {
			t.Errorf("FilingWord(%q) = %q: over %d bytes or not UTF-8", c.name, got, MaxFilingWord)
		}
	}
	if w, others := NameWords("The Needle of the cliffs"); w != "cliffs" || !slices.Equal(others, []string{"needle", "of", "the"}) {
		t.Errorf("NameWords = %q, %q; want cliffs and needle, of, the", w, others)
	}
	if w, others := NameWords("..."); w != "" || others != nil {
		t.Errorf("NameWords of a name without a word = %q, %q", w, others)
	}
	if got := TextWords("The cliffs, the CLIFFS", "a"+long); !slices.Equal(got, []string{"a" + strings.Repeat("é", 31), "cliffs", "the"}) {
		t.Errorf("TextWords = %q", got)
	}
}

// Every word of a name a text can match, as NameWords gives it, is
// among the text's words: what a store's name keys rely on to find a
// text's names by its words.
func TestFilingWordIsAWordOfEveryMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := []string{"the", "The", "Needle", "needle", "o'neill", "O’Neill", "Ærø", "ærø", "a", "x_y", strings.Repeat("Long", 20), strings.Repeat("long", 20) + "er"}
	pick := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, []string{" ", "\n", "-", " "}[rng.IntN(4)])
	}
	matched := 0
	for range 5000 {
		name, text := pick(1+rng.IntN(3)), pick(2+rng.IntN(8))
		if len(NewFor([]Name{{Text: name, ID: "x"}}, text).Scan(text)) == 0 {
			continue
		}
		matched++
		w, others := NameWords(name)
		for _, o := range append(others, w) {
			if !slices.Contains(TextWords(text), o) {
				t.Fatalf("%q matches in %q, but its word %q is not among the text's words %q", name, text, o, TextWords(text))
			}
		}
	}
	if matched < 200 {
		t.Fatalf("only %d of 5,000 names matched: the test checks too little", matched)
	}
}

// FuzzNameWords: wherever a name matches in a text, every word a store
// files it by (NameWords) is among the text's words (TextWords), so the
// name keys find it; and the filing word is one of its words.
func FuzzNameWords(f *testing.F) {
	for _, s := range [][2]string{
		{"The Needle", "the Needle fell"},
		{"O'Neill", "O’Neill came"},
		{"ÆRØSKØBING", "ærøskøbing harbour"},
		{"İstanbul", "İSTANBUL and istanbul"},
		{strings.Repeat("ß", 40), strings.Repeat("SS", 40) + " " + strings.Repeat("ß", 40)},
		{"x_y z", "x_y\nz"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		if !utf8.ValidString(name) || !utf8.ValidString(text) {
			return // a store keeps valid UTF-8 only
		}
		w, others := NameWords(name)
		if w != FilingWord(name) || w == "" && others != nil {
			t.Fatalf("NameWords(%q) = %q, %q; FilingWord %q", name, w, others, FilingWord(name))
		}
		if len(New([]Name{{Text: name, ID: "x"}}).Scan(text)) == 0 {
			return
		}
		have := TextWords(text)
		for _, o := range append(others, w) {
			if _, ok := slices.BinarySearch(have, o); !ok {
				t.Fatalf("%q matches in %q, but its word %q is not among the text's words %q", name, text, o, have)
			}
		}
	})
}
