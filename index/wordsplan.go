package index

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"sort"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/scorer"
	bindex "github.com/blevesearch/bleve_index_api"
)

// exhausted is the doc number of a clause whose postings are all read.
const exhausted = math.MaxUint64

// wordClause is one term of a words query in one field.
type wordClause struct {
	term   string // as the index files it (under its namespace)
	name   string // its field's name
	reader bindex.TermFieldReader
	scorer *scorer.TermQueryScorer
	boost  float64
	count  uint64  // its postings, as bleve's searchers sort by
	bound  float64 // above any score the term gives a record
	field  int     // its field's place in wordsPlan.fields
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
		return errNotPrunable
	default:
		c.doc = binary.BigEndian.Uint64(tfd.ID)
	}
	return nil
}

// errNotPrunable: the search cannot be pruned (no BM25 statistics, or
// internal ids that are not scorch's 8-byte numbers, which prunedBest
// orders as numbers), so bleve's own searchers run it.
var errNotPrunable = errors.New("search cannot be pruned")

// wordsPlan is a words query opened on a reader: its clauses, grouped by
// field in the order bleve's searchers visit them, and the clauses by
// bound, lowest first, for the pruning.
type wordsPlan struct {
	fields  [][]*wordClause
	filter  [][]*wordClause // read for membership only: no scorer
	byBound []*wordClause
	prefix  []float64 // prefix[k]: the bound of a record holding byBound[:k] at most
}

// boundSum adds up clause bounds as a record's score adds up term
// scores: by field, each field's sum times the share of its terms held,
// and the fields' sum times the share of fields held. Every factor grows
// with the clauses held, so the bound of a set of clauses is above the
// score of any record holding only some of them. The shares matter: a
// record holding one term of three in one field of three scores a ninth
// of that term's score.
type boundSum struct {
	sums   [maxFields]float64
	held   [maxFields]int
	terms  [maxFields]int // each field's clause count
	fields int
}

// maxFields is the most fields a words query has (wordsFields takes no
// more disjuncts than bleve's heap takeover).
const maxFields = 10

func (p *wordsPlan) newBoundSum() boundSum {
	b := boundSum{fields: len(p.fields)}
	for f, g := range p.fields {
		b.terms[f] = len(g)
	}
	return b
}

func (b *boundSum) add(c *wordClause) {
	b.sums[c.field] += c.bound
	b.held[c.field]++
}

func (b *boundSum) remove(c *wordClause) {
	b.sums[c.field] -= c.bound
	b.held[c.field]--
}

func (b *boundSum) value() float64 {
	var total float64
	held := 0
	for f := range b.fields {
		if b.held[f] > 0 {
			total += b.sums[f] * (float64(b.held[f]) / float64(b.terms[f]))
			held++
		}
	}
	return total * (float64(held) / float64(b.fields))
}

// openWords opens a words query's postings and scorers. Its statistics
// are those bleve's term searchers read from ctx (withScoringStats).
func openWords(ctx context.Context, r bindex.IndexReader, w wordsQuery) (_ *wordsPlan, err error) {
	stats, ok := ctx.Value(bsearch.BM25StatsKey).(*bsearch.BM25Stats)
	if !ok || stats.DocCount <= 0 {
		return nil, errNotPrunable // no statistics: bleve's own path decides
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
				return p, errNotPrunable
			}
			avg := math.Ceil(float64(card) / float64(docTotal)) // as bleve's bm25ScoreMetrics
			rd, err := r.TermFieldReader(ctx, []byte(tq.Term), tq.Field(), true, true, false)
			if err != nil {
				return p, err
			}
			c := &wordClause{term: tq.Term, name: tq.Field(), reader: rd, boost: tq.Boost(), count: rd.Count()}
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
	for f, g := range p.fields {
		for _, c := range g {
			c.field = f
			c.scorer.SetQueryNorm(norm)
			idf := math.Log(1 + (float64(docTotal)-float64(c.count)+0.5)/(float64(c.count)+0.5))
			c.bound = idf * bsearch.BM25_k1 * (c.boost * idf * norm) * (1 + 1e-9)
			p.byBound = append(p.byBound, c)
		}
	}
	sort.SliceStable(p.byBound, func(i, j int) bool { return p.byBound[i].bound < p.byBound[j].bound })
	p.prefix = make([]float64, len(p.byBound)+1)
	sum := p.newBoundSum()
	for k, c := range p.byBound {
		sum.add(c)
		p.prefix[k+1] = sum.value()
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
// can score above low: the bound of the essential clauses at doc and of
// every other clause, less those of the others that, advanced to doc,
// are not there (the likeliest first). When it is true, every clause is
// at doc or past it, as score needs.
func (p *wordsPlan) reachable(doc uint64, essential int, low float64, id []byte) (bool, error) {
	sum := p.newBoundSum()
	for k, c := range p.byBound {
		if k < essential || c.doc == doc {
			sum.add(c)
		}
	}
	if sum.value() <= low {
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
			if sum.remove(c); sum.value() <= low {
				return false, nil
			}
		}
	}
	return true, nil
}
