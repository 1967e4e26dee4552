package mention

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// Every word of a name a text can match, as store.NameWords gives it, is
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
		w, others := store.NameWords(name)
		for _, o := range append(others, w) {
			if !slices.Contains(store.TextWords(text), o) {
				t.Fatalf("%q matches in %q, but its word %q is not among the text's words %q", name, text, o, store.TextWords(text))
			}
		}
	}
	if matched < 200 {
		t.Fatalf("only %d of 5,000 names matched: the test checks too little", matched)
	}
}

// FuzzNameWords: wherever a name matches in a text, every word a store
// files it by (store.NameWords) is among the text's words (store.TextWords), so the
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
		w, others := store.NameWords(name)
		if w != store.FilingWord(name) || w == "" && others != nil {
			t.Fatalf("store.NameWords(%q) = %q, %q; store.FilingWord %q", name, w, others, store.FilingWord(name))
		}
		if len(New([]Name{{Text: name, ID: "x"}}).Scan(text)) == 0 {
			return
		}
		have := store.TextWords(text)
		for _, o := range append(others, w) {
			if _, ok := slices.BinarySearch(have, o); !ok {
				t.Fatalf("%q matches in %q, but its word %q is not among the text's words %q", name, text, o, have)
			}
		}
	})
}
