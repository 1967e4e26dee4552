// Package mention finds the names of records in text, as a lorebook does:
// given every name, alias and key of a namespace, it reports where a text
// says one of them.
//
// Matching is by whole words: a word is a run of letters, digits,
// combining marks and connectors such as "_" (Unicode classes L, N, M and
// Pc: store.IsWordRune, the words a store files names by); everything
// else separates words. A name matches a run of consecutive words of the
// text whose separators are the name's own, with any run of white space
// standing for any other ("the Needle" matches "the\nNeedle", "O'Neill"
// matches "O’Neill"), so a name never matches inside a longer word. Among the
// names that match at a word, the longest wins, and the scan resumes after
// it: "the Needle cliffs" over "the Needle".
//
// Case folds, except where folding could turn a common word into a name:
// a name word that starts with a capital matches only a text word that
// starts with one ("Binding" is not "binding"; "BINDING" is). The first
// word of a name whose later words carry a capital folds freely, so "The
// Needle" matches "the Needle" in running text. A name of two words or
// more written with a capital on every word folds freely too, where that
// is not ambiguous: "The Matron" matches "the matron" and "Mrs. Van Der
// Luyden" "Mrs. van der Luyden", unless a name matches there with its
// capitals (it wins) or the words, folded, name more than one record
// (then none is named). A name written with a word in lower case keeps
// its capitals as the mark of the name: "the Needle" is not "the needle
// and thread".
//
// The matcher is a trie over folded words, the word-level equivalent of an
// Aho-Corasick automaton for whole-word patterns: a scan costs one map
// lookup per word of the text plus one per word of each name it meets.
package mention

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// Name is one name a record goes by.
type Name struct {
	Text string // as written: "the Needle"
	ID   string // the record it names
	Via  string // what the name is to the record: "title", "alias", "key"
}

// Match is one place a text names records.
type Match struct {
	Start, End int    // byte offsets of the match in the text
	Text       string // the text matched, as written in the text
	// Names are every name that matches there, sorted by (ID, Via, Text):
	// more than one record means the text is ambiguous.
	Names []Name
}

// IDs returns the distinct record ids of m's names, sorted.
func (m Match) IDs() []string {
	ids := make([]string, 0, len(m.Names))
	for _, n := range m.Names {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Matcher finds names in text. It is safe for concurrent Scans.
type Matcher struct {
	root  node
	names int
}

type node struct {
	next  map[string]*node
	terms []*term // the names that end at this node
}

// term is a name by its words: several names can share a node when they
// fold alike ("Binding" and "binding") or differ only in separators.
type term struct {
	words []string // as written
	gaps  []string // normalized separators between the words
	caps  []bool   // per word: must start with a capital in the text
	// titled: two words or more, each written with a capital; such a
	// name also matches in any case (matches).
	titled bool
	names  []Name
}

// New builds a Matcher over names. A name without a word (empty, or only
// punctuation) never matches and is left out.
func New(names []Name) *Matcher {
	m := &Matcher{}
	for _, n := range names {
		words, gaps := split(n.Text)
		if len(words) == 0 {
			continue
		}
		m.names++
		nd := &m.root
		for _, w := range words {
			f := store.FoldWord(w)
			if nd.next == nil {
				nd.next = map[string]*node{}
			}
			child, ok := nd.next[f]
			if !ok {
				child = &node{}
				nd.next[f] = child
			}
			nd = child
		}
		caps := capitals(words)
		i := slices.IndexFunc(nd.terms, func(t *term) bool {
			return slices.Equal(t.words, words) && slices.Equal(t.gaps, gaps)
		})
		if i < 0 {
			nd.terms = append(nd.terms, &term{words: words, gaps: gaps, caps: caps, titled: titled(words)})
			i = len(nd.terms) - 1
		}
		nd.terms[i].names = append(nd.terms[i].names, n)
	}
	return m
}

// NewFor builds a Matcher over the names that can match in texts: those
// whose words the texts hold in a row, whatever their case (Select).
// Scanning texts with it finds what New(names) finds; building it costs
// a lookup per name word instead of a trie node, which is what makes a
// cold packet over a large namespace cheap.
func NewFor(names []Name, texts ...string) *Matcher {
	pos := Select(names, texts...)
	keep := make([]Name, 0, len(pos))
	for _, i := range pos {
		keep = append(keep, names[i])
	}
	return New(keep)
}

// Select returns, ascending, the positions of the names whose words the
// texts hold in a row, whatever their case: the only names that can
// match there (inrow.go), and the names NewFor keeps, by one pass over
// them (Index.For finds the same without the pass).
func Select(names []Name, texts ...string) []int {
	have := rowsOf(texts)
	var out []int
	var buf []byte
	for i, n := range names {
		if inRow(n.Text, have, &buf) {
			out = append(out, i)
		}
	}
	return out
}

// lowerWord lower-cases w rune by rune into buf and returns buf's bytes,
// as store.FoldWord folds it: a map lookup by string(lowerWord(...))
// does not allocate.
func lowerWord(w string, buf *[]byte) []byte {
	b := (*buf)[:0]
	for _, r := range w {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	*buf = b
	return b
}

// Len is the number of names the Matcher holds.
func (m *Matcher) Len() int { return m.names }

// capitals says which words must start with a capital in the text: those
// that start with one in the name, except a first word followed by
// another capitalised word ("The" in "The Needle").
func capitals(words []string) []bool {
	caps := make([]bool, len(words))
	for i, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		caps[i] = unicode.IsUpper(r) || unicode.IsTitle(r)
	}
	if len(caps) > 1 && slices.Contains(caps[1:], true) {
		caps[0] = false
	}
	return caps
}

// word is a word of a scanned text.
type word struct {
	start, end int
	fold       string
}

// Scan returns the matches in text, in text order, none overlapping.
func (m *Matcher) Scan(text string) []Match {
	if m.names == 0 {
		return nil
	}
	words := wordsOf(text)
	var out []Match
	for i := 0; i < len(words); {
		end, names := m.longest(text, words, i)
		if end < 0 {
			i++
			continue
		}
		out = append(out, Match{Start: words[i].start, End: words[end].end, Text: text[words[i].start:words[end].end], Names: names})
		i = end + 1
	}
	return out
}

// longest finds the longest name starting at words[i]: the index of its
// last word and the names that match, or -1.
func (m *Matcher) longest(text string, words []word, i int) (int, []Name) {
	best := -1
	var names []Name
	nd := &m.root
	for j := i; j < len(words); j++ {
		next, ok := nd.next[words[j].fold]
		if !ok {
			break
		}
		nd = next
		var found, folded []Name
		for _, t := range nd.terms {
			switch ok, exact := t.matches(text, words[i:j+1]); {
			case exact:
				found = append(found, t.names...)
			case ok:
				folded = append(folded, t.names...)
			}
		}
		if found == nil && oneRecord(folded) {
			found = folded
		}
		if found != nil {
			best, names = j, found
		}
	}
	if best >= 0 {
		slices.SortFunc(names, func(a, b Name) int {
			return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Via, b.Via), cmp.Compare(a.Text, b.Text))
		})
		names = slices.Compact(names)
	}
	return best, names
}

