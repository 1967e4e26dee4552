package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// Word pairs. A question's terms that stand side by side in it ("Roth
// IRA", "confirmed attendees", "attend my event") say more when a record
// holds them side by side too than when it holds them apart, and BM25
// scores the two alike. So a question (Query.AnyTerm) re-ranks the best
// records by its words: each pair a record holds as the question says it,
// in a field, adds the two terms' scores in that field again, with the
// shares bleve gives a disjunction of the pairs' phrases (the fields that
// hold a pair of the three, the pairs held of the question's): the
// ordered-bigram part of the sequential dependence model (Metzler and
// Croft, 2005; bleve has no query for its unordered windows, and
// counting them, measured, gained nothing).
//
// Only the first pairWindow records by the words are re-ranked, so the
// order is one fixed order whatever the limit: the best n hits are the
// first n of the best m > n, as a packet's deeper searches need (a
// record past the window keeps its words' score, which no record in the
// window is below). The words search keeps its pruning (prunedBest);
// positions are read only in records that hold both words of a pair.
// That costs about a millisecond a packet on short turns (p50 5.3-6.1 ->
// 6.5-7.3 ms at 500-4k tokens, BENCHMARKS.md).
//
// Measured with the recall benchmark's packets at 500 / 1k / 2k / 4k /
// 8k tokens, beside the commit before in the same hour (docs/bench-history,
// 2026-12-07): long user/assistant chats .438 .529 .569 .633 .674 ->
// .436 .536 .578 .633 .683; short turns .723 .799 .856 .903 .937 ->
// .728 .801 .857 .900 .937; story passages .808 .926 .979 .998 .999 ->
// .814 .929 .980 .998 .999, their answers .824 .916 .973 .995 .999 ->
// .828 .918 .973 .995 .999. Pairs only side by side (no stop word
// between) gained less on the stories and short turns at 500 (.810 and
// .726), pairs at half their scores less on the long chats at 1k
// (.528); a window of 1,280 the same as 320, of 128 less at every budget.

// maxWordPairs bounds the pairs a question adds: a question is a
// sentence or two, not a page pasted in.
const maxWordPairs = 16

// pairWindow is how many of the best records by the words a question's
// pairs re-rank: about the hits a packet's first search reads.
const pairWindow = 320

// wordPair is two terms of a question, as the index files them, gap
// places apart in it (1: side by side; 2: a stop word between).
type wordPair struct {
	a, b string
	gap  uint64
}

// wordPairs lists the pairs of terms that stand side by side in a
// question, or with one stop word between (a record's text must have
// them at the same distance: "attend my event" finds "attend the
// event"), each pair once, in the question's order, at most
// maxWordPairs.
func wordPairs(words analysis.TokenStream) []wordPair {
	var pairs []wordPair
	for i := 0; i+1 < len(words) && len(pairs) < maxWordPairs; i++ {
		a, b := words[i], words[i+1]
		p := wordPair{a: string(a.Term), b: string(b.Term), gap: uint64(b.Position - a.Position)}
		if p.gap < 1 || p.gap > 2 || p.a == p.b || slices.Contains(pairs, p) {
			continue
		}
		pairs = append(pairs, p)
	}
	return pairs
}

// pairsOf is q's word pairs: none unless q is a question.
func pairsOf(q Query, b *builder) []wordPair {
	if !q.AnyTerm || strings.TrimSpace(q.Text) == "" {
		return nil
	}
	return wordPairs(b.terms(q.NS, strings.ReplaceAll(q.Text, `"`, " ")))
}

// withPairs re-ranks the first pairWindow of found (topNIn's hits of the
// words query bq in r, in its order) by pairs, and returns found in the
// new order. A query that is not a words query (quoted phrases) keeps
// its order.
func (ix *Index) withPairs(ctx context.Context, r bindex.IndexReader, found bsearch.DocumentMatchCollection, bq query.Query, pairs []wordPair) (_ bsearch.DocumentMatchCollection, err error) {
	w, ok := wordsOf(bq)
	if !ok || len(found) == 0 {
		return found, nil
	}
	plan, err := openWords(ctx, r, w)
	if errors.Is(err, errNotPrunable) {
		return found, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := plan.close(); err == nil {
			err = cerr
		}
	}()
	fields, err := openPairFields(ctx, r, plan, pairs)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, f := range fields {
			for _, t := range f.terms {
				if cerr := t.vectors.Close(); err == nil {
					err = cerr
				}
			}
		}
	}()
	// The window in the index's order, as postings are read.
	type numbered struct {
		doc uint64
		h   *bsearch.DocumentMatch
	}
	window := make([]numbered, 0, min(len(found), pairWindow))
	for _, h := range found[:min(len(found), pairWindow)] {
		if len(h.IndexInternalID) != 8 {
			return found, nil // not scorch's record numbers, which the words' postings go by
		}
		window = append(window, numbered{binary.BigEndian.Uint64(h.IndexInternalID), h})
	}
	slices.SortFunc(window, func(a, b numbered) int { return cmp.Compare(a.doc, b.doc) })
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(4, 0), IndexReader: r}
	id := make([]byte, 8) // a record number, as the postings take it
	for n, w := range window {
		if n%checkDoneEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		doc, h := w.doc, w.h
		for _, f := range fields {
			if err := f.advance(doc, id); err != nil {
				return nil, err
			}
		}
		// As bleve scores a disjunction of the pairs, each a disjunction
		// over the fields of a phrase: sums, each times the share of its
		// clauses that match.
		bonus, held := 0.0, 0
		for k, p := range pairs {
			sum, in := 0.0, 0
			for _, f := range fields {
				s, ok, err := f.pair(sctx, doc, id, k, p)
				if err != nil {
					return nil, err
				}
				if ok {
					sum += s
					in++
				}
			}
			if in > 0 {
				bonus += sum * (float64(in) / float64(len(fields)))
				held++
			}
		}
		if held > 0 {
			bonus *= float64(held) / float64(len(pairs))
			h.Score = stableScore(h.Score + stableScore(bonus))
		}
	}
	out := slices.Clone(found)
	slices.SortStableFunc(out, byScoreThenID)
	return out, nil
}

