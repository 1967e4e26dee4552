package lore

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/vector"
)

// FusionConfig is the `fusion` section of lore.json: how a search with a
// query vector fuses the ranking by words with the ranking by vectors.
//
// The rule is reciprocal rank fusion: a record's fused score is
//
//	words/(k + its rank by words) + vectors/(k + its rank by vectors)
//
// with ranks from 1, and no term for a ranking that did not find it.
// Ranks, not scores, are fused because BM25 and cosine are on scales
// that cannot be compared (BM25 grows with the query's length), and k
// damps the head of each list so that one ranking alone cannot decide.
type FusionConfig struct {
	// Words and Vectors weigh the two rankings (default 1 each); 0 turns
	// one off.
	Words   *float64 `json:"words,omitempty"`
	Vectors *float64 `json:"vectors,omitempty"`
	// K is the rank constant (default 60, from the paper that named the
	// rule: Cormack, Clarke and Büttcher, SIGIR 2009).
	K float64 `json:"k,omitempty"`
}

// Default fusion: equal weights, k = 60.
const (
	defaultFusionK = 60
	// fuseDepth and vectorDepth are how deep the two rankings are read
	// (both deeper where a search asks for more hits than fuseDepth).
	// Both are fixed, so every hit list a packet asks for up to fuseDepth
	// is a prefix of one fused order: a bigger budget never reorders the
	// hits a smaller one had. A packet's pool reaches 1,280 hits at
	// budgets past about 19k and passes it only past about 77k. The
	// vectors are read less deep: at 100,000 vectors the scan for 1,280
	// cost a packet 2.6 ms more than for 320, and a record the vectors
	// rank past 320 adds less than 1/380 to a fused score
	// (BENCHMARKS.md, vectors).
	fuseDepth   = 1280
	vectorDepth = 320
)

func (f FusionConfig) weights() (words, vectors, k float64) {
	words, vectors, k = 1, 1, defaultFusionK
	if f.Words != nil {
		words = *f.Words
	}
	if f.Vectors != nil {
		vectors = *f.Vectors
	}
	if f.K != 0 {
		k = f.K
	}
	return words, vectors, k
}

func (f FusionConfig) validate() error {
	w, v, k := f.weights()
	switch {
	case w < 0 || v < 0:
		return fmt.Errorf("fusion: weights words %v and vectors %v must be 0 or more", w, v)
	case w == 0 && v == 0:
		return fmt.Errorf("fusion: words and vectors are both 0; at least one ranking must count")
	case k <= 0:
		return fmt.Errorf("fusion: k %v must be positive (default %d)", f.K, defaultFusionK)
	}
	return nil
}

// vectorCache keeps the vectors of every store this process searches
// by vector, across its opens: a server opens its store per request,
// and reading 100,000 vectors costs more than the search they serve.
var vectorCache = vector.NewCache(0)

// vectorRef names this store for the vector cache: its bbolt file (as it
// is now: a file replaced at the path is another store) or its URL.
func (l *Lore) vectorRef() (vector.StoreRef, error) {
	ref := vector.StoreRef{Src: l.st, Key: l.name}
	if !l.shared {
		path, err := filepath.Abs(filepath.Join(l.dir, BoltFile))
		if err != nil {
			return ref, err
		}
		if ref.File, err = os.Stat(path); err != nil {
			return ref, err
		}
		ref.Key = path
	}
	return ref, nil
}

// fused is the Searcher of a search or packet: by words alone where
// the query has no vector (exactly as the index ranks), else by words
// and vectors fused (FusionConfig). One fused order is kept per query,
// so a packet that looks deeper reads it again, not the store.
type fused struct {
	words packet.Searcher // nil: no index (a query with a vector alone still searches)
	l     *Lore
	cfg   FusionConfig

	mu   sync.Mutex
	memo map[string][]index.Hit // by the query at the depth it was read
}

func (l *Lore) fusedSearcher(words packet.Searcher) *fused {
	return &fused{words: words, l: l, cfg: l.cfg.Fusion, memo: map[string][]index.Hit{}}
}

func (f *fused) Search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	if len(q.Vector) == 0 {
		if f.words == nil {
			return nil, nil
		}
		return f.words.Search(ctx, q)
	}
	limit := q.Limit
	if limit == 0 {
		limit = index.DefaultLimit
	}
	if limit < 0 {
		return nil, fmt.Errorf("search: limit %d is negative", limit)
	}
	q.Limit = max(limit, fuseDepth)
	// A fused searcher serves one request, so one query vector: the key
	// leaves it out rather than format its hundreds of numbers per call.
	kq := q
	kq.Vector = nil
	key := fmt.Sprintf("%#v", kq)
	f.mu.Lock()
	hits, ok := f.memo[key]
	f.mu.Unlock()
	if !ok {
		var err error
		if hits, err = f.search(ctx, q); err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.memo[key] = hits
		f.mu.Unlock()
	}
	return slices.Clone(hits[:min(limit, len(hits))]), nil
}

// search ranks by both, depth deep, at once: the vector scan on a
// goroutine of its own beside the word search.
func (f *fused) search(ctx context.Context, q index.Query) ([]index.Hit, error) {
	words, vectors, k := f.cfg.weights()
	var vhits []vector.Hit
	var verr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if vectors > 0 {
			var ref vector.StoreRef
			if ref, verr = f.l.vectorRef(); verr == nil {
				depth := vectorDepth + max(q.Limit-fuseDepth, 0) // deeper only past fuseDepth
				vhits, verr = vectorCache.Search(ref, q.NS, q.Vector, depth, vector.Filter{Kinds: q.Kinds, Tags: q.Tags})
			}
		}
	}()
	var whits []index.Hit
	var werr error
	if q.Text != "" && words > 0 && f.words != nil { // empty text would match every record
		wq := q
		wq.Vector = nil
		whits, werr = f.words.Search(ctx, wq)
	}
	<-done
	if werr != nil {
		return nil, werr
	}
	if verr != nil {
		return nil, badvalue.Errorf(q.NS, "search ns %q by vector: %w", q.NS, verr)
	}
	return fuse(q.NS, whits, vhits, words, vectors, k), nil
}

// fuse merges two rankings by reciprocal rank fusion, best first, equal
// scores by id. The fused scores are scaled so that the best equals the
// best word score (1 where words found nothing): a packet weighs a hit's
// neighbours by shares of its score, on the scale the words give.
func fuse(ns string, whits []index.Hit, vhits []vector.Hit, words, vectors, k float64) []index.Hit {
	score := map[string]float64{}
	for i, h := range whits {
		score[h.ID] += words / (k + float64(i+1))
	}
	for i, h := range vhits {
		score[h.ID] += vectors / (k + float64(i+1))
	}
	out := make([]index.Hit, 0, len(score))
	for id, s := range score {
		out = append(out, index.Hit{NS: ns, ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b index.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
	})
	if len(out) == 0 || out[0].Score == 0 {
		return out
	}
	scale := 1 / out[0].Score
	if len(whits) > 0 {
		scale *= whits[0].Score
	}
	for i := range out {
		out[i].Score *= scale
	}
	return out
}
