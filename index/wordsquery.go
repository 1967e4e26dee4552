package index

import (
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
)

// wordsQuery is a words query's terms, by field, and its filter: every
// group must hold a term the record has (kinds, one group; each tag, its
// own). Filters never score.
type wordsQuery struct {
	fields [][]*query.TermQuery
	filter [][]*query.TermQuery
}

// wordsOf reads a words query as buildQuery makes it: a boolean query
// whose one must is a disjunction over fields, each a disjunction of
// term queries, and whose filter, if any, is a conjunction of terms and
// disjunctions of terms. Any other shape (phrases, a listing) is not
// one: ok is false. Disjunctions of more than bleve's heap takeover are
// not either: bleve sums those in an order prunedBest does not follow.
// (A filter does not change a score: bleve's boolean searcher adds its
// one must's score to 0, with the must's own query norm.)
func wordsOf(q query.Query) (w wordsQuery, ok bool) {
	bq, ok := q.(*query.BooleanQuery)
	if !ok || bq.Should != nil || bq.MustNot != nil {
		return w, false
	}
	if bq.Filter != nil {
		if w.filter, ok = filterGroups(bq.Filter); !ok {
			return w, false
		}
	}
	w.fields, ok = wordsFields(bq)
	return w, ok
}

// filterGroups reads a filter as addFilters makes it.
func filterGroups(f query.Query) (groups [][]*query.TermQuery, ok bool) {
	conj, ok := f.(*query.ConjunctionQuery)
	if !ok || len(conj.Conjuncts) == 0 {
		return nil, false
	}
	for _, c := range conj.Conjuncts {
		switch c := c.(type) {
		case *query.TermQuery:
			groups = append(groups, []*query.TermQuery{c})
		case *query.DisjunctionQuery:
			g, ok := termsOf(c)
			if !ok {
				return nil, false
			}
			groups = append(groups, g)
		default:
			return nil, false
		}
	}
	return groups, true
}

// termsOf returns the terms of a disjunction of term queries.
func termsOf(d *query.DisjunctionQuery) (terms []*query.TermQuery, ok bool) {
	if d.Min > 1 || len(d.Disjuncts) == 0 {
		return nil, false
	}
	terms = make([]*query.TermQuery, len(d.Disjuncts))
	for i, t := range d.Disjuncts {
		if terms[i], ok = t.(*query.TermQuery); !ok || terms[i].Field() == "" {
			return nil, false // (no field: bleve would search the mapping's default)
		}
	}
	return terms, true
}

// wordsFields reads the must of a words query.
func wordsFields(bq *query.BooleanQuery) (fields [][]*query.TermQuery, ok bool) {
	conj, ok := bq.Must.(*query.ConjunctionQuery)
	if !ok || len(conj.Conjuncts) != 1 {
		return nil, false
	}
	outer, ok := conj.Conjuncts[0].(*query.DisjunctionQuery)
	if !ok || outer.Min > 1 || len(outer.Disjuncts) == 0 || len(outer.Disjuncts) > min(searcher.DisjunctionHeapTakeover, maxFields) {
		return nil, false
	}
	for _, d := range outer.Disjuncts {
		inner, ok := d.(*query.DisjunctionQuery)
		if !ok || len(inner.Disjuncts) > searcher.DisjunctionHeapTakeover {
			return nil, false
		}
		terms, ok := termsOf(inner)
		if !ok {
			return nil, false
		}
		fields = append(fields, terms)
	}
	return fields, true
}
