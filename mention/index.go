package mention

import "slices"

// Index selects, among many names, those a text can match without a pass
// over every name: NewFor's selection, for a list of names kept across
// many texts (a server's packets over one namespace). A name can match
// only a text that holds its words in a row, so each name is filed under
// one of the keys Select checks (its word, or a pair of its words in a
// row), folded as Select folds them: the one the fewest names share, so
// that a text's common words ("of the") reach few names through it. It
// is safe for concurrent use once built.
type Index struct {
	names []Name
	by    map[string][]int32 // key -> positions in names, ascending
}

// NewIndex files names by their rarest key. A name without a word is
// left out: it never matches.
func NewIndex(names []Name) *Index {
	x := &Index{names: names, by: map[string][]int32{}}
	keys := make([][]string, len(names))
	shared := map[string]int{} // names per key
	for i, n := range names {
		keys[i] = nameKeys(n.Text)
		for _, k := range keys[i] {
			shared[k]++
		}
	}
	for i, ks := range keys {
		if len(ks) == 0 {
			continue
		}
		rarest := ks[0]
		for _, k := range ks[1:] {
			if shared[k] < shared[rarest] {
				rarest = k
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

// For returns, ascending, the positions of the names whose words the
// texts hold in a row, whatever their case: the names NewFor(names,
// texts...) keeps, in their order.
func (x *Index) For(texts ...string) []int {
	have := rowsOf(texts)
	var out []int
	var key, word []byte
	have.eachKey(&key, func(k []byte) {
		for _, i := range x.by[string(k)] {
			if inRow(x.names[i].Text, have, &word) {
				out = append(out, int(i))
			}
		}
	})
	slices.Sort(out)
	return out
}
