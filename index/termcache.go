package index

import (
	"bytes"
	"hash/maphash"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
)

// Words, analysed once. The "en" analyzer's filters after its tokenizer
// (possessive, lower case, stop words, porter stemmer) each look at one
// token alone, so a word's term is a function of the word's bytes, and
// prose says the same few thousand words over and over: the filters took
// a twelfth of an ingest's CPU, the stemmer most of it, mostly on words
// it had stemmed a moment before. A termCache keeps each word's term, and
// a word seen before costs one hash and one comparison.
//
// The cache is direct-mapped and lock-free: a slot holds one entry, an
// immutable word and its term, and a word that hashes to a taken slot
// replaces what is there. Entries are only ever read whole and compared
// on the whole word, so a term from the cache is exactly the term the
// filters give, whatever the cache holds and whichever goroutine filled
// it: the analysis stays a function of the text.
type termCache struct {
	filters []analysis.TokenFilter
	seed    maphash.Seed
	slots   []atomic.Pointer[termEntry]
}

// termEntry is a word as the tokenizer gives it and what the filters make
// of it: a term, or nothing (a stop word). Both are kept in the entry
// itself, not behind pointers of their own, so that a look-up reads one
// place in memory after its slot: each read elsewhere is a cache miss,
// and they, not the comparison, are most of what a look-up costs.
type termEntry struct {
	stop             bool
	wordLen, termLen uint8
	text             [2 * maxCachedWord]byte // the word, then the term
}

func (e *termEntry) word() []byte { return e.text[:e.wordLen] }
func (e *termEntry) term() []byte { return e.text[e.wordLen : int(e.wordLen)+int(e.termLen)] }

const (
	termCacheSlots = 1 << 17 // a megabyte of slots; prose has fewer words
	// maxCachedWord bounds the words cached (longer ones seldom repeat,
	// and are filtered as they come) and the terms kept.
	maxCachedWord = 36
)

// newTermCache returns a cache over filters when each of them filters a
// token by itself alone (the "en" chain's do), else nil.
func newTermCache(filters []analysis.TokenFilter) *termCache {
	for _, f := range filters {
		switch f.(type) {
		case *en.PossessiveFilter, *lowercase.LowerCaseFilter, *stop.StopTokensFilter, *porter.PorterStemmer, *irregularFilter:
		default:
			return nil
		}
	}
	return &termCache{filters: filters, seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[termEntry], termCacheSlots)}
}

// withSlots gives c n slots (a power of two), emptied: tests use a few,
// so that words keep replacing each other.
func (c *termCache) withSlots(n int) *termCache {
	c.slots = make([]atomic.Pointer[termEntry], n)
	return c
}

// termOf returns the term the filters make of tok, or stop for a stop
// word. A term from the cache is the entry's own: read it, never write.
func (c *termCache) termOf(tok *analysis.Token) (term []byte, stop bool) {
	if tok.KeyWord || len(tok.Term) > maxCachedWord {
		return c.filter(tok)
	}
	slot := &c.slots[maphash.Bytes(c.seed, tok.Term)&uint64(len(c.slots)-1)]
	if e := slot.Load(); e != nil && bytes.Equal(e.word(), tok.Term) {
		return e.term(), e.stop
	}
	term, stop = c.filter(tok)
	if len(term) <= maxCachedWord { // lower case can lengthen a word ("Ⱥ" is 2 bytes, "ⱥ" 3)
		e := &termEntry{stop: stop, wordLen: uint8(len(tok.Term)), termLen: uint8(len(term))}
		copy(e.text[copy(e.text[:], tok.Term):], term)
		slot.Store(e)
	}
	return term, stop
}

// filter runs the filters on a copy of tok alone.
func (c *termCache) filter(tok *analysis.Token) (term []byte, stop bool) {
	t := *tok
	t.Term = bytes.Clone(tok.Term)
	ts := analysis.TokenStream{&t}
	for _, f := range c.filters {
		ts = f.Filter(ts)
	}
	if len(ts) == 0 {
		return nil, true
	}
	return ts[0].Term, false
}

// cachedAnalyzer is a tokenizer followed by filters through a termCache.
type cachedAnalyzer struct {
	tokenizer analysis.Tokenizer
	terms     *termCache
}

func (a *cachedAnalyzer) Analyze(text []byte) analysis.TokenStream {
	return a.analyzeUnder("", text)
}

// analyzeUnder analyses text and files each term under ns (nsterms.go),
// or leaves it bare for an empty ns. Every term is written into one
// buffer of the stream's own: none shares memory with the cache or the
// text.
func (a *cachedAnalyzer) analyzeUnder(ns string, text []byte) analysis.TokenStream {
	ts := a.tokenizer.Tokenize(text)
	terms := make([][]byte, 0, len(ts))
	kept, size := 0, 0
	for _, tok := range ts {
		term, stop := a.terms.termOf(tok)
		if stop {
			continue
		}
		ts[kept] = tok
		kept++
		terms = append(terms, term)
		size += len(term)
	}
	ts = ts[:kept]
	if ns != "" {
		size += kept * (len(ns) + 1)
	}
	buf := make([]byte, 0, size)
	for i, tok := range ts {
		start := len(buf)
		if ns != "" {
			buf = append(buf, ns...)
			buf = append(buf, nsTermSep)
		}
		buf = append(buf, terms[i]...)
		tok.Term = buf[start:len(buf):len(buf)]
	}
	return ts
}
