package budget

// Byte-pair merging of one piece. Both functions give the reference result
// (OpenAI's tiktoken _byte_pair_merge): repeatedly merge the adjacent pair
// of parts whose concatenation has the lowest rank, the leftmost one on
// ties, until no adjacent pair is a token. mergeSmall does it as the
// reference does, in O(n^2), which is fastest for short pieces; mergeHeap
// does it in O(n log n) with a linked list of parts and a min-heap of
// (rank, start) pairs, so one long piece (a megabyte of '=') cannot stall.

// smallPiece is the longest piece mergeSmall handles.
const smallPiece = 24

type smallPart struct {
	start int32
	rank  uint32 // rank of this part joined with the next; noRank if none
}

// mergeSmall merges piece (2..smallPiece bytes) and calls emit for each
// resulting token, in order. It returns the number of tokens.
func (v *vocab) mergeSmall(piece string, emit func(rank uint32)) int {
	var buf [smallPiece + 1]smallPart
	n := len(piece)
	parts := buf[:n+1]
	for i := 0; i < n-1; i++ {
		parts[i] = smallPart{int32(i), v.rank(piece[i : i+2])}
	}
	parts[n-1] = smallPart{int32(n - 1), noRank}
	parts[n] = smallPart{int32(n), noRank}
	pair := func(i int) uint32 {
		if i+2 < len(parts) {
			return v.rank(piece[parts[i].start:parts[i+2].start])
		}
		return noRank
	}
	for {
		best, at := noRank, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < best {
				best, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		copy(parts[at+1:], parts[at+2:])
		parts = parts[:len(parts)-1]
		parts[at].rank = pair(at)
		if at > 0 {
			parts[at-1].rank = pair(at - 1)
		}
	}
	if emit != nil {
		for i := 0; i < len(parts)-1; i++ {
			emit(v.rank(piece[parts[i].start:parts[i+1].start]))
		}
	}
	return len(parts) - 1
}

// scratch holds mergeHeap's buffers, reused across the pieces of one
// text so that long pieces do not allocate each time.
type scratch struct {
	next, prev []int32
	rank       []uint32
	heap       minHeap
}

// mergeHeap merges piece (any length >= 2) like mergeSmall. sc may be nil.
// It is one long function on purpose: split into helpers (buffers, the
// first heap, the emit loop) it counted CJK 3.5% and emoji runs 6% slower
// (BenchmarkCount cpu-MB/s, ten runs each, p < 0.05).
func (v *vocab) mergeHeap(piece string, emit func(rank uint32), sc *scratch) int {
	n := len(piece)
	if sc == nil {
		sc = new(scratch)
	}
	if cap(sc.next) < n {
		sc.next = make([]int32, n)
		sc.prev = make([]int32, n)
		sc.rank = make([]uint32, n)
		sc.heap = make(minHeap, 0, n)
	}
	next := sc.next[:n] // start of the part after the part at i
	prev := sc.prev[:n] // start of the part before; -1 for the first
	rank := sc.rank[:n]
	h := sc.heap[:0]
	defer func() { sc.heap = h[:0] }() // keep the grown capacity
	for i := 0; i < n; i++ {
		next[i], prev[i] = int32(i+1), int32(i-1)
		rank[i] = noRank
		if i+1 < n {
			if r := v.rank(piece[i : i+2]); r != noRank {
				rank[i] = r
				h = append(h, uint64(r)<<32|uint64(i))
			}
		}
	}
	h.init()
	// pairRank is the rank of the part at i joined with the next one.
	pairRank := func(i int32) uint32 {
		t := next[i]
		if int(t) >= n {
			return noRank
		}
		e := n
		if nt := next[t]; int(nt) < n {
			e = int(nt)
		}
		return v.rank(piece[i:e])
	}
	count := n
	for len(h) > 0 {
		e := h[0]
		r, i := uint32(e>>32), int32(uint32(e))
		if rank[i] != r {
			h.pop() // stale: the part changed or was merged away
			continue
		}
		t := next[i]
		nt := int32(n)
		if int(t) < n {
			nt = next[t]
		}
		next[i] = nt
		if int(nt) < n {
			prev[nt] = i
		}
		rank[t] = noRank
		count--
		// The entry at the top is done with: replace it rather than pop
		// and push, which saves one sift.
		if r := pairRank(i); r != noRank {
			rank[i] = r
			h[0] = uint64(r)<<32 | uint64(i)
			h.down(0)
		} else {
			rank[i] = noRank
			h.pop()
		}
		if p := prev[i]; p >= 0 {
			if r := pairRank(p); r != noRank {
				rank[p] = r
				h.push(uint64(r)<<32 | uint64(p))
			} else {
				rank[p] = noRank
			}
		}
	}
	if emit != nil {
		for i := 0; i < n; i = int(next[i]) {
			emit(v.rank(piece[i:next[i]]))
		}
	}
	return count
}

// minHeap is a binary min-heap of rank<<32|start keys: popping gives the
// lowest rank, the leftmost start on ties.
type minHeap []uint64

func (h minHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *minHeap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() uint64 {
	s := *h
	x := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return x
}

func (h minHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
