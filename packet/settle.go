package packet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/numfmt"
)

// Stating the total. A packet states its own token count, on one line
// (the total line), with a hash of everything else: settle renders a
// packet once and finds the total that, stated, is the count of the
// whole output (budget rule 6 counts the whole rendered packet), and
// the hash of the rest.

// placeholderHash stands in for the hash while fitting: a real digest, so
// it counts like one.
var placeholderHash = func() string {
	s := sha256.Sum256([]byte("lore packet"))
	return "sha256:" + hex.EncodeToString(s[:])
}()

// totalLine is the line that carries the token total and the hash. The
// hash covers everything but this line, so the total (which depends on
// the whole output) and the hash never depend on each other.
func totalLine(format string, v view) string {
	switch format {
	case "xml":
		return fmt.Sprintf("<total tokens=\"%d\" budget=\"%d\" hash=\"%s\"/>\n", v.tokens, v.p.Budget, shortHash(v.hash))
	case "json":
		return fmt.Sprintf("  \"total\": {\"tokens\": %d, \"budget\": %d, \"percent\": %d, \"hash\": %q},\n", v.tokens, v.p.Budget, percent(v.tokens, v.p.Budget), v.hash)
	default:
		return fmt.Sprintf("Tokens: %s of %s · %s\n", numfmt.Thousands(v.tokens), numfmt.Thousands(v.p.Budget), shortHash(v.hash))
	}
}

// shortHash is the hash as the markdown packet prints it: enough hex to
// tell two packets apart at a glance (Packet.Hash keeps it whole).
func shortHash(h string) string {
	if len(h) > len("sha256:")+shortHashHex {
		return h[:len("sha256:")+shortHashHex]
	}
	return h
}

// shortHashHex is how many hex digits of the hash the md and xml packets
// print: like a short git commit, enough to tell two packets apart.
const shortHashHex = 10

// totalPrefix starts the total line of format, at the start of a line.
func totalPrefix(format string) string {
	switch format {
	case "xml":
		return "\n<total "
	case "json":
		return "\n  \"total\": "
	default:
		return "\nTokens: "
	}
}

// withoutTotal cuts the total line out of a rendered packet.
func withoutTotal(format, s string) (string, bool) {
	i := strings.Index(s, totalPrefix(format))
	if i < 0 {
		return s, false
	}
	i++ // keep the newline before the line
	j := strings.IndexByte(s[i:], '\n')
	if j < 0 {
		return s, false
	}
	return s[:i] + s[i+j+1:], true
}

// finalize renders v with its real content hash: sha256 of the rendered
// bytes without the total line.
func finalize(format string, v view) (string, string) {
	v.hash = ""
	content, _ := withoutTotal(format, render(format, v))
	sum := sha256.Sum256([]byte(content))
	v.hash = "sha256:" + hex.EncodeToString(sum[:])
	return render(format, v), v.hash
}

// ContentHash recomputes the hash of a rendered packet: sha256 of its
// bytes without the line that states the token total and the hash. It
// equals the hash the packet carries.
func ContentHash(format string, rendered []byte) (string, error) {
	if format == "" {
		format = "md"
	}
	if !slices.Contains(validFormats, format) {
		return "", badvalue.Errorf(format, "%w %q: want md, xml or json", ErrFormat, format)
	}
	content, ok := withoutTotal(format, string(rendered))
	if !ok {
		return "", fmt.Errorf("%w: no total line in the %s packet", ErrInvalidRequest, format)
	}
	sum := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

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
