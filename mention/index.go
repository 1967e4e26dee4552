package mention

import "slices"

// Index selects, among many names, those a text can match without a pass
// over every name: NewFor's selection, for a list of names kept across
// many texts (a server's packets over one namespace). Each name is filed
// under its first word, folded as NewFor folds it; a text's words then
// reach only the names that start with one of them. It is safe for
// concurrent use once built.
type Index struct {
	names []Name
	first map[string][]int32 // first word -> positions in names, ascending
}

// NewIndex files names by their first word. A name without a word is
// left out: it never matches.
func NewIndex(names []Name) *Index {
	x := &Index{names: names, first: map[string][]int32{}}
	var buf []byte
	for i, n := range names {
		if w, ok := firstWord(n.Text, &buf); ok {
			x.first[w] = append(x.first[w], int32(i))
		}
	}
	return x
}

// Len is the number of names the index was built over.
func (x *Index) Len() int { return len(x.names) }

// Name returns the i-th name the index was built over.
func (x *Index) Name(i int) Name { return x.names[i] }

// For returns, ascending, the positions of the names all of whose words
// the texts hold, whatever their case: the names NewFor(names, texts...)
// keeps, in their order.
func (x *Index) For(texts ...string) []int {
	have := wordSet(texts)
	var out []int
	var buf []byte
	for w := range have {
		for _, i := range x.first[w] {
			if allIn(x.names[i].Text, have, &buf) {
				out = append(out, int(i))
			}
		}
	}
	slices.Sort(out)
	return out
}

// wordSet is the set of the folded words of texts.
func wordSet(texts []string) map[string]struct{} {
	have := map[string]struct{}{}
	for _, t := range texts {
		for _, w := range wordsOf(t) {
			have[w.fold] = struct{}{}
		}
	}
	return have
}

// firstWord is the first word of name folded as allIn folds it, and
// false when name has no word.
func firstWord(name string, buf *[]byte) (string, bool) {
	start := -1
	end := len(name)
	for i, r := range name {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			end = i
			break
		}
	}
	if start < 0 {
		return "", false
	}
	return string(lowerWord(name[start:end], buf)), true
}
