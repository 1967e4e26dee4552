package index

import (
	"container/heap"
	"context"
	"errors"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// bestScored returns the size best-scoring matches of bq, highest
// first, each with its document id; among equal scores at the cut, any
// may be kept (topN sees such a tie and takes the id sort). It is what
// bleve's SearchInContext returns for a request of size hits sorted by
// score, by the same searchers and so the same scores, without the work
// that request does for each hit and Lore never asks of it (stored
// fields and highlights to load, a collector sized for facets and doc
// values): a tenth of a packet's search at 100,000 records, and the
// packet waits on that search.
func (ix *Index) bestScored(ctx context.Context, bq query.Query, size int) (bsearch.DocumentMatchCollection, error) {
	return ix.inSnapshot(func(r bindex.IndexReader) (bsearch.DocumentMatchCollection, error) {
		return ix.bestScoredIn(ctx, r, bq, size)
	})
}

// inSnapshot runs fn with a reader of the index's current snapshot, and
// closes the reader after it.
func (ix *Index) inSnapshot(fn func(r bindex.IndexReader) (bsearch.DocumentMatchCollection, error)) (_ bsearch.DocumentMatchCollection, err error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	return fn(r)
}

// bestScoredIn is bestScored in the snapshot r reads.
func (ix *Index) bestScoredIn(ctx context.Context, r bindex.IndexReader, bq query.Query, size int) (_ bsearch.DocumentMatchCollection, err error) {
	m := ix.bi.Mapping()
	model := bindex.DefaultScoringModel
	if im, ok := m.(*mapping.IndexMappingImpl); ok && im.ScoringModel == bindex.BM25Scoring {
		model = bindex.BM25Scoring
	}
	ctx = context.WithValue(ctx, bsearch.GetScoringModelCallbackKey,
		bsearch.GetScoringModelCallbackFn(func() string { return model }))
	if w, ok := wordsOf(bq); ok && pruneWords && model == bindex.BM25Scoring {
		best, _, err := prunedBest(ctx, r, w, size)
		if err == nil {
			return best, withIDs(best, r)
		}
		if !errors.Is(err, errNotPrunable) {
			return nil, err
		}
	}
	s, err := bq.Searcher(ctx, r, m, bsearch.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	best, err := collectBest(ctx, s, r, size)
	if err != nil {
		return nil, err
	}
	return best, withIDs(best, r)
}

// withIDs reads the document id of each match.
func withIDs(best bsearch.DocumentMatchCollection, r bindex.IndexReader) (err error) {
	for _, h := range best {
		if h.ID, err = r.ExternalID(h.IndexInternalID); err != nil {
			return err
		}
	}
	return nil
}

// checkDoneEvery is how many matches collectBest reads between looks at
// its context.
const checkDoneEvery = 1024

// collectBest reads every match of s and keeps the size best by score,
// returned highest first (their ids not read yet).
func collectBest(ctx context.Context, s bsearch.Searcher, r bindex.IndexReader, size int) (bsearch.DocumentMatchCollection, error) {
	sctx := &bsearch.SearchContext{
		DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize()+min(size, 1000)+1, 0), // as bleve sizes it
		IndexReader:       r,
	}
	kept := &lowestFirst{}
	for seen := 0; ; seen++ {
		if seen%checkDoneEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
		switch {
		case size <= 0:
			sctx.DocumentMatchPool.Put(dm)
		case kept.Len() < size:
			heap.Push(kept, dm)
		case dm.Score > (*kept)[0].Score:
			sctx.DocumentMatchPool.Put((*kept)[0])
			(*kept)[0] = dm
			heap.Fix(kept, 0)
		default:
			sctx.DocumentMatchPool.Put(dm)
		}
	}
	out := make(bsearch.DocumentMatchCollection, kept.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(kept).(*bsearch.DocumentMatch)
	}
	return out, nil
}

// lowestFirst is a heap of matches with the lowest score on top.
type lowestFirst bsearch.DocumentMatchCollection

func (h lowestFirst) Len() int           { return len(h) }
func (h lowestFirst) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h lowestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lowestFirst) Push(x any)        { *h = append(*h, x.(*bsearch.DocumentMatch)) }
func (h *lowestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
