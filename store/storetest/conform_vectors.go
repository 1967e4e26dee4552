package storetest

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// conformVectors checks vectors on records: kept beside the record,
// versioned with it, read by Get, GetVersion, History, ForEach and
// Vectors, one dimension per namespace, bad vectors refused by name.
func conformVectors(t *testing.T, open Opener) {
	s := open(t, nil)
	v1, v2 := []float32{1, 0, 0.5}, []float32{0, 1, -0.25}
	must(s.Put(store.Record{NS: "n", ID: "a", Kind: "memory", Tags: []string{"t"}, Body: "alpha", Vector: v1}))
	must(s.Put(store.Record{NS: "n", ID: "b", Body: "beta"})) // no vector: still a record
	if got := must(s.Get("n", "a")); !slices.Equal(got.Vector, v1) {
		t.Fatalf("get: vector %v; want %v", got.Vector, v1)
	}
	if h := must(s.Head("n", "a")); h.Vector != nil {
		t.Errorf("head carries a vector %v; heads never read one", h.Vector)
	}
	if again := must(s.Put(store.Record{NS: "n", ID: "a", Kind: "memory", Tags: []string{"t"}, Body: "alpha", Vector: v1})); again.Status != store.StatusUnchanged {
		t.Errorf("same vector again: %s; want unchanged", again.Status)
	}
	// A new vector alone is a new version; the old one stays in history.
	if up := must(s.Put(store.Record{NS: "n", ID: "a", Kind: "memory", Tags: []string{"t"}, Body: "alpha", Vector: v2})); up.Status != store.StatusUpdated || up.Version != 2 {
		t.Fatalf("new vector: %+v; want updated to version 2", up)
	}
	if old := must(s.GetVersion("n", "a", 1)); !slices.Equal(old.Vector, v1) {
		t.Errorf("version 1 vector %v; want %v", old.Vector, v1)
	}
	h := must(s.History("n", "a"))
	if len(h) != 2 || !slices.Equal(h[0].Vector, v1) || !slices.Equal(h[1].Vector, v2) {
		t.Errorf("history vectors: %d versions", len(h))
	}
	var walked []string
	must(0, s.ForEach("n", func(r store.Record) error {
		if r.ID == "a" && !slices.Equal(r.Vector, v2) {
			t.Errorf("ForEach: vector of a %v; want %v", r.Vector, v2)
		}
		walked = append(walked, r.ID)
		return nil
	}))
	set := must(s.Vectors("n"))
	if set.Dim != 3 || len(set.Entries) != 1 || set.Entries[0].ID != "a" || set.Entries[0].Kind != "memory" ||
		!slices.Equal(set.Entries[0].Tags, []string{"t"}) || !slices.Equal(set.Entries[0].Vector, v2) || set.Seq != must(s.LastSeq()) {
		t.Errorf("Vectors: %+v", set)
	}
	if of := must(s.VectorsOf("n", []string{"b", "a", "missing"})); len(of) != 1 || of[0].ID != "a" {
		t.Errorf("VectorsOf: %+v; want a alone", of)
	}

	// One dimension per namespace, named in the refusal; another
	// namespace has its own.
	_, err := s.Put(store.Record{NS: "n", ID: "c", Vector: []float32{1, 2}})
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "3") {
		t.Errorf("vector of another dimension: %v; want ErrInvalid naming the record and the namespace's 3", err)
	}
	must(s.Put(store.Record{NS: "other", ID: "c", Vector: []float32{1, 2}}))
	for _, bad := range [][]float32{{}, {float32(math.NaN())}, {1, float32(math.Inf(1)), 0}} {
		if _, err := s.Put(store.Record{NS: "n", ID: "bad", Vector: bad}); !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "n/bad") {
			t.Errorf("vector %v: %v; want ErrInvalid naming record bad", bad, err)
		}
	}
	// The one vector of a namespace may change its dimension.
	must(s.Put(store.Record{NS: "other", ID: "c", Vector: []float32{1, 2, 3, 4}}))
	if d := must(s.VectorDim("other")); d != 4 {
		t.Errorf("dimension after the namespace's one vector changed: %d; want 4", d)
	}
	// Dropping every vector releases the dimension.
	must(s.Put(store.Record{NS: "n", ID: "a", Kind: "memory", Body: "alpha"}))
	if d := must(s.VectorDim("n")); d != 0 {
		t.Errorf("dimension after the last vector went: %d; want 0", d)
	}
	must(s.Put(store.Record{NS: "n", ID: "c", Vector: []float32{1, 2}}))
	must(0, s.Delete("n", "c", false))
	if set := must(s.Vectors("n")); len(set.Entries) != 0 {
		t.Errorf("vectors after delete: %+v", set.Entries)
	}
	if d := must(s.VectorDim("n")); d != 0 {
		t.Errorf("dimension after delete: %d; want 0", d)
	}
}
