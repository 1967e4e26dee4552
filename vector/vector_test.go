package vector

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lorekeep/lore/store"
)

func randomEntries(rng *rand.Rand, n, dim int) []store.VectorEntry {
	es := make([]store.VectorEntry, n)
	for i := range es {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		kind := "memory"
		if i%3 == 0 {
			kind = "fact"
		}
		es[i] = store.VectorEntry{ID: fmt.Sprintf("r%06d", i), Kind: kind, Vector: v}
	}
	return es
}

// bruteForce ranks every entry f keeps by cosine in float64.
func bruteForce(es []store.VectorEntry, q []float32, k int, f Filter) []Hit {
	var hits []Hit
	norm := func(v []float32) float64 {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		return math.Sqrt(s)
	}
	for _, e := range es {
		if !f.keeps(e.Kind, e.Tags) {
			continue
		}
		var d float64
		for i := range q {
			d += float64(q[i]) * float64(e.Vector[i])
		}
		hits = append(hits, Hit{ID: e.ID, Score: d / norm(q) / norm(e.Vector)})
	}
	slices.SortFunc(hits, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(k, len(hits))]
}

// TestSearchIsExact checks the scan, on one goroutine and split among
// several, against a float64 brute force: the same records, in the same
// order, with the same scores to float32 precision.
func TestSearchIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 50, 3 * parallelRows} {
		es := randomEntries(rng, n, 96)
		set, err := NewSet(store.VectorSet{Dim: 96, Entries: es})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []Filter{{}, {Kinds: []string{"fact"}}} {
			q := randomEntries(rng, 1, 96)[0].Vector
			got, err := set.Search(q, 20, f)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(es, q, 20, f)
			if len(got) != len(want) {
				t.Fatalf("n %d, filter %v: %d hits; want %d", n, f, len(got), len(want))
			}
			for i := range want {
				if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-5 {
					t.Errorf("n %d, filter %v, hit %d: %+v; want %+v", n, f, i, got[i], want[i])
				}
			}
		}
	}
}

func TestSearchTiesGoByID(t *testing.T) {
	var es []store.VectorEntry
	for _, id := range []string{"d", "b", "a", "c"} {
		es = append(es, store.VectorEntry{ID: id, Vector: []float32{1, 1}})
	}
	set, _ := NewSet(store.VectorSet{Dim: 2, Entries: es})
	got, _ := set.Search([]float32{2, 2}, 3, Filter{})
	if ids := []string{got[0].ID, got[1].ID, got[2].ID}; !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Errorf("equal scores came out %v; want a, b, c", ids)
	}
}

func TestBadQueries(t *testing.T) {
	set, _ := NewSet(store.VectorSet{Dim: 2, Entries: []store.VectorEntry{{ID: "a", Vector: []float32{1, 0}}}})
	for _, q := range [][]float32{nil, {0, 0}, {1, float32(math.NaN())}, {1, 2, 3}} {
		if _, err := set.Search(q, 5, Filter{}); !errors.Is(err, ErrQuery) {
			t.Errorf("query %v: %v; want ErrQuery", q, err)
		}
	}
}

// TestCacheFollowsTheStore keeps a cache over a real bbolt store and
// checks that every write (a new vector, a changed one, a vector
// dropped, a record deleted) shows in the next search, through the
// change log, and that another namespace's writes change nothing.
// ref names the store at path for a cache, as the facade does.
func ref(t *testing.T, s *store.Store, path string) StoreRef {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return StoreRef{Src: s, Key: path, File: fi}
}

func TestCacheFollowsTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put := func(ns, id string, v []float32) {
		t.Helper()
		if _, err := s.Put(store.Record{NS: ns, ID: id, Body: id, Vector: v}); err != nil {
			t.Fatal(err)
		}
	}
	put("n", "east", []float32{1, 0})
	put("n", "north", []float32{0, 1})
	c := NewCache(0)
	top := func(q []float32) string {
		t.Helper()
		hits, err := c.Search(ref(t, s, path), "n", q, 1, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			return ""
		}
		return hits[0].ID
	}
	if got := top([]float32{1, 0.1}); got != "east" {
		t.Fatalf("nearest east: %q", got)
	}
	put("n", "northeast", []float32{1, 0.2})
	if got := top([]float32{1, 0.1}); got != "northeast" {
		t.Errorf("after a new vector: %q; want northeast", got)
	}
	put("n", "northeast", []float32{-1, 0}) // changed
	put("other", "x", []float32{1, 0.1, 0})
	if got := top([]float32{1, 0.1}); got != "east" {
		t.Errorf("after a changed vector: %q; want east", got)
	}
	if _, err := s.Put(store.Record{NS: "n", ID: "east", Body: "no vector now"}); err != nil {
		t.Fatal(err)
	}
	if got := top([]float32{1, 0.1}); got != "north" {
		t.Errorf("after a dropped vector: %q; want north", got)
	}
	if err := s.Delete("n", "north", false); err != nil {
		t.Fatal(err)
	}
	if got := top([]float32{1, 0.1}); got != "northeast" {
		t.Errorf("after a delete: %q; want northeast, the last vector", got)
	}
	if err := s.Delete("n", "northeast", false); err != nil {
		t.Fatal(err)
	}
	if got := top([]float32{1, 0.1, 5}); got != "" { // no vectors: any dimension is accepted, nothing found
		t.Errorf("empty namespace: %q", got)
	}
}

// TestCacheLetsGoOfOldNamespaces bounds the cache to fewer numbers than
// two namespaces hold: searching the second lets the first go, and the
// first is read again, correctly, when it is searched next.
func TestCacheLetsGoOfOldNamespaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, ns := range []string{"a", "b"} {
		for i := range 10 {
			if _, err := s.Put(store.Record{NS: ns, ID: fmt.Sprint(i), Vector: []float32{float32(i), 1, 1, 1}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := NewCache(60) // one namespace holds 50 (40 floats, 40 int8)
	for _, ns := range []string{"a", "b", "a"} {
		hits, err := c.Search(ref(t, s, path), ns, []float32{9, 1, 1, 1}, 1, Filter{})
		if err != nil || len(hits) != 1 || hits[0].ID != "9" {
			t.Fatalf("search %s: %v %v", ns, hits, err)
		}
		c.mu.Lock()
		held := len(c.sets)
		c.mu.Unlock()
		if held != 1 {
			t.Errorf("after searching %s the cache holds %d namespaces; want 1", ns, held)
		}
	}
}

// TestCacheKnowsAnotherStoreAtThePath keeps a cache across two opens of
// a store, as a server that opens it per request does, then replaces
// the file with another store (a restored backup): the cache reads the
// new one, never serves the old one's vectors.
func TestCacheKnowsAnotherStoreAtThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lore.bolt")
	c := NewCache(0)
	search := func() []Hit {
		t.Helper()
		s, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		hits, err := c.Search(ref(t, s, path), "n", []float32{1, 0}, 5, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	build := func(p string, ids ...string) {
		t.Helper()
		s, err := store.Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i, id := range ids {
			if _, err := s.Put(store.Record{NS: "n", ID: id, Vector: []float32{1, float32(i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	build(path, "old-1", "old-2")
	if h := search(); len(h) != 2 || h[0].ID != "old-1" {
		t.Fatalf("first store: %+v", h)
	}
	if h := search(); len(h) != 2 { // a second open: the same store, kept
		t.Fatalf("second open: %+v", h)
	}
	other := filepath.Join(dir, "other.bolt")
	build(other, "new-1", "new-2", "new-3")
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if h := search(); len(h) != 3 || h[0].ID != "new-1" {
		t.Errorf("after the file was replaced: %+v; want the new store's three", h)
	}
}

// TestCacheUnderConcurrentWrites searches from several goroutines while
// a writer puts vectors: every search sees at least the writes
// acknowledged before it began (under the race detector in CI).
func TestCacheUnderConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := NewCache(0)
	var acked atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 60 {
			if _, err := s.Put(store.Record{NS: "n", ID: fmt.Sprintf("r%03d", i), Vector: []float32{1, float32(i)}}); err != nil {
				t.Error(err)
				return
			}
			acked.Store(int64(i + 1))
		}
	}()
	r := ref(t, s, path)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				before := acked.Load()
				hits, err := c.Search(r, "n", []float32{1, 0}, 100, Filter{})
				if err != nil {
					t.Error(err)
					return
				}
				if int64(len(hits)) < before {
					t.Errorf("a search after %d acknowledged writes found %d vectors", before, len(hits))
					return
				}
			}
		})
	}
	wg.Wait()
}