// pairField is, in one field, the terms that make up the pairs.
type pairField struct {
	terms map[string]*pairTerm
	pairs [][2]*pairTerm // the terms of each pair, nil where the field has none of one
}

// pairTerm is one term of the pairs in one field: whether a record
// holds it, with its frequency and norm, from the words' postings (the
// plan's clause, read without positions), and its positions from
// postings of their own, read only in records that hold both terms of a
// pair there (reading positions was most of the re-ranking's time).
type pairTerm struct {
	clause  *wordClause // where the term is, and its score there
	started bool        // clause has been moved at least once
	vectors bindex.TermFieldReader
	vtfd    bindex.TermFieldDoc
	vdoc    uint64 // the record vectors is at; exhausted before the first read
}

// openPairFields opens, in each field of plan, the postings with
// positions of the terms of the pairs that some record holds both terms
// of there: a pair one of whose terms no record's field holds (the
// summaries where records have none, most titles) costs nothing.
func openPairFields(ctx context.Context, r bindex.IndexReader, plan *wordsPlan, pairs []wordPair) (_ []*pairField, err error) {
	var out []*pairField
	defer func() {
		if err != nil {
			for _, f := range out {
				for _, t := range f.terms {
					_ = t.vectors.Close()
				}
			}
		}
	}()
	for _, g := range plan.fields {
		f := &pairField{terms: map[string]*pairTerm{}}
		out = append(out, f)
		held := map[string]bool{} // terms some record holds in this field
		for _, c := range g {
			held[c.term] = held[c.term] || c.count > 0
		}
		inPair := map[string]bool{}
		for _, p := range pairs {
			if held[p.a] && held[p.b] {
				inPair[p.a], inPair[p.b] = true, true
			}
		}
		for _, c := range g {
			if !inPair[c.term] || f.terms[c.term] != nil {
				continue
			}
			rd, err := r.TermFieldReader(ctx, []byte(c.term), c.name, true, true, true)
			if err != nil {
				return out, err
			}
			f.terms[c.term] = &pairTerm{clause: c, vectors: rd, vdoc: exhausted}
		}
		f.pairs = make([][2]*pairTerm, len(pairs))
		for i, p := range pairs {
			f.pairs[i] = [2]*pairTerm{f.terms[p.a], f.terms[p.b]}
		}
	}
	return out, nil
}

// advance moves f's terms to record doc, or past it where it holds none
// of a term. Records are asked about in rising order, so postings only
// move forward.
func (f *pairField) advance(doc uint64, id []byte) error {
	for _, t := range f.terms {
		if t.started && t.clause.doc >= doc {
			continue
		}
		if err := t.clause.advance(doc, id); err != nil {
			return err
		}
		t.started = true
	}
	return nil
}

// pair is the score of pair p, the k-th, in record doc's field f, as bleve's phrase
// query gives it (its two terms' scores), and whether f holds p there,
// as the question has it.
func (f *pairField) pair(sctx *bsearch.SearchContext, doc uint64, id []byte, k int, p wordPair) (float64, bool, error) {
	a, b := f.pairs[k][0], f.pairs[k][1]
	if a == nil || b == nil || a.clause.doc != doc || b.clause.doc != doc {
		return 0, false, nil
	}
	va, err := a.positions(doc, id)
	if err != nil {
		return 0, false, err
	}
	vb, err := b.positions(doc, id)
	if err != nil || !besides(va, vb, p.gap) {
		return 0, false, err
	}
	return a.score(sctx) + b.score(sctx), true, nil
}

// positions are t's positions in record doc, which holds t.
func (t *pairTerm) positions(doc uint64, id []byte) ([]*bindex.TermFieldVector, error) {
	if t.vdoc != doc {
		binary.BigEndian.PutUint64(id, doc)
		tfd, err := t.vectors.Advance(id, &t.vtfd)
		if err != nil {
			return nil, err
		}
		if tfd == nil || len(tfd.ID) != 8 || binary.BigEndian.Uint64(tfd.ID) != doc {
			return nil, fmt.Errorf("term %q: its positions are not at record %d, which holds it", t.clause.term, doc)
		}
		t.vdoc = doc
	}
	return t.vtfd.Vectors, nil
}

// score is t's score in the record it is at, as the words query scores
// it (the scorer's query norm and boost).
func (t *pairTerm) score(sctx *bsearch.SearchContext) float64 {
	dm := t.clause.scorer.Score(sctx, &t.clause.tfd)
	s := dm.Score
	sctx.DocumentMatchPool.Put(dm)
	return s
}

// besides reports whether some position of b is gap places after one of
// a. A field's positions come in the order of its text (Lore's text
// fields hold one value each, never an array), so one pass of each
// finds it.
func besides(a, b []*bindex.TermFieldVector, gap uint64) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j].Pos < x.Pos+gap {
			j++
		}
		if j == len(b) {
			return false
		}
		if b[j].Pos == x.Pos+gap {
			return true
		}
	}
	return false
}
