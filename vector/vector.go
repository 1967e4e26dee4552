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
// laid end to end, so that a search streams through memory once.
type Set struct {
	dim  int
	ids  []string
	kind []string
	tags [][]string
	data []float32 // row i is data[i*dim : (i+1)*dim]
	row  map[string]int
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

// Dim is the dimension of the set's vectors; 0 for an empty set.
func (s *Set) Dim() int { return s.dim }

// put adds or replaces e's row.
func (s *Set) put(e store.VectorEntry) error {
	if s.dim == 0 {
		s.dim = len(e.Vector)
	}
	if len(e.Vector) != s.dim {
		return fmt.Errorf("record %q: vector of %d dimensions in a namespace of %d", e.ID, len(e.Vector), s.dim)
	}
	unit := normalized(e.Vector)
	if i, ok := s.row[e.ID]; ok {
		copy(s.data[i*s.dim:], unit)
		s.kind[i], s.tags[i] = e.Kind, e.Tags
		return nil
	}
	s.row[e.ID] = len(s.ids)
	s.ids = append(s.ids, e.ID)
	s.kind = append(s.kind, e.Kind)
	s.tags = append(s.tags, e.Tags)
	s.data = append(s.data, unit...)
	return nil
}

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
		s.row[s.ids[i]] = i
	}
	s.ids, s.kind, s.tags = s.ids[:last], s.kind[:last], s.tags[:last]
	s.data = s.data[:last*s.dim]
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
// equal scores by id. q need not be unit length.
func (s *Set) Search(q []float32, k int, f Filter) ([]Hit, error) {
	if err := CheckQuery(q, s.dim); err != nil {
		return nil, err
	}
	n := len(s.ids)
	if n == 0 || k <= 0 {
		return nil, nil
	}
	unit := normalized(q)
	filtered := len(f.Kinds)+len(f.Tags) > 0
	scan := func(from, to int) topK {
		top := topK{k: k, ids: s.ids}
		for i := from; i < to; i++ {
			if filtered && !f.keeps(s.kind[i], s.tags[i]) {
				continue
			}
			top.offer(i, dot(unit, s.data[i*s.dim:]))
		}
		return top
	}
	workers := min(runtime.GOMAXPROCS(0), n/parallelRows)
	var tops []topK
	if workers <= 1 {
		tops = []topK{scan(0, n)}
	} else {
		tops = make([]topK, workers)
		var wg sync.WaitGroup
		for w := range workers {
			from, to := w*n/workers, (w+1)*n/workers
			wg.Go(func() { tops[w] = scan(from, to) })
		}
		wg.Wait()
	}
	var rows []scored
	for _, t := range tops {
		rows = append(rows, t.rows...)
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
