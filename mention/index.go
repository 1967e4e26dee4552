package mention

import "slices"

// Index selects, among many names, those a text can match without a pass
// over every name: NewFor's selection, for a list of names kept across
// many texts (a server's packets over one namespace). A name can match
// only a text that holds all its words, so each name is filed under one
// of them, folded as NewFor folds it: the one the fewest names share, so
// that a text's common words ("the") reach few names through it. It is
// safe for concurrent use once built.
type Index struct {
	names []Name
	by    map[string][]int32 // word -> positions in names, ascending
}

// NewIndex files names by their rarest word. A name without a word is
// left out: it never matches.
func NewIndex(names []Name) *Index {
	x := &Index{names: names, by: map[string][]int32{}}
	var buf []byte
	words := make([][]string, len(names))
	shared := map[string]int{} // names per word
	for i, n := range names {
		words[i] = foldedWords(n.Text, &buf)
		for k, w := range words[i] {
			if !slices.Contains(words[i][:k], w) {
				shared[w]++
			}
		}
	}
	for i, ws := range words {
		if len(ws) == 0 {
			continue
		}
		rarest := ws[0]
		for _, w := range ws[1:] {
			if shared[w] < shared[rarest] {
				rarest = w
			}
		}
		x.by[rarest] = append(x.by[rarest], int32(i))
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
		for _, i := range x.by[w] {
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

// foldedWords are the words of name folded as allIn folds them.
func foldedWords(name string, buf *[]byte) []string {
	var out []string
	eachWord(name, func(start, end int) bool {
		out = append(out, string(lowerWord(name[start:end], buf)))
		return true
	})
	return out
}
