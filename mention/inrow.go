package mention

import (
	"slices"

	"github.com/lorekeep/lore/store"
)

// Selection by words in a row. A name matches only consecutive words of a
// text (longest), so a name of several words can match only a text that
// holds each pair of its consecutive words next to each other. Selecting
// by those pairs, not by the bag of a text's words, keeps out the names
// whose words a scene says apart: in a large namespace of names built
// from common words, a 300-word scene holds every word of thousands of
// names and the words in a row of a few dozen, and every name selected
// costs a trie node when the matcher is built.

// pairSep joins two words in a row into one key of an Index. It is not
// a word rune, so a pair never equals a word.
const pairSep = '\x00'

// rowSet is the folded words of some texts and their pairs of words in a
// row (within one text).
type rowSet struct {
	ids   map[string]int32    // word -> its number
	words []string            // by number
	pairs map[uint64]struct{} // first word's number << 32 | second's
}

// rowsOf returns the rowSet of texts.
func rowsOf(texts []string) *rowSet {
	r := &rowSet{ids: map[string]int32{}, pairs: map[uint64]struct{}{}}
	for _, t := range texts {
		prev := int32(-1)
		for _, w := range wordsOf(t) {
			id, ok := r.ids[w.fold]
			if !ok {
				id = int32(len(r.words))
				r.ids[w.fold] = id
				r.words = append(r.words, w.fold)
			}
			if prev >= 0 {
				r.pairs[pairOf(prev, id)] = struct{}{}
			}
			prev = id
		}
	}
	return r
}

func pairOf(first, second int32) uint64 { return uint64(first)<<32 | uint64(uint32(second)) }

// eachKey calls fn with every key of r as nameKeys makes them: each word,
// and each pair of words in a row joined by pairSep (in buf).
func (r *rowSet) eachKey(buf *[]byte, fn func(key []byte)) {
	for _, w := range r.words {
		*buf = append((*buf)[:0], w...)
		fn(*buf)
	}
	for p := range r.pairs {
		*buf = append(append(append((*buf)[:0], r.words[p>>32]...), pairSep), r.words[uint32(p)]...)
		fn(*buf)
	}
}

// nameKeys returns the distinct keys a text must hold for name to match
// in it: its word, for a name of one, else each pair of its words in a
// row, folded as Select folds them. A name without a word has none.
func nameKeys(name string) []string {
	var keys []string
	var prev, cur []byte
	words := 0
	store.EachWord(name, func(start, end int) bool {
		cur = lowerWord(name[start:end], &cur)
		if words++; words > 1 {
			if k := string(prev) + string(pairSep) + string(cur); !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		prev, cur = cur, prev
		return true
	})
	if words == 1 {
		return []string{string(prev)} // the word, swapped in above
	}
	return keys
}

// inRow reports whether r holds name's words in a row: its word, for a
// name of one, else each pair of its words in a row. buf is scratch
// space, so that the common case does not allocate.
func inRow(name string, r *rowSet, buf *[]byte) bool {
	words, prev := 0, int32(-1)
	all := store.EachWord(name, func(start, end int) bool {
		id, ok := r.ids[string(lowerWord(name[start:end], buf))]
		if ok && prev >= 0 {
			_, ok = r.pairs[pairOf(prev, id)]
		}
		words++
		prev = id
		return ok
	})
	return words > 0 && all
}
