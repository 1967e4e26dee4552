package packet

import (
	"strings"
	"sync/atomic"
)

// Stand-ins: trial renders put text of a body's cached token count where
// the body would be (see builder.trial), so that a render can be counted
// whole without reading a body that may stay out. Both BPE encodings
// count "x x ... x" (n words) as n tokens, and the line end after it as
// one more (TestStandInCounts), so for them a stand-in is a prefix of one
// text shared by the process, and the memo knows a stand-in line's count
// by its shape: arrange's model, hundreds of stood-in bodies, then makes
// no stand-in and counts none.

// maxSharedStand is the longest stand-in, in tokens, cut from the shared
// text (256 KiB of it); a longer one is made for its build alone.
const maxSharedStand = 128 << 10

// sharedStands holds "x x ... x", as long as the longest stand-in cut
// from it so far.
var sharedStands atomic.Pointer[string]

// standText is "x x ... x" with n words (n >= 1).
func standText(n int) string {
	size := 2*n - 1
	if n > maxSharedStand {
		return "x" + strings.Repeat(" x", n-1)
	}
	for {
		old := sharedStands.Load()
		if old != nil && len(*old) >= size {
			return (*old)[:size]
		}
		words := max(n, 1024)
		if old != nil {
			words = min(max(n, len(*old)+1), maxSharedStand) // double it
		}
		s := "x" + strings.Repeat(" x", words-1)
		if sharedStands.CompareAndSwap(old, &s) {
			return s[:size]
		}
	}
}

// standLineCount returns the tokens of chunk, for both BPE encodings,
// when chunk is a stand-in line ("x x ... x\n", n words: n + 1 tokens).
func standLineCount(chunk string) (int, bool) {
	k := len(chunk) - 1
	if k < 1 || k%2 == 0 || chunk[0] != 'x' || chunk[k] != '\n' || k > 2*maxSharedStand {
		return 0, false
	}
	n := (k + 1) / 2
	if chunk[:k] != standText(n) {
		return 0, false
	}
	return n + 1, true
}

// stand is text that counts n tokens (or within a token or two of it,
// for a counter it cannot match exactly): "x x x ..." is one token a word
// for the BPE encodings, and the loop corrects for any other counter.
func (b *builder) stand(n int) string {
	if n <= 0 {
		return ""
	}
	if b.memo != nil && b.memo.split {
		return standText(n)
	}
	if s, ok := b.stands[n]; ok {
		return s
	}
	if b.stands == nil {
		b.stands = map[int]string{}
	}
	words := n
	s := ""
	for range 4 {
		if words <= 0 {
			s = ""
			break
		}
		s = standText(words)
		got := b.req.Counter.Count(s)
		if got == n {
			break
		}
		words += n - got
	}
	b.stands[n] = s
	return s
}
