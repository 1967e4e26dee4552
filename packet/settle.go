package packet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"math"
	"reflect"
	"strings"

	"github.com/lorekeep/lore/budget"
)

// totalCounter counts a packet whose only changing part is its total
// line: the text before and after the line is counted once, and only the
// piece around the line again for each stated total. The parts are cut
// where both BPE encodings are certain to end a piece (see pieceCut), so
// the sum equals the count of the whole; for any other counter (an
// estimate, a caller's own) the whole is counted every time.
type totalCounter struct {
	c          budget.Counter
	head, tail string // around the total line, as rendered
	split      bool   // head and tail split off at certain piece cuts
	// when split: lead and rest are the cut-off parts of head and tail
	// inside the counted middle, fixed their counts.
	lead, rest string
	fixed      int
}

func newTotalCounter(c budget.Counter, draft string, i, j int) *totalCounter {
	head, tail := draft[:i], draft[j:]
	t := &totalCounter{c: c, head: head, tail: tail}
	if !exactBPE(c) {
		return t
	}
	a := i
	for a > 0 && !pieceCut(draft, a) {
		a = strings.LastIndexByte(draft[:a-1], '\n') + 1
	}
	b := j
	for b < len(draft) && !pieceCut(draft, b) {
		nl := strings.IndexByte(draft[b:], '\n')
		if nl < 0 {
			b = len(draft)
			break
		}
		b += nl + 1
	}
	t.split = true
	t.lead, t.rest = draft[a:i], draft[j:b]
	t.fixed = c.Count(draft[:a]) + c.Count(draft[b:])
	return t
}

// count returns the tokens of head + line + tail.
func (t *totalCounter) count(line string) int {
	if !t.split {
		return t.c.Count(t.head + line + t.tail)
	}
	return t.fixed + t.c.Count(t.lead+line+t.rest)
}

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

// settle renders p in format with a stated token total equal to the real
// count of the output, iterating since the total is part of the output.
// When no exact total exists (the count flips as the digits change) it
// states the smallest tried total that is not under the real count. It
// returns the output and the stated total.
//
// Only the total line depends on the stated total, and the hash covers
// everything else: the packet is rendered once and each try re-counts
// only the total line's neighbourhood (see totalCounter).
func (p *Packet) settle(format string) (string, int) { return p.settleAs(format, true) }

// settleAs is settle; without out it only counts, and returns "" for the
// output (a trial render, whose stand-ins are never emitted).
func (p *Packet) settleAs(format string, out bool) (string, int) {
	return p.draft(format).settle(out)
}

// draft is a packet rendered once in a format, stating the budget for
// its total and no hash, with the counter of its total line's
// neighbourhood: every total and hash it might state is counted from
// it without rendering the packet again (only the total line depends on
// them).
type draft struct {
	p      *Packet
	format string
	text   string
	i, j   int  // the total line is text[i:j]
	ok     bool // the line could be told apart (totalLineIn)
	tc     *totalCounter
}

// draft renders p in format once.
func (p *Packet) draft(format string) draft {
	d := draft{p: p, format: format, text: render(format, view{p: p, tokens: p.Budget})}
	if d.i, d.j, d.ok = totalLineIn(format, d.text); d.ok {
		d.tc = newTotalCounter(p.counter, d.text, d.i, d.j)
	}
	return d
}

// countStating is the count of the packet stating total and hash: the
// draft's count around its total line and of the line, or, where the
// line cannot be told apart, of the packet rendered so.
func (d draft) countStating(total int, hash string) int {
	v := view{p: d.p, tokens: total, hash: hash}
	if !d.ok {
		return d.p.counter.Count(render(d.format, v))
	}
	return d.tc.count(totalLine(d.format, v))
}

