package mention

import (
	"slices"
	"unicode/utf8"
)

// MaxFilingWord bounds, in bytes, the word FilingWord returns: a longer
// word is cut at a rune boundary. TextWords cuts the same way, so a cut
// word still finds its names.
const MaxFilingWord = 64

// FilingWord is the word a store files name under, so that a text's
// words find every name the text can match without a walk of all names
// (a name matches only a text that holds all its words): the longest of
// its words, folded as Select folds them, the last of equally long ones,
// cut to MaxFilingWord bytes. It is "" for a name without a word, which
// never matches. Long words are rarer than short ones, so a text's
// common words reach few names. Stores keep what it returns: changing
// it changes their keys.
func FilingWord(name string) string {
	w, _ := NameWords(name)
	return w
}

// NameWords returns the words a store files name under: its filing
// word (FilingWord) and its other distinct words, folded and cut the
// same way, sorted. A text can match name only if TextWords of the text
// holds all of them.
func NameWords(name string) (filing string, others []string) {
	var words []string
	var buf []byte
	best := -1
	eachWord(name, func(start, end int) bool {
		w := string(lowerWord(name[start:end], &buf))
		if best < 0 || len(w) >= len(words[best]) {
			best = len(words)
		}
		words = append(words, w)
		return true
	})
	if best < 0 {
		return "", nil
	}
	filing = cut(words[best])
	for _, w := range words {
		if w = cut(w); w != filing {
			others = append(others, w)
		}
	}
	slices.Sort(others)
	return filing, slices.Compact(others)
}

// TextWords returns, sorted, the distinct folded words of texts, each cut
// as FilingWord cuts it: the words to look a text's names up by.
func TextWords(texts ...string) []string {
	var out []string
	for _, t := range texts {
		for _, w := range wordsOf(t) {
			out = append(out, cut(w.fold))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cut shortens w to at most MaxFilingWord bytes, at a rune boundary.
func cut(w string) string {
	if len(w) <= MaxFilingWord {
		return w
	}
	n := MaxFilingWord
	for n > 0 && !utf8.RuneStart(w[n]) {
		n--
	}
	return w[:n]
}
