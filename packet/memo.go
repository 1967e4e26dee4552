package packet

import (
	"context"
	"iter"
	"reflect"
	"strings"

	"github.com/lorekeep/lore/budget"
)

// Counting renders. A build renders and counts its packet many times (the
// fitting engine's re-counts, the settles, the put-back's tries), and
// the renders share most of their lines: each is counted as the sum of
// its chunks, cut where a piece of the BPE encodings is certain to end
// (pieceCut), so that a chunk met before is not counted again.

// pieceCut reports whether a piece boundary of the o200k and cl100k
// patterns is certain at s[i], whatever precedes or follows the text
// around it, given that the text at i starts a line whose first character
// after its leading spaces is printable ASCII other than '/' (the total
// line and the line after it are fixed text, so the check also holds once
// the line changes). The argument: every piece that can hold a line break
// is a run of white space ending in a line break, which cannot run on
// through spaces into a non-space, or a punctuation piece that runs on
// only through \r, \n (and '/' for o200k); letter and number pieces never
// start with a line break. Pieces are found left to right without looking
// behind, so the pieces after the cut are the same on their own.
// TestPieceCutAddsUp checks it on adversarial text.
func pieceCut(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	if s[i-1] != '\n' {
		return false
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			continue
		case c > ' ' && c < 0x7f && c != '/':
			return true
		default:
			return false
		}
	}
	return false
}

// exactBPE reports whether c is one of the budget package's own BPE
// counters (not a caller's counter that only shares the name).
func exactBPE(c budget.Counter) bool {
	if m, ok := c.(*memoCounter); ok {
		return m.split
	}
	name := c.Name()
	if name != "o200k_base" && name != "cl100k_base" {
		return false
	}
	own, err := budget.NewCounter(name) // loaded once per process
	return err == nil && reflect.TypeOf(own) == reflect.TypeOf(c)
}

// memoCounter counts text as the sum of its chunks between certain piece
// cuts (see pieceCut), each distinct chunk counted once: the renders of
// one build share most of their lines, so the settles, re-counts and
// put-back tries of a build count mostly what changed. It wraps only the
// budget package's BPE counters (for others it counts whole) and is for
// one goroutine: a Packet drops it before Build returns.
type memoCounter struct {
	budget.Counter
	split  bool
	shared fragmentCounter // the process's cache, for short chunks
	counts map[string]int
	// stop is nil, or the context of the model counted ahead that owns
	// the memo (ahead.go): once it is done (the build has returned, or
	// its caller gave up) Count counts no more chunks and returns what
	// it has, a count the model then throws away.
	stop context.Context
}

func newMemoCounter(c budget.Counter) *memoCounter {
	m := &memoCounter{Counter: c, split: exactBPE(c), counts: map[string]int{}}
	if m.split {
		m.shared = sharedFragmentCounter(c)
	}
	return m
}

// Count returns the tokens of s, as the wrapped counter would.
func (m *memoCounter) Count(s string) int {
	if !m.split {
		if m.stopped() {
			return 0
		}
		return m.Counter.Count(s)
	}
	total := 0
	for chunk := range chunks(s) {
		if m.stopped() {
			return total
		}
		n, ok := standLineCount(chunk)
		if !ok {
			n, ok = m.counts[chunk]
		}
		if !ok {
			// A chunk (a heading, a note, a line of the frame, a
			// paragraph of a body) recurs across packets, or was counted
			// ahead (bodiesahead.go): the process's cache counts it.
			n = m.shared.countChunk(chunk)
			m.counts[strings.Clone(chunk)] = n
		}
		total += n
	}
	return total
}

// stopped reports whether the memo's model is no longer wanted.
func (m *memoCounter) stopped() bool { return m.stop != nil && m.stop.Err() != nil }

// chunks yields s cut where pieceCut holds (nextCut), in order: pieces
// of the BPE encodings never cross those cuts, so the counts of the
// chunks add up to the count of s.
func chunks(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			k := nextCut(s)
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

// nextCut returns the first position after 0 where pieceCut holds in s,
// or len(s).
func nextCut(s string) int {
	for i := 0; ; {
		nl := strings.IndexByte(s[i:], '\n')
		if nl < 0 {
			return len(s)
		}
		i += nl + 1
		if pieceCut(s, i) {
			return i
		}
	}
}

// memoTokenizer is a memoCounter over a Tokenizer, for budget.Fit: it
// counts through the memo and cuts with the tokenizer.
type memoTokenizer struct {
	*memoCounter
	tok budget.Tokenizer
}

// Encode returns the tokenizer's token ids of text.
func (m memoTokenizer) Encode(text string) []int { return m.tok.Encode(text) }

// Decode returns the tokenizer's text of tokens.
func (m memoTokenizer) Decode(tokens []int) string { return m.tok.Decode(tokens) }

// fitCounter is the counter to give budget.Fit: the memo, still a
// Tokenizer when the request's counter is one.
func (m *memoCounter) fitCounter() budget.Counter {
	if tok, ok := m.Counter.(budget.Tokenizer); ok {
		return memoTokenizer{memoCounter: m, tok: tok}
	}
	return m
}
