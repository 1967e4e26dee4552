package budget

import (
	"runtime"
	"sync"
)

// encoding is one BPE encoding: its embedded rank file, its splitter, and
// the vocabulary, loaded once per process on first use.
type encoding struct {
	name  string
	file  *string
	split func(s string, i int) int // end of the piece that starts at i

	once  sync.Once
	vocab *vocab
	err   error
}

var encodings = []*encoding{
	{name: "cl100k_base", file: &cl100kRanks, split: nextCL100K},
	{name: "o200k_base", file: &o200kRanks, split: nextO200K},
}

func (e *encoding) load() (*vocab, error) {
	e.once.Do(func() { e.vocab, e.err = loadVocab(*e.file) })
	return e.vocab, e.err
}

// bpeCounter counts and encodes exactly as OpenAI's tiktoken does for
// ordinary text (no special tokens). It is safe for concurrent use.
type bpeCounter struct {
	name  string
	v     *vocab
	split func(s string, i int) int
}

var _ Tokenizer = (*bpeCounter)(nil)

// Name returns the encoding's name.
func (c *bpeCounter) Name() string { return c.name }

// Exact reports that the counts are the tokenizer's own.
func (c *bpeCounter) Exact() bool { return true }

// parallelMin is the smallest text Count splits across goroutines (a few
// milliseconds of work); below it the goroutines cost more than they save.
const parallelMin = 256 << 10

// Count returns the number of tokens of text. Invalid UTF-8 is first
// replaced per maximal ill-formed subsequence; text that looks like a
// special token counts as the characters it is made of. Time is linear in
// the length of text (up to a log factor for very long pieces); texts of
// 256 KiB or more are counted on all cores where they can be split
// between pieces. Memory is constant but for the longest piece (a run of
// letters, spaces or punctuation): about 20 bytes per byte of it.
func (c *bpeCounter) Count(text string) int {
	text = sanitize(text)
	if len(text) >= parallelMin && runtime.GOMAXPROCS(0) > 1 {
		return c.countParallel(text, runtime.GOMAXPROCS(0))
	}
	return c.count(text)
}

// count counts valid UTF-8 on one goroutine.
func (c *bpeCounter) count(s string) int {
	v, split := c.v, c.split
	var sc scratch
	n := 0
	for i := 0; i < len(s); {
		j := split(s, i)
		n += v.countPiece(s[i:j], &sc)
		i = j
	}
	return n
}

// pieceTokens returns the number of tokens of one piece and calls emit (if
// not nil) with each of them.
func (v *vocab) pieceTokens(piece string, emit func(uint32), sc *scratch) int {
	if r := v.rank(piece); r != noRank {
		if emit != nil {
			emit(r)
		}
		return 1
	}
	if len(piece) <= smallPiece {
		return v.mergeSmall(piece, emit)
	}
	return v.mergeHeap(piece, emit, sc)
}

// countParallel counts s in chunks cut where a piece boundary is certain,
// on up to procs goroutines; the sum equals count(s).
func (c *bpeCounter) countParallel(s string, procs int) int {
	cuts := chunkCuts(s, procs*4, parallelMin/4)
	if len(cuts) <= 2 {
		return c.count(s)
	}
	counts := make([]int, len(cuts)-1)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(procs, len(counts)) {
		wg.Go(func() {
			for k := range work {
				counts[k] = c.count(s[cuts[k]:cuts[k+1]])
			}
		})
	}
	for k := range counts {
		work <- k
	}
	close(work)
	wg.Wait()
	total := 0
	for _, n := range counts {
		total += n
	}
	return total
}

// chunkCuts returns 0, the cut positions and len(s): about parts chunks of
// at least minChunk bytes. A cut is made only where both encodings'
// patterns are certain to end a piece whatever precedes it:
//   - after an ASCII letter and before a space: a letter piece (with its
//     optional contraction) cannot continue into a space, and no other
//     piece contains letters;
//   - after '\n' and before an ASCII letter or digit: every piece that can
//     hold a line break ends at the first non-space character (o200k also
//     continues through '/', which is neither).
//
// Pieces are found left to right and never look behind, so the pieces after
// a certain boundary are the same whether or not the text is cut there.
func chunkCuts(s string, parts, minChunk int) []int {
	size := max(len(s)/parts, minChunk)
	cuts := []int{0}
	for target := size; target < len(s)-minChunk/2; {
		p := safeCut(s, target, min(len(s)-1, target+size))
		if p < 0 {
			target += size
			continue
		}
		cuts = append(cuts, p)
		target = p + size
	}
	return append(cuts, len(s))
}

// safeCut returns the first position p in [from, limit) where a piece
// boundary is certain (see chunkCuts), or -1.
func safeCut(s string, from, limit int) int {
	for p := max(from, 1); p < limit; p++ {
		a, b := s[p-1], s[p]
		if b == ' ' && asciiLetter(a) {
			return p
		}
		if a == '\n' && (asciiLetter(b) || (b >= '0' && b <= '9')) {
			return p
		}
	}
	return -1
}

func asciiLetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

// Encode returns the token ids of text as ordinary text (no special
// tokens), after the same UTF-8 repair as Count.
func (c *bpeCounter) Encode(text string) []int {
	s := sanitize(text)
	out := make([]int, 0, len(s)/4+1)
	emit := func(r uint32) { out = append(out, int(r)) }
	var sc scratch
	for i := 0; i < len(s); {
		j := c.split(s, i)
		c.v.pieceTokens(s[i:j], emit, &sc)
		i = j
	}
	return out
}

// Decode returns the bytes of tokens as a string. Ids that are not tokens
// of this encoding (special tokens, negative or too large ids) are skipped.
// A prefix of an encoding may end inside a multi-byte character: the
// result is then not valid UTF-8 and the caller trims the partial rune.
func (c *bpeCounter) Decode(tokens []int) string {
	n := 0
	for _, t := range tokens {
		tok, _ := c.v.token(t)
		n += len(tok)
	}
	b := make([]byte, 0, n)
	for _, t := range tokens {
		tok, _ := c.v.token(t)
		b = append(b, tok...)
	}
	return string(b)
}
