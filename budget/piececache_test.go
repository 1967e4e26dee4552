package budget

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// A count through the table of recent pieces is the count of the merge
// itself, for pieces met once and met again, of every length the table
// keeps and around it, including pieces that differ only past their
// eighth byte or in trailing zero bytes.
func TestRecentPiecesCountAsMerged(t *testing.T) {
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(t, enc)
		v := c.v
		r := rand.New(rand.NewPCG(5, 9))
		alphabet := []string{"a", "e", "q", "z", "Q", "'", "1", "\x00", "é", "日"}
		var pieces []string
		for range 3000 {
			var b strings.Builder
			for b.Len() < 3+r.IntN(pieceCacheMax+2) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			pieces = append(pieces, b.String())
		}
		pieces = append(pieces, "abcdefghXYZ", "abcdefghXYW", "abc\x00", "abc", "abc\x00\x00")
		var sc scratch
		for pass := range 2 {
			for _, p := range pieces {
				if got, want := v.countPiece(p, &sc), v.pieceTokens(p, nil, &sc); got != want {
					t.Fatalf("%s pass %d: piece %q counted %d through the table, %d merged", enc, pass, p, got, want)
				}
			}
		}
	}
}

// Goroutines counting different texts at once through one table get the
// counts each gets alone (run with -race).
func TestRecentPiecesConcurrent(t *testing.T) {
	c := mustCounter(t, "o200k_base")
	words := strings.Fields("otter holt river stone lantern zebra quietly understanding ninety-nine don't we'll Émile naïve")
	texts := make([]string, 8)
	want := make([]int, len(texts))
	for i := range texts {
		var b strings.Builder
		for k := range 400 {
			b.WriteString(words[(k*(i+3)+i)%len(words)])
			b.WriteByte(" ,.\n"[k%4])
		}
		texts[i] = b.String()
		want[i] = mustCounter(t, "o200k_base").countMerged(texts[i])
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(texts))
	for i := range texts {
		wg.Go(func() {
			for range 50 {
				if got := c.Count(texts[i]); got != want[i] {
					errs <- texts[i][:40]
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("text %q counted differently beside the others", e)
	}
}

// countMerged counts s as count does, with every piece merged (no table).
func (c *bpeCounter) countMerged(s string) int {
	var sc scratch
	n := 0
	for i := 0; i < len(s); {
		j := c.split(s, i)
		n += c.v.pieceTokens(s[i:j], nil, &sc)
		i = j
	}
	return n
}
