// Package vector searches the caller's vectors: exact cosine similarity
// over every vector of a namespace, in pure Go (with AVX2 and FMA
// assembly on amd64 where the CPU has them), no approximate index and no
// model. Lore stores the vectors a caller gives its records (store.Record
// .Vector); this package keeps a namespace's vectors in one contiguous,
// normalised block (Set), scans it for a query's nearest (Set.Search),
// and keeps the block current against the store's change log (Cache).
// Fusing its ranking with the words' is the caller's (see the root
// package's search): a vector hit is a hit like any other.
package vector

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// ErrQuery is wrapped by the errors of a query vector that cannot be
// searched: empty, not finite, all zeros, or of the wrong dimension. It
// wraps store.ErrInvalid: bad input, like a bad record.
var ErrQuery = fmt.Errorf("%w: bad query vector", store.ErrInvalid)

// Hit is one record and the cosine similarity of its vector to the
// query, from -1 to 1.
type Hit struct {
	ID    string
	Score float64
}

// Set is every vector of one namespace, each scaled to unit length and
// laid end to end, so that a search streams through memory once; and
// the same rows as int8 for the search's first pass (quant.go).
type Set struct {
	dim  int
	ids  []string
	kind []string
	tags [][]string
	data []float32 // row i is data[i*dim : (i+1)*dim]
	row  map[string]int
	// The int8 rows, with each row's scale and rounding error; empty
	// past maxQuantDims.
	q8     []int8
	qscale []float32
	qerr   []float32
}