// titled reports whether a name of words is written with a capital on
// each of them, and has two or more.
func titled(words []string) bool {
	return len(words) > 1 && !slices.ContainsFunc(words, func(w string) bool {
		r, _ := utf8.DecodeRuneInString(w)
		return !unicode.IsUpper(r) && !unicode.IsTitle(r)
	})
}

// matches checks what the trie cannot: capitals and separators. ok says
// the words match; exact that they do with the name's capitals. Only a
// titled name matches otherwise.
func (t *term) matches(text string, ws []word) (ok, exact bool) {
	exact = true
	for k, w := range ws {
		if t.caps[k] {
			r, _ := utf8.DecodeRuneInString(text[w.start:])
			if !unicode.IsUpper(r) && !unicode.IsTitle(r) {
				exact = false
			}
		}
		if k > 0 && normGap(text[ws[k-1].end:w.start]) != t.gaps[k-1] {
			return false, false
		}
	}
	if !exact && !t.titled {
		return false, false
	}
	return true, exact
}

// oneRecord reports whether names name exactly one record.
func oneRecord(names []Name) bool {
	if len(names) == 0 {
		return false
	}
	return !slices.ContainsFunc(names, func(n Name) bool { return n.ID != names[0].ID })
}

// wordsOf splits text into words with their folded forms.
func wordsOf(text string) []word {
	out := make([]word, 0, len(text)/6+1) // prose averages more than 5 bytes a word with its space
	store.EachWord(text, func(start, end int) bool {
		out = append(out, word{start, end, store.FoldWord(text[start:end])})
		return true
	})
	return out
}

// split returns the words of a name and the normalized separators between
// them; separators before the first and after the last word are dropped.
func split(name string) (words, gaps []string) {
	ws := wordsOf(name)
	for k, w := range ws {
		words = append(words, name[w.start:w.end])
		if k > 0 {
			gaps = append(gaps, normGap(name[ws[k-1].end:w.start]))
		}
	}
	return words, gaps
}

// normGap turns every run of white space into one space and curly
// apostrophes into straight ones, so that line breaks and typography do
// not hide a name.
func normGap(s string) string {
	if s == " " {
		return s // the common case, without allocating
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		switch r {
		case '\u2019', '\u2018', '\u02bc':
			r = '\''
		case '\u2010', '\u2011', '\u2013':
			r = '-'
		}
		b.WriteRune(r)
	}
	return b.String()
}
