package index

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// stemCache stems as bleve's porter filter does, remembering the stem of
// each word it has seen: text repeats its words, and the stemmer, which
// decodes every term into runes and encodes its stem back, cost a third
// of an ingest's analysis.
//
// It holds at most stemCacheWords words, the first it meets (the common
// ones, in any real text); others are stemmed every time. Tokens of one
// word share its cached stem's bytes, which nothing after the stemmer in
// the analyzer writes to.
type stemCache struct {
	seed   maphash.Seed
	shards [stemShards]stemShard
}

const (
	stemShards     = 32
	stemCacheWords = 64 << 10
)

type stemShard struct {
	mu    sync.RWMutex
	stems map[string][]byte
}

func newStemCache() *stemCache {
	c := &stemCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].stems = map[string][]byte{}
	}
	return c
}

// Filter replaces the term of each token that is not a keyword with its
// stem, as porter.PorterStemmer.Filter does.
func (c *stemCache) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if !t.KeyWord {
			t.Term = c.stem(t.Term)
		}
	}
	return input
}

func (c *stemCache) stem(word []byte) []byte {
	s := &c.shards[maphash.Bytes(c.seed, word)%stemShards]
	s.mu.RLock()
	stem, ok := s.stems[string(word)]
	s.mu.RUnlock()
	if ok {
		return stem
	}
	stem = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(word)))
	stem = stem[:len(stem):len(stem)] // shared: an append must copy
	s.mu.Lock()
	if len(s.stems) < stemCacheWords/stemShards {
		s.stems[string(word)] = stem
	}
	s.mu.Unlock()
	return stem
}