// NewSet builds a Set from a store read. Vectors of another dimension
// than the first are an error (the store refuses them, so this is
// damage).
func NewSet(vs store.VectorSet) (*Set, error) {
	s := &Set{dim: vs.Dim, row: make(map[string]int, len(vs.Entries))}
	s.data = make([]float32, 0, len(vs.Entries)*vs.Dim)
	for _, e := range vs.Entries {
		if err := s.put(e); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Len is how many vectors the set holds.
func (s *Set) Len() int { return len(s.ids) }

// put adds or replaces e's row.
func (s *Set) put(e store.VectorEntry) error {
	if s.dim == 0 {
		s.dim = len(e.Vector)
	}
	if len(e.Vector) != s.dim {
		return badvalue.Errorf(e.ID, "record %q: vector of %d dimensions in a namespace of %d", e.ID, len(e.Vector), s.dim)
	}
	unit := normalized(e.Vector)
	i, ok := s.row[e.ID]
	if !ok {
		i = len(s.ids)
		s.row[e.ID] = i
		s.ids = append(s.ids, e.ID)
		s.kind = append(s.kind, e.Kind)
		s.tags = append(s.tags, e.Tags)
		s.data = append(s.data, unit...)
		if s.quantized() {
			s.q8 = append(s.q8, make([]int8, s.dim)...)
			s.qscale, s.qerr = append(s.qscale, 0), append(s.qerr, 0)
		}
	}
	copy(s.data[i*s.dim:], unit)
	s.kind[i], s.tags[i] = e.Kind, e.Tags
	if s.quantized() {
		var row []int8
		row, s.qscale[i], s.qerr[i] = quantizeRow(nil, unit)
		copy(s.q8[i*s.dim:], row)
	}
	return nil
}

// size is what the set holds in float32s' worth of memory.
func (s *Set) size() int { return len(s.data) + len(s.q8)/4 }

// quantized reports whether the set keeps int8 rows.
func (s *Set) quantized() bool { return s.dim <= maxQuantDims }

// remove drops id's row, moving the last row into its place.
func (s *Set) remove(id string) {
	i, ok := s.row[id]
	if !ok {
		return
	}
	last := len(s.ids) - 1
	if i != last {
		s.ids[i], s.kind[i], s.tags[i] = s.ids[last], s.kind[last], s.tags[last]
		copy(s.data[i*s.dim:(i+1)*s.dim], s.data[last*s.dim:])
		if s.quantized() {
			copy(s.q8[i*s.dim:(i+1)*s.dim], s.q8[last*s.dim:])
			s.qscale[i], s.qerr[i] = s.qscale[last], s.qerr[last]
		}
		s.row[s.ids[i]] = i
	}
	s.ids, s.kind, s.tags = s.ids[:last], s.kind[:last], s.tags[:last]
	s.data = s.data[:last*s.dim]
	if s.quantized() {
		s.q8, s.qscale, s.qerr = s.q8[:last*s.dim], s.qscale[:last], s.qerr[:last]
	}
	delete(s.row, id)
	if last == 0 {
		s.dim = 0 // the namespace may take another model now
	}
}

// normalized returns v scaled to unit length (a zero vector stays zero:
// it is similar to nothing).
func normalized(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// Filter keeps the rows a search may return: records of any of Kinds
// (none: every kind) carrying every one of Tags.
type Filter struct {
	Kinds []string
	Tags  []string
}

func (f Filter) keeps(kind string, tags []string) bool {
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, kind) {
		return false
	}
	for _, t := range f.Tags {
		if !slices.Contains(tags, t) {
			return false
		}
	}
	return true
}

// CheckQuery reports whether q can be searched in a namespace whose
// vectors have dim dimensions (0: it has none, any dimension will do).
func CheckQuery(q []float32, dim int) error {
	if len(q) == 0 {
		return fmt.Errorf("%w: it is empty; give the query's embedding, from the model that embedded the records", ErrQuery)
	}
	zero := true
	for i, x := range q {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: element %d is %v; every element must be a finite number", ErrQuery, i, x)
		}
		zero = zero && x == 0
	}
	if zero {
		return fmt.Errorf("%w: all %d elements are 0, so it is similar to nothing", ErrQuery, len(q))
	}
	if dim != 0 && len(q) != dim {
		return fmt.Errorf("%w: it has %d dimensions, the namespace's vectors have %d (embed the query with the records' model)", ErrQuery, len(q), dim)
	}
	return nil
}

// parallelRows is the size from which a search splits the rows among
// the CPUs: below it, starting goroutines costs more than it saves.
const parallelRows = 8192

// Search returns the k rows most similar to q that f keeps, best first,
// equal scores by id: exact float32 cosine. q need not be unit length.
//
// Where the set keeps int8 rows, a first pass scores every row in
// integers and bounds how far each score can be from the exact one; a
// row whose best case is below the k-th best worst case cannot be among
// the k, and only the others are scored exactly, in a second pass.
func (s *Set) Search(q []float32, k int, f Filter) ([]Hit, error) {
	if err := CheckQuery(q, s.dim); err != nil {
		return nil, err
	}
	n := len(s.ids)
	if n == 0 || k <= 0 {
		return nil, nil
	}
	unit := normalized(q)
	var rows []scored
	if s.quantized() {
		rows = s.boundedSearch(unit, k, f)
	} else {
		rows = s.exactSearch(unit, k, f)
	}
	slices.SortFunc(rows, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(s.ids[a.row], s.ids[b.row]))
	})
	rows = rows[:min(k, len(rows))]
	hits := make([]Hit, len(rows))
	for i, r := range rows {
		hits[i] = Hit{ID: s.ids[r.row], Score: float64(r.score)}
	}
	return hits, nil
}

// split runs fn over the rows [0, n) in one range per CPU where there
// are enough rows for that to pay, and returns the ranges' results.
func split[T any](n int, fn func(from, to int) T) []T {
	workers := min(runtime.GOMAXPROCS(0), n/parallelRows)
	if workers <= 1 {
		return []T{fn(0, n)}
	}
	out := make([]T, workers)
	var wg sync.WaitGroup
	for w := range workers {
		from, to := w*n/workers, (w+1)*n/workers
		wg.Go(func() { out[w] = fn(from, to) })
	}
	wg.Wait()
	return out
}

// exactSearch scores every row in float32; each range keeps its k best.
func (s *Set) exactSearch(unit []float32, k int, f Filter) []scored {
	filtered := len(f.Kinds)+len(f.Tags) > 0
	tops := split(len(s.ids), func(from, to int) topK {
		top := topK{k: k, ids: s.ids}
		for i := from; i < to; i++ {
			if filtered && !f.keeps(s.kind[i], s.tags[i]) {
				continue
			}
			top.offer(i, dot(unit, s.data[i*s.dim:]))
		}
		return top
	})
	var rows []scored
	for _, t := range tops {
		rows = append(rows, t.rows...)
	}
	return rows
}

// candidate is a row the first pass could not rule out, with the best
// score it may have.
type candidate struct {
	row int
	hi  float64
}

// firstPass is what a range's int8 pass found: its k best lower bounds
// and the rows whose upper bound reached its k-th.
type firstPass struct {
	lows  []float64
	cands []candidate
}

