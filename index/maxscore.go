package index

import (
	"container/heap"
	"context"
	"encoding/binary"

	bsearch "github.com/blevesearch/bleve/v2/search"
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