// settle is Packet.settleAs from the draft: each total tried is
// counted around the total line by the draft's counter.
func (d draft) settle(out bool) (string, int) {
	if !d.ok {
		return d.p.settleWhole(d.format) // the line cannot be told apart
	}
	p, format, tc := d.p, d.format, d.tc
	head, tail := d.text[:d.i], d.text[d.j:]
	hash := contentHash(head, tail)
	line := func(stated int) string { return totalLine(format, view{p: p, tokens: stated, hash: hash}) }
	whole := func(stated int) string {
		if !out {
			return ""
		}
		return head + line(stated) + tail
	}
	stated := p.Budget
	bestStated := -1
	for i := range 12 {
		n := tc.count(line(stated))
		if n == stated {
			return whole(stated), n
		}
		if n < stated && (bestStated < 0 || stated < bestStated) {
			bestStated = stated
		}
		if i < 4 {
			stated = n
		} else {
			stated = n + i - 3 // overshoot a little to find a stable upper bound
		}
	}
	if bestStated >= 0 {
		return whole(bestStated), bestStated
	}
	return whole(stated), max(stated, tc.count(line(stated)))
}

// totalLineIn finds the total line of draft: it starts at i and ends
// before j (after its line end). ok is false when the line's prefix is
// not there once, or the line does not end.
func totalLineIn(format, draft string) (i, j int, ok bool) {
	prefix := totalPrefix(format)
	i = strings.Index(draft, prefix)
	if i < 0 || strings.Contains(draft[i+1:], prefix) {
		return 0, 0, false
	}
	i++
	j = strings.IndexByte(draft[i:], '\n')
	if j < 0 {
		return 0, 0, false
	}
	return i, j + i + 1, true
}

// countBounds bounds the count settle gives a packet before it is made:
// lo <= count <= hi. exact makes it, once.
type countBounds struct {
	lo, hi int
	exact  func() int
}

// boundCount bounds p's count without hashing p: the count of a packet is
// the count of its text around the total line, which the hash does not
// change, and of the total line's neighbourhood (see totalCounter),
// which is one token at least and one a byte at most; settle states a
// total at most a few tokens over a count it met, or the budget. Where
// the line cannot be cut out (a counter that is not split, a line that
// cannot be told apart), the bounds are open and exact decides.
func (p *Packet) boundCount(format string) countBounds {
	d := p.draft(format)
	n, made := 0, false
	b := countBounds{lo: math.MinInt, hi: math.MaxInt, exact: func() int {
		if !made { // the draft and the count around its line serve again
			_, n = d.settle(false)
		}
		made = true
		return n
	}}
	if !d.ok || !d.tc.split {
		return b
	}
	tc := d.tc
	// The longest line: more digits than any total, the whole hash.
	longest := len(totalLine(format, view{p: p, tokens: min(1<<50, math.MaxInt), hash: "sha256:" + strings.Repeat("f", sha256.Size*2)}))
	b.lo = tc.fixed + 1
	b.hi = max(p.Budget, tc.fixed+len(tc.lead)+longest+len(tc.rest)+settleOver)
	return b
}

// settleOver is more than settle ever states over a count it met (it
// overshoots by up to 8 on its last tries).
const settleOver = 12

// contentHash is the packet hash of the text head+tail (the packet
// without its total line), hashed in place: a model render is hundreds
// of kilobytes, and joining the two halves and copying them to bytes
// cost more than the hash.
func contentHash(head, tail string) string {
	h := sha256.New()
	var buf [16 << 10]byte
	for _, s := range []string{head, tail} {
		for len(s) > 0 {
			n := copy(buf[:], s)
			h.Write(buf[:n])
			s = s[n:]
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// settleWhole is settle rendering and counting the whole packet on every
// try: for a packet whose total line cannot be found by its prefix alone.
func (p *Packet) settleWhole(format string) (string, int) {
	stated := p.Budget
	best, bestStated := "", -1
	for i := range 12 {
		out, _ := finalize(format, view{p: p, tokens: stated})
		n := p.counter.Count(out)
		if n == stated {
			return out, n
		}
		if n < stated && (bestStated < 0 || stated < bestStated) {
			best, bestStated = out, stated
		}
		if i < 4 {
			stated = n
		} else {
			stated = n + i - 3 // overshoot a little to find a stable upper bound
		}
	}
	if bestStated >= 0 {
		return best, bestStated
	}
	out, _ := finalize(format, view{p: p, tokens: stated})
	return out, max(stated, p.counter.Count(out))
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
