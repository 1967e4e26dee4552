package store

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words, as the store files names by them (name keys, namekeys.go). The
// keys a store keeps are made of these words, so what a word is and how
// it folds belong to the store's format: changing either changes the
// keys of every store. Package mention matches names in text by the same
// words (it calls EachWord and FoldWord), so a name the matcher finds in
// a text is always among the names NamesByWord returns for the text's
// words (TextWords).

// MaxFilingWord bounds, in bytes, the word FilingWord returns: a longer
// word is cut at a rune boundary. TextWords cuts the same way, so a cut
// word still finds its names.
const MaxFilingWord = 64

// IsWordRune reports whether r belongs to a word: a letter, a digit, a
// combining mark or a connector such as "_" (Unicode classes L, N, M and
// Pc). Every other rune separates words.
func IsWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || unicode.Is(unicode.Pc, r)
}

// EachWord calls fn with the byte span of each word of text (a run of
// word runes), in order, until fn returns false; it reports whether fn
// never did. Every split of a text or name into words goes through it,
// so names and texts agree on where words are.
func EachWord(text string, fn func(start, end int) bool) bool {
	start := -1
	for i, r := range text {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if !fn(start, i) {
				return false
			}
			start = -1
		}
	}
	return start < 0 || fn(start, len(text))
}

// FoldWord is the case-folded form of a word: each rune lower-cased.
func FoldWord(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(w)
		}
	}
	return w // already lower-case ASCII: no allocation
}

// FilingWord is the word a store files name under, so that a text's
// words find every name the text can match without a walk of all names
// (a name matches only a text that holds all its words): the longest of
// its words, folded (FoldWord), the last of equally long ones, cut to
// MaxFilingWord bytes. It is "" for a name without a word, which never
// matches. Long words are rarer than short ones, so a text's common
// words reach few names.
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
	best := -1
	EachWord(name, func(start, end int) bool {
		w := FoldWord(name[start:end])
		if best < 0 || len(w) >= len(words[best]) {
			best = len(words)
		}
		words = append(words, w)
		return true
	})
	if best < 0 {
		return "", nil
	}
	filing = cutWord(words[best])
	for _, w := range words {
		if w = cutWord(w); w != filing {
			others = append(others, w)
		}
	}
	slices.Sort(others)
	return filing, slices.Compact(others)
}

// TextWords returns, sorted, the distinct folded words of texts, each cut
// as FilingWord cuts it: the words to look a text's names up by
// (NamesByWord).
func TextWords(texts ...string) []string {
	var out []string
	for _, t := range texts {
		EachWord(t, func(start, end int) bool {
			out = append(out, cutWord(FoldWord(t[start:end])))
			return true
		})
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// cutWord shortens w to at most MaxFilingWord bytes, at a rune boundary.
func cutWord(w string) string {
	if len(w) <= MaxFilingWord {
		return w
	}
	n := MaxFilingWord
	for n > 0 && !utf8.RuneStart(w[n]) {
		n--
	}
	return w[:n]
}
