package budget

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/bits"
)

// The rank files are generated from the offline loader's .tiktoken assets
// (see internal/gen for the format); TestRankFilesUpToDate fails when they
// are stale.
//go:generate go run ./internal/gen/genranks -dir .

var (
	//go:embed ranks_cl100k_base.bin
	cl100kRanks string
	//go:embed ranks_o200k_base.bin
	o200kRanks string
)

const (
	rankMagic   = "LORERANK"
	rankVersion = 1
	// noRank marks a byte string that is not a token.
	noRank = ^uint32(0)
)

// vocab is one encoding's token table: rank -> bytes through off, and
// bytes -> rank through an open-addressing hash table. It is immutable
// after loadVocab but for its table of recent pieces (piececache.go),
// and safe for concurrent use.
type vocab struct {
	data   string   // the tokens' bytes, concatenated in rank order
	off    []uint32 // token r is data[off[r]:off[r+1]]
	table  []uint64 // slot: hash fingerprint<<32 | rank+1; 0 is empty
	mask   uint64
	seed   maphash.Seed
	maxLen int         // longest token, in bytes: longer strings are no token
	single [256]uint32 // rank of each one-byte token
	pair   []uint32    // rank of each two-byte string (noRank if none), by b0<<8|b1
	// Tokens of 3..8 bytes, the most looked up, skip the general table:
	// their bytes packed into a uint64 are the key, hashed by one multiply.
	shortKeys  []uint64
	shortVals  []uint32 // len<<24 | rank+1; 0 is empty
	shortShift uint
	// recent keeps the counts of pieces counted lately (piececache.go);
	// the one part of a vocab that changes after loadVocab.
	recent *pieceCache
}

// shortMax is the longest token kept in the short table.
const shortMax = 8

// pack returns the bytes of s (at most 8) as a little-endian uint64.
func pack(s string) uint64 {
	var k uint64
	for i := 0; i < len(s); i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

// shortHash returns the short-table slot of packed key k of length n.
func (v *vocab) shortHash(k uint64, n int) uint64 {
	return ((k ^ uint64(n)<<61) * 0x9E3779B97F4A7C15) >> v.shortShift
}

// loadVocab parses a rank file; it copies nothing but builds the offsets
// and the hash table (a few milliseconds for 200,000 tokens).
func loadVocab(file string) (*vocab, error) {
	lens, data, err := splitRankFile(file)
	if err != nil {
		return nil, err
	}
	n := len(lens)
	v := &vocab{data: data, off: make([]uint32, n+1), seed: maphash.MakeSeed(), recent: new(pieceCache)}
	var o uint32
	for r := 0; r < n; r++ {
		v.off[r] = o
		l := int(lens[r])
		o += uint32(l)
		v.maxLen = max(v.maxLen, l)
	}
	v.off[n] = o
	if int(o) != len(data) {
		return nil, fmt.Errorf("rank file: %d bytes of tokens, want %d", len(data), o)
	}
	v.makeTables(lens)
	v.fillTables()
	for b, r := range v.single {
		if r == noRank {
			return nil, fmt.Errorf("rank file: byte %#x is no token", b)
		}
	}
	return v, nil
}

// splitRankFile checks a rank file's header and returns its token lengths
// (one byte each, in rank order) and the tokens' bytes.
func splitRankFile(file string) (lens, data string, err error) {
	if len(file) < len(rankMagic)+1 || file[:len(rankMagic)] != rankMagic {
		return "", "", fmt.Errorf("rank file: bad magic, want %q", rankMagic)
	}
	if v := file[len(rankMagic)]; v != rankVersion {
		return "", "", fmt.Errorf("rank file: version %d, want %d", v, rankVersion)
	}
	rest := file[len(rankMagic)+1:]
	n64, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
	if k <= 0 || n64 == 0 || n64 >= 1<<31 || uint64(len(rest)-k) < n64 {
		return "", "", fmt.Errorf("rank file: bad token count")
	}
	n := int(n64)
	return rest[k : k+n], rest[k+n:], nil
}

// makeTables sizes the hash tables for the tokens of lens and marks every
// single byte and byte pair as no token.
func (v *vocab) makeTables(lens string) {
	nShort, nLong := 0, 0
	for r := 0; r < len(lens); r++ {
		switch l := lens[r]; {
		case l >= 3 && l <= shortMax:
			nShort++
		case l > shortMax:
			nLong++
		}
	}
	size := 1 << bits.Len(uint(2*nLong)) // load factor at most 1/2
	v.table = make([]uint64, size)
	v.mask = uint64(size - 1)
	shortBits := bits.Len(uint(2 * nShort))
	v.shortKeys = make([]uint64, 1<<shortBits)
	v.shortVals = make([]uint32, 1<<shortBits)
	v.shortShift = uint(64 - shortBits)
	for i := range v.single {
		v.single[i] = noRank
	}
	v.pair = make([]uint32, 1<<16)
	for i := range v.pair {
		v.pair[i] = noRank
	}
}

// fillTables enters every token in the table its length picks: one byte,
// two bytes, the short table up to shortMax, else the general one.
func (v *vocab) fillTables() {
	shortMask := uint64(len(v.shortVals) - 1)
	for r := range v.size() {
		tok := v.data[v.off[r]:v.off[r+1]]
		switch len(tok) {
		case 1:
			v.single[tok[0]] = uint32(r)
		case 2:
			v.pair[uint16(tok[0])<<8|uint16(tok[1])] = uint32(r)
		}
		if len(tok) <= 2 {
			continue
		}
		if len(tok) <= shortMax {
			k := pack(tok)
			for i := v.shortHash(k, len(tok)); ; i = (i + 1) & shortMask {
				if v.shortVals[i] == 0 {
					v.shortKeys[i] = k
					v.shortVals[i] = uint32(len(tok))<<24 | uint32(r+1)
					break
				}
			}
			continue
		}
		h := maphash.String(v.seed, tok)
		for i := h & v.mask; ; i = (i + 1) & v.mask {
			if v.table[i] == 0 {
				v.table[i] = h&^0xffffffff | uint64(r+1)
				break
			}
		}
	}
}

// rank returns the rank of token s, or noRank.
func (v *vocab) rank(s string) uint32 {
	if len(s) > v.maxLen {
		return noRank
	}
	switch len(s) {
	case 1:
		return v.single[s[0]]
	case 2:
		return v.pair[uint16(s[0])<<8|uint16(s[1])]
	}
	if len(s) <= shortMax {
		k := pack(s)
		mask := uint64(len(v.shortVals) - 1)
		for i := v.shortHash(k, len(s)); ; i = (i + 1) & mask {
			e := v.shortVals[i]
			if e == 0 {
				return noRank
			}
			if v.shortKeys[i] == k && int(e>>24) == len(s) {
				return e&0xffffff - 1
			}
		}
	}
	h := maphash.String(v.seed, s)
	fp := h &^ 0xffffffff
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		e := v.table[i]
		if e == 0 {
			return noRank
		}
		if e&^0xffffffff == fp {
			r := uint32(e) - 1
			if v.data[v.off[r]:v.off[r+1]] == s {
				return r
			}
		}
	}
}

// token returns the bytes of rank r; ok is false for an id that is not a
// rank of this vocabulary (special tokens included).
func (v *vocab) token(r int) (string, bool) {
	if r < 0 || r >= len(v.off)-1 {
		return "", false
	}
	return v.data[v.off[r]:v.off[r+1]], true
}

// size is the number of tokens.
func (v *vocab) size() int { return len(v.off) - 1 }
