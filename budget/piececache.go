package budget

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// The token counts of recently counted pieces. Text is mostly words
// that recur (Zipf's law), and counting a piece takes at least one probe
// of the vocabulary's tables, megabytes that the processor's caches do
// not hold, and for a word of several tokens a merge that probes them a
// dozen times more. A small table of the counts of the pieces met last,
// kept whole in those caches, answers most of them at once.
//
// A slot keeps its piece's bytes themselves (up to pieceCacheMax of
// them, in two words, with the length), so a count is served only for
// the very piece it was made for. Slots are read and written without a
// lock under a version (a sequence lock, as in the packet package's
// fragment cache): a writer makes it odd while it writes, and a reader
// that sees it odd or changed counts the piece itself.

const (
	// pieceCacheMax is the longest piece the table keeps.
	pieceCacheMax = 16
	// pieceCacheBits sizes the table: 2^13 slots of 32 bytes, 256 KiB
	// an encoding.
	pieceCacheBits = 13
)

type pieceSlot struct {
	version atomic.Uint64
	lo, hi  atomic.Uint64 // the piece's bytes, little-endian, zero-padded
	meta    atomic.Uint64 // len<<32 | count+1; 0 is empty
}

type pieceCache [1 << pieceCacheBits]pieceSlot

// pack16 returns the bytes of s (at most 16) as two little-endian words.
func pack16(s string) (lo, hi uint64) {
	if len(s) < 8 {
		return pack(s), 0
	}
	// Eight bytes at once: a view of s, read and dropped here.
	lo = binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))
	return lo, pack(s[8:])
}

func (c *pieceCache) slot(lo, hi uint64, n int) *pieceSlot {
	h := (lo*0x9E3779B97F4A7C15 ^ hi*0xC2B2AE3D27D4EB4F ^ uint64(n)) * 0x165667B19E3779F9
	return &c[h>>(64-pieceCacheBits)]
}

// lookup returns the kept count of piece (3..pieceCacheMax bytes).
func (c *pieceCache) lookup(piece string) (int, bool) {
	lo, hi := pack16(piece)
	s := c.slot(lo, hi, len(piece))
	v := s.version.Load()
	if v&1 != 0 {
		return 0, false
	}
	meta := s.meta.Load()
	if meta == 0 || meta>>32 != uint64(len(piece)) || s.lo.Load() != lo || s.hi.Load() != hi || s.version.Load() != v {
		return 0, false
	}
	return int(meta&0xffffffff) - 1, true
}

// keep puts the count n of piece in its slot, unless another writer
// holds the slot.
func (c *pieceCache) keep(piece string, n int) {
	lo, hi := pack16(piece)
	s := c.slot(lo, hi, len(piece))
	v := s.version.Load()
	if v&1 != 0 || !s.version.CompareAndSwap(v, v+1) {
		return
	}
	s.lo.Store(lo)
	s.hi.Store(hi)
	s.meta.Store(uint64(len(piece))<<32 | uint64(n+1))
	s.version.Store(v + 2)
}

// countPiece returns the number of tokens of one piece, through the
// vocabulary's table of recent pieces where the piece is of a size it
// keeps.
func (v *vocab) countPiece(piece string, sc *scratch) int {
	if len(piece) < 3 || len(piece) > pieceCacheMax {
		return v.pieceTokens(piece, nil, sc)
	}
	if n, ok := v.recent.lookup(piece); ok {
		return n
	}
	n := v.pieceTokens(piece, nil, sc)
	v.recent.keep(piece, n)
	return n
}
