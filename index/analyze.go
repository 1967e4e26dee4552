package index

import (
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// Term is one analysed word of a text: the term the index files it under
// (lower case, stemmed) and where the word is in the text, in bytes.
type Term struct {
	Term       string
	Start, End int
}

// textAnalyzer is the analyzer of the index's prose fields (title,
// summary, body), built once.
var textAnalyzer = sync.OnceValue(func() analysis.Analyzer {
	a := newMapping().AnalyzerNamed(en.AnalyzerName)
	if d, ok := a.(*analysis.DefaultAnalyzer); ok {
		return fastAnalyzer(withIrregular(d))
	}
	return a
})

// Terms analyses text as the index analyses a record's prose, stop words
// left out: the terms a query would match in it, in text order. Packets
// use it to find the passages of a body that a query matches, with the
// search's own notion of a word.
func Terms(text string) []Term {
	if text == "" {
		return nil
	}
	ts := textAnalyzer().Analyze([]byte(text))
	out := make([]Term, len(ts))
	for i, t := range ts {
		out[i] = Term{Term: string(t.Term), Start: t.Start, End: t.End}
	}
	return out
}

// EachTerm calls fn with each term of text that Terms gives, in text
// order, without Terms' allocations: a term is valid only during its
// call. Excerpts score every line of the long bodies a packet may show
// by it, and allocating a token and a string for each of their words was
// a fifth of a packet's time on long chats.
func EachTerm(text string, fn func(term []byte)) {
	a, ok := textAnalyzer().(*cachedAnalyzer)
	if ok {
		_, ok = a.tokenizer.(wordTokenizer)
	}
	in := []byte(text)
	if !ok || !utf8.Valid(in) {
		for _, t := range textAnalyzer().Analyze(in) {
			fn(t.Term)
		}
		return
	}
	tok := analysis.Token{}
	w := words{in: in, pos: 1, each: func(start, end int, typ analysis.TokenType) {
		tok = analysis.Token{Term: in[start:end], Start: start, End: end, Type: typ}
		if term, stop := a.terms.termOf(&tok); !stop {
			fn(term)
		}
	}}
	w.split()
}
