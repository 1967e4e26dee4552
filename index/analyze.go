package index

import (
	"sync"

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
