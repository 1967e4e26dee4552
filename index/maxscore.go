package index

import (
	"container/heap"
	"context"
	"encoding/binary"
	"math"
	"sort"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/scorer"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
)

// A words query (any of some terms, in title, summary and body, nothing
// else) is most of what a packet searches, and bleve scores every record
// that holds any of its words: at 1,000,000 records a median of 17,000
// to keep a few hundred. prunedBest keeps the same matches with the same
// scores, bit for bit, and skips the records that cannot be kept
// (MaxScore, Turtle and Flood 1995): each term's postings have a bound
// no record's score from them can reach, and once the kept scores are
// above what the rarest words' bounds add up to, a record holding only
// those words is never scored; their postings are only advanced to the
// records the other words bring.
//
// Scores are bleve's: each term is scored by bleve's own TermQueryScorer,
// with the query norm its searchers would compute, and summed in the
// order its searchers sum them (each disjunction's clauses sorted by
// their posting counts, times the share of its clauses that match). So
// the records kept, and their order, are what collectBest gives.

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
		if terms[i], ok = t.(*query.TermQuery); !ok {
			return nil, false
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
	if !ok || outer.Min > 1 || len(outer.Disjuncts) == 0 || len(outer.Disjuncts) > searcher.DisjunctionHeapTakeover {
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

// exhausted is the doc number of a clause whose postings are all read.
const exhausted = math.MaxUint64

// wordClause is one term of a words query in one field.
type wordClause struct {
	reader bindex.TermFieldReader
	scorer *scorer.TermQueryScorer
	boost  float64
	count  uint64  // its postings, as bleve's searchers sort by
	bound  float64 // above any score the term gives a record
	doc    uint64  // the record its postings are at; exhausted at the end
	tfd    bindex.TermFieldDoc
}

// next moves c to its next record.
func (c *wordClause) next() error {
	tfd, err := c.reader.Next(&c.tfd)
	return c.at(tfd, err)
}

// advance moves c to the first record at or after doc.
func (c *wordClause) advance(doc uint64, id []byte) error {
	binary.BigEndian.PutUint64(id, doc)
	tfd, err := c.reader.Advance(id, &c.tfd)
	return c.at(tfd, err)
}

func (c *wordClause) at(tfd *bindex.TermFieldDoc, err error) error {
	switch {
	case err != nil:
		return err
	case tfd == nil:
		c.doc = exhausted
	case len(tfd.ID) != 8:
		return errNotScorch
	default:
		c.doc = binary.BigEndian.Uint64(tfd.ID)
	}
	return nil
}

// errNotScorch: the index's internal ids are not scorch's 8-byte numbers,
// so prunedBest cannot order them; the search falls back to bleve.
var errNotScorch = errorString("internal document id is not 8 bytes")

type errorString string

func (e errorString) Error() string { return string(e) }

// wordsPlan is a words query opened on a reader: its clauses, grouped by
// field in the order bleve's searchers visit them, and the clauses by
// bound, lowest first, for the pruning.
type wordsPlan struct {
	fields  [][]*wordClause
	filter  [][]*wordClause // read for membership only: no scorer
	byBound []*wordClause
	prefix  []float64 // prefix[k]: the bounds of byBound[:k] added up
}

// openWords opens a words query's postings and scorers. Its statistics
// are those bleve's term searchers read from ctx (withScoringStats).
func openWords(ctx context.Context, r bindex.IndexReader, w wordsQuery) (_ *wordsPlan, err error) {
	stats, ok := ctx.Value(bsearch.BM25StatsKey).(*bsearch.BM25Stats)
	if !ok || stats.DocCount <= 0 {
		return nil, errNotScorch // no statistics: bleve's own path decides
	}
	docTotal := uint64(stats.DocCount)
	p := &wordsPlan{}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	for _, terms := range w.filter {
		var group []*wordClause
		for _, tq := range terms {
			rd, err := r.TermFieldReader(ctx, []byte(tq.Term), tq.Field(), false, false, false)
			if err != nil {
				return p, err
			}
			c := &wordClause{reader: rd}
			group = append(group, c)
			if err := c.next(); err != nil {
				return p, err
			}
		}
		p.filter = append(p.filter, group)
	}
	for _, terms := range w.fields {
		var group []*wordClause
		for _, tq := range terms {
			card, ok := stats.FieldCardinality[tq.Field()]
			if !ok {
				return p, errNotScorch
			}
			avg := math.Ceil(float64(card) / float64(docTotal)) // as bleve's bm25ScoreMetrics
			rd, err := r.TermFieldReader(ctx, []byte(tq.Term), tq.Field(), true, true, false)
			if err != nil {
				return p, err
			}
			c := &wordClause{reader: rd, boost: tq.Boost(), count: rd.Count()}
			c.scorer = scorer.NewTermQueryScorer([]byte(tq.Term), tq.Field(), tq.Boost(), docTotal, c.count, avg, bsearch.SearcherOptions{})
			group = append(group, c)
		}
		p.fields = append(p.fields, group)
	}
	p.order()
	p.setNorm(docTotal)
	return p, nil
}

// order sorts each field's clauses, and the fields, as bleve's
// disjunction searchers sort theirs (sort.Sort by posting count, whose
// order among equal counts is a function of the input order).
func (p *wordsPlan) order() {
	for _, g := range p.fields {
		sort.Sort(byCount(g))
	}
	sort.Sort(fieldsByCount(p.fields))
}

type byCount []*wordClause

func (s byCount) Len() int           { return len(s) }
func (s byCount) Less(i, j int) bool { return s[i].count < s[j].count }
func (s byCount) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

type fieldsByCount [][]*wordClause

func (s fieldsByCount) Len() int           { return len(s) }
func (s fieldsByCount) Less(i, j int) bool { return groupCount(s[i]) < groupCount(s[j]) }
func (s fieldsByCount) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

func groupCount(g []*wordClause) uint64 {
	var n uint64
	for _, c := range g {
		n += c.count
	}
	return n
}

// setNorm gives every scorer the query norm of the outermost searcher
// (the conjunction that is the must: its norm is set last, over the ones
// the disjunctions set), adding the weights in its order, and sets each
// clause's bound. A BM25 term score is idf * tf*k1 / (tf + k1*x) times
// the query weight, where x, the field's length against its pivot, is
// above 1-b: so under idf * k1 * weight. The bound is raised by a
// billionth, far above the rounding of the few operations a score takes.
func (p *wordsPlan) setNorm(docTotal uint64) {
	var fieldsWeight float64
	for _, g := range p.fields {
		var w float64
		for _, c := range g {
			w += c.scorer.Weight()
		}
		fieldsWeight += w
	}
	sumOfSquares := 0.0
	sumOfSquares += fieldsWeight
	norm := 1.0 / math.Sqrt(sumOfSquares)
	for _, g := range p.fields {
		for _, c := range g {
			c.scorer.SetQueryNorm(norm)
			idf := math.Log(1 + (float64(docTotal)-float64(c.count)+0.5)/(float64(c.count)+0.5))
			c.bound = idf * bsearch.BM25_k1 * (c.boost * idf * norm) * (1 + 1e-9)
			p.byBound = append(p.byBound, c)
		}
	}
	sort.SliceStable(p.byBound, func(i, j int) bool { return p.byBound[i].bound < p.byBound[j].bound })
	p.prefix = make([]float64, len(p.byBound)+1)
	for k, c := range p.byBound {
		p.prefix[k+1] = p.prefix[k] + c.bound
	}
}

func (p *wordsPlan) close() error {
	var first error
	for _, g := range append(p.fields, p.filter...) {
		for _, c := range g {
			if err := c.reader.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// score is the record doc's score as bleve's searchers give it, from the
// clauses at doc: each field's term scores added in its order, times the
// share of its terms that match; the fields' added the same way. (The
// conjunction around them adds the one score to 0.) Each product is
// converted explicitly, so that no platform fuses it into the addition.
func (p *wordsPlan) score(sctx *bsearch.SearchContext, doc uint64) float64 {
	var outer float64
	matched := 0
	for _, g := range p.fields {
		var sum float64
		m := 0
		for _, c := range g {
			if c.doc != doc {
				continue
			}
			dm := c.scorer.Score(sctx, &c.tfd)
			sum += dm.Score
			sctx.DocumentMatchPool.Put(dm)
			m++
		}
		if m > 0 {
			outer += float64(sum * (float64(m) / float64(len(g))))
			matched++
		}
	}
	return float64(outer * (float64(matched) / float64(len(p.fields))))
}

// pruneWords is false only in tests that compare prunedBest with bleve's
// own scoring of every match.
var pruneWords = true

// prunedBest is collectBest for a words query (wordsOf): the size best
// matches, highest first, their ids not read yet, and how many records
// it scored. Records reach the kept heap in the order bleve's searchers
// give them, and a record is skipped only when its score cannot pass the
// lowest kept (which it must pass to be kept) or it fails the filter, so
// the heap goes through the same states as collectBest's, ties included.
func prunedBest(ctx context.Context, r bindex.IndexReader, w wordsQuery, size int) (_ bsearch.DocumentMatchCollection, scored int, err error) {
	if size <= 0 {
		return nil, 0, nil
	}
	p, err := openWords(ctx, r, w)
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if cerr := p.close(); err == nil {
			err = cerr
		}
	}()
	k := &prunedCollector{p: p, size: size, id: make([]byte, 8)}
	k.sctx = &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(min(size, 1000)+len(p.byBound)+1, 0), IndexReader: r}
	for _, c := range p.byBound {
		if err := c.next(); err != nil {
			return nil, 0, err
		}
	}
	for seen := 0; ; seen++ {
		if seen%checkDoneEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		doc := uint64(exhausted)
		for _, c := range p.byBound[k.essential:] {
			doc = min(doc, c.doc)
		}
		if doc == exhausted {
			break
		}
		if err := k.consider(doc); err != nil {
			return nil, 0, err
		}
		if err := k.pass(doc); err != nil {
			return nil, 0, err
		}
	}
	out := make(bsearch.DocumentMatchCollection, k.kept.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&k.kept).(*bsearch.DocumentMatch)
	}
	return out, k.scored, nil
}

// prunedCollector is prunedBest's state: the kept heap, and the clauses
// that bring records (p.byBound[essential:]; the rest only add to them).
type prunedCollector struct {
	p         *wordsPlan
	sctx      *bsearch.SearchContext
	kept      lowestFirst
	size      int
	essential int
	id        []byte // scratch for Advance
	scored    int
}

// consider scores record doc and keeps it where collectBest would, unless
// it cannot be kept.
func (k *prunedCollector) consider(doc uint64) error {
	full := k.kept.Len() == k.size
	ok, err := true, error(nil)
	if full {
		ok, err = k.p.reachable(doc, k.essential, k.kept[0].Score, k.id)
	}
	if ok && err == nil {
		ok, err = k.p.passes(doc, k.id)
	}
	if !ok || err != nil {
		return err
	}
	k.scored++
	score := k.p.score(k.sctx, doc)
	switch {
	case !full:
		dm := k.sctx.DocumentMatchPool.Get()
		dm.Score = score
		dm.IndexInternalID = binary.BigEndian.AppendUint64(dm.IndexInternalID[:0], doc)
		heap.Push(&k.kept, dm)
	case score > k.kept[0].Score:
		low := k.kept[0]
		low.Score = score
		low.IndexInternalID = binary.BigEndian.AppendUint64(low.IndexInternalID[:0], doc)
		heap.Fix(&k.kept, 0)
	}
	return nil
}

// pass moves the clauses that brought record doc past it, and once the
// heap is full, sets apart the clauses whose bounds, added up, no longer
// reach its lowest score.
func (k *prunedCollector) pass(doc uint64) error {
	for _, c := range k.p.byBound[k.essential:] {
		if c.doc == doc {
			if err := c.next(); err != nil {
				return err
			}
		}
	}
	if k.kept.Len() == k.size {
		for k.essential < len(k.p.byBound) && k.p.prefix[k.essential+1] <= k.kept[0].Score {
			k.essential++
		}
	}
	return nil
}

// passes tells whether record doc passes the filter: in every group, a
// term it holds. Records are asked about in rising order, so each term's
// postings only move forward.
func (p *wordsPlan) passes(doc uint64, id []byte) (bool, error) {
	for _, g := range p.filter {
		in := false
		for _, c := range g {
			if c.doc < doc {
				if err := c.advance(doc, id); err != nil {
					return false, err
				}
			}
			if c.doc == doc {
				in = true
				break
			}
		}
		if !in {
			return false, nil
		}
	}
	return true, nil
}

// reachable tells whether record doc, brought by an essential clause,
// can score above low: the bounds of the essential clauses at doc and of
// every other clause, less those of the others that, advanced to doc,
// are not there (the likeliest first). When it is true, every clause is
// at doc or past it, as score needs.
func (p *wordsPlan) reachable(doc uint64, essential int, low float64, id []byte) (bool, error) {
	bound := p.prefix[essential]
	for _, c := range p.byBound[essential:] {
		if c.doc == doc {
			bound += c.bound
		}
	}
	if bound <= low {
		return false, nil
	}
	for k := essential - 1; k >= 0; k-- {
		c := p.byBound[k]
		if c.doc < doc {
			if err := c.advance(doc, id); err != nil {
				return false, err
			}
		}
		if c.doc != doc {
			if bound -= c.bound; bound <= low {
				return false, nil
			}
		}
	}
	return true, nil
}
