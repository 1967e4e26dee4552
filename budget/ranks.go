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
// after loadVocab and safe for concurrent use.
type vocab struct {
	data   string   // the tokens' bytes, concatenated in rank order
	off    []uint32 // token r is data[off[r]:off[r+1]]
	table  []uint64 // slot: hash fingerprint<<32 | rank+1; 0 is empty
	mask   uint64
	seed   maphash.Seed
	maxLen int         // longest token, in bytes: longer strings are no token
	single [256]uint32 // rank of each one-byte token
	pair   []uint32    // rank of each two-byte string (noRank if none), by b0<<8|b1
}

// loadVocab parses a rank file; it copies nothing but builds the offsets
// and the hash table (a few milliseconds for 200,000 tokens).
func loadVocab(file string) (*vocab, error) {
	if len(file) < len(rankMagic)+1 || file[:len(rankMagic)] != rankMagic {
		return nil, fmt.Errorf("rank file: bad magic, want %q", rankMagic)
	}
	if v := file[len(rankMagic)]; v != rankVersion {
		return nil, fmt.Errorf("rank file: version %d, want %d", v, rankVersion)
	}
	rest := file[len(rankMagic)+1:]
	n64, k := binary.Uvarint([]byte(rest[:min(len(rest), binary.MaxVarintLen64)]))
	if k <= 0 || n64 == 0 || n64 >= 1<<31 || uint64(len(rest)-k) < n64 {
		return nil, fmt.Errorf("rank file: bad token count")
	}
	n := int(n64)
	lens := rest[k : k+n]
	data := rest[k+n:]
	v := &vocab{data: data, off: make([]uint32, n+1), seed: maphash.MakeSeed()}
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
	size := 1 << bits.Len(uint(2*n)) // load factor at most 1/2
	v.table = make([]uint64, size)
	v.mask = uint64(size - 1)
	for i := range v.single {
		v.single[i] = noRank
	}
	v.pair = make([]uint32, 1<<16)
	for i := range v.pair {
		v.pair[i] = noRank
	}
	for r := 0; r < n; r++ {
		tok := data[v.off[r]:v.off[r+1]]
		switch len(tok) {
		case 1:
			v.single[tok[0]] = uint32(r)
		case 2:
			v.pair[uint16(tok[0])<<8|uint16(tok[1])] = uint32(r)
		}
		h := maphash.String(v.seed, tok)
		for i := h & v.mask; ; i = (i + 1) & v.mask {
			if v.table[i] == 0 {
				v.table[i] = h&^0xffffffff | uint64(r+1)
				break
			}
		}
	}
	for b, r := range v.single {
		if r == noRank {
			return nil, fmt.Errorf("rank file: byte %#x is no token", b)
		}
	}
	return v, nil
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