// boundedSearch scores the rows in int8 (the ranges on the CPUs), takes
// the k-th best lower bound of all of them as the bar, and scores
// exactly the rows whose upper bound reaches it.
func (s *Set) boundedSearch(unit []float32, k int, f Filter) []scored {
	filtered := len(f.Kinds)+len(f.Tags) > 0
	qq, qscale, qerr := quantizeQuery(unit)
	// What float32 arithmetic may add to an exact score's error: each
	// of dim products rounds, and their sum is at most 1 (unit vectors).
	slack := 2*float64(s.dim)*0x1p-24 + 1e-6
	passes := split(len(s.ids), func(from, to int) firstPass {
		// low holds the range's k best lower bounds; its root is the
		// k-th, which a row's upper bound must reach. A range's k-th is
		// at most the whole set's, so a row it rules out is out.
		low := lowHeap{k: k}
		var cands []candidate
		for i := from; i < to; i++ {
			if filtered && !f.keeps(s.kind[i], s.tags[i]) {
				continue
			}
			approx := float64(s.qscale[i]) * qscale * float64(dotInt8(s.q8[i*s.dim:(i+1)*s.dim], qq))
			rx := float64(s.qerr[i])
			bound := rx + (1+rx)*qerr + slack
			if low.full() && approx+bound < low.bar() {
				continue
			}
			low.offer(approx - bound)
			cands = append(cands, candidate{i, approx + bound})
		}
		return firstPass{low.h, cands}
	})
	bar := math.Inf(-1)
	var lows []float64
	for _, p := range passes {
		lows = append(lows, p.lows...)
	}
	if len(lows) >= k {
		slices.Sort(lows)
		bar = lows[len(lows)-k]
	}
	top := topK{k: k, ids: s.ids}
	for _, p := range passes {
		for _, c := range p.cands {
			if c.hi >= bar {
				top.offer(c.row, dot(unit, s.data[c.row*s.dim:]))
			}
		}
	}
	return top.rows
}

// lowHeap keeps the k largest of the numbers offered, as a min-heap.
type lowHeap struct {
	k int
	h []float64
}

func (l *lowHeap) full() bool   { return len(l.h) == l.k }
func (l *lowHeap) bar() float64 { return l.h[0] }
func (l *lowHeap) offer(x float64) {
	if len(l.h) < l.k {
		l.h = append(l.h, x)
		for i := len(l.h) - 1; i > 0; {
			p := (i - 1) / 2
			if l.h[p] <= l.h[i] {
				break
			}
			l.h[p], l.h[i] = l.h[i], l.h[p]
			i = p
		}
		return
	}
	if x <= l.h[0] {
		return
	}
	l.h[0] = x
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(l.h) {
			return
		}
		if c+1 < len(l.h) && l.h[c+1] < l.h[c] {
			c++
		}
		if l.h[i] <= l.h[c] {
			return
		}
		l.h[i], l.h[c] = l.h[c], l.h[i]
		i = c
	}
}

type scored struct {
	row   int
	score float32
}

// topK keeps the k best rows seen, as a min-heap on (score, then id
// reversed): the root is the row the next better one replaces. Ties go
// by id, so which of equal rows is kept does not depend on the order
// the rows were scanned in.
type topK struct {
	k    int
	ids  []string
	rows []scored
}

func (t *topK) Len() int { return len(t.rows) }
func (t *topK) Less(i, j int) bool {
	a, b := t.rows[i], t.rows[j]
	if a.score != b.score {
		return a.score < b.score
	}
	return t.ids[a.row] > t.ids[b.row]
}
func (t *topK) Swap(i, j int) { t.rows[i], t.rows[j] = t.rows[j], t.rows[i] }
func (t *topK) Push(x any)    { t.rows = append(t.rows, x.(scored)) }
func (t *topK) Pop() any {
	x := t.rows[len(t.rows)-1]
	t.rows = t.rows[:len(t.rows)-1]
	return x
}

func (t *topK) offer(row int, score float32) {
	if len(t.rows) < t.k {
		heap.Push(t, scored{row, score})
		return
	}
	worst := t.rows[0]
	if score < worst.score || score == worst.score && t.ids[row] > t.ids[worst.row] {
		return
	}
	t.rows[0] = scored{row, score}
	heap.Fix(t, 0)
}
