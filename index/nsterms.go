package index

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Terms filed by namespace. Every term of a title, summary or body is
// indexed as "ns:term", so a term's postings hold the records of one
// namespace only. A search then walks its own namespace's postings and
// no other: its cost follows the namespace's size, not the store's, and
// no namespace clause has to be joined to the words. The scores follow
// from the namespace's records alone too (document frequencies and the
// document count are the namespace's), so nothing of one namespace, not
// even how common a word is there, shows through in another's ranking.
//
// A namespace never contains ':' (its grammar is [a-z0-9._-/]), so the
// first ':' of a term ends its namespace.
const nsTermSep = ':'

// nsAnalyzer analyses text as its inner analyzer does and files each
// term under ns.
type nsAnalyzer struct {
	ns string
	an analysis.Analyzer
}

func (a nsAnalyzer) Analyze(text []byte) analysis.TokenStream {
	if c, ok := a.an.(*cachedAnalyzer); ok {
		return c.analyzeUnder(a.ns, text) // filed as it is written
	}
	ts := a.an.Analyze(text)
	fileUnder(a.ns, ts)
	return ts
}

// fileUnder prefixes every term of ts with ns and the separator, in one
// allocation for the whole stream.
func fileUnder(ns string, ts analysis.TokenStream) {
	n := 0
	for _, t := range ts {
		n += len(ns) + 1 + len(t.Term)
	}
	buf := make([]byte, 0, n)
	for _, t := range ts {
		start := len(buf)
		buf = append(buf, ns...)
		buf = append(buf, nsTermSep)
		buf = append(buf, t.Term...)
		t.Term = buf[start:len(buf):len(buf)]
	}
}

// terms analyses text of namespace ns as the index analyses a record's
// text: filed under ns, unless the index is of format 1.
func (b *builder) terms(ns, text string) analysis.TokenStream {
	return b.analyzer(ns).Analyze([]byte(text))
}

// analyzer is the analyzer of namespace ns's text: its terms filed under
// ns, unless the index is of format 1.
func (b *builder) analyzer(ns string) analysis.Analyzer {
	if !b.byNS {
		return b.text
	}
	return nsAnalyzer{ns: ns, an: b.text}
}

// fieldQuery builds one field's part of a query from terms filed by
// namespace, with the field's boost.
type fieldQuery func(field string, boost float64) query.Query

// anyOf matches a record that holds any of the terms in the field: bleve's
// match query with the "or" operator, over terms that are already
// analysed (a match query would analyse them again, without the
// namespace).
func anyOf(terms analysis.TokenStream) fieldQuery {
	return func(field string, boost float64) query.Query {
		tqs := make([]query.Query, len(terms))
		for i, t := range terms {
			tq := bleve.NewTermQuery(string(t.Term))
			tq.SetField(field)
			tq.SetBoost(boost)
			tqs[i] = tq
		}
		dq := bleve.NewDisjunctionQuery(tqs...)
		dq.SetMin(1)
		dq.SetBoost(boost)
		return dq
	}
}

// phraseOf matches a record that holds the terms in the field in their
// order, gaps (dropped stop words) included: bleve's match phrase query
// over terms that are already analysed.
func phraseOf(terms analysis.TokenStream) fieldQuery {
	first, last := terms[0].Position, terms[0].Position
	for _, t := range terms {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	slots := make([][]string, last-first+1)
	for _, t := range terms {
		slots[t.Position-first] = append(slots[t.Position-first], string(t.Term))
	}
	return func(field string, boost float64) query.Query {
		pq := query.NewMultiPhraseQuery(slots, field)
		pq.SetBoost(boost)
		return pq
	}
}

// namespaceDocs returns how many live records of ns the index holds.
func (ix *Index) namespaceDocs(ctx context.Context, ns string) (uint64, error) {
	fail := func(err error) (uint64, error) {
		return 0, fmt.Errorf("index %s: count namespace %q: %w", ix.dir, ns, err)
	}
	ai, err := ix.bi.Advanced()
	if err != nil {
		return fail(err)
	}
	r, err := ai.Reader()
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	tr, err := r.TermFieldReader(ctx, []byte(ns), fieldNS, false, false, false)
	if err != nil {
		return fail(err)
	}
	defer tr.Close()
	return tr.Count(), nil
}
