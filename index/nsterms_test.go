package index

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestScoresAreTheNamespaces: a namespace's scores follow from its own
// records alone. The same records score the same whether or not another
// namespace holds many records full of the same words (before terms were
// filed by namespace, the other namespace's document frequencies and
// count showed through, and "fire" here ranked as a common word).
func TestScoresAreTheNamespaces(t *testing.T) {
	own := []store.Record{
		rec("n", "a", "fact", "Fire at the mill", "The mill burned in the night."),
		rec("n", "b", "fact", "The harbour", "Boats and fire on the water, a castle above."),
		rec("n", "c", "fact", "Castle", "The castle stands on the hill."),
		rec("n", "d", "fact", "Rain", "Nothing burns in this weather."),
	}
	var crowd []store.Record
	for i := range 60 {
		crowd = append(crowd, rec("m", fmt.Sprintf("m%02d", i), "fact", "Fire and fire", fmt.Sprintf("fire castle fire %d", i)))
	}
	alone, _ := openTemp(t)
	mustApply(t, alone, own, nil, 1)
	shared, _ := openTemp(t)
	mustApply(t, shared, append(crowd, own...), nil, 1)

	for _, q := range []Query{
		{NS: "n", Text: "fire castle"},
		{NS: "n", Text: `"the mill" fire`},
		{NS: "n", Text: `castle "fire at the mill"`, AnyTerm: true},
	} {
		want := search(t, alone, q)
		got := search(t, shared, q)
		if len(want) == 0 {
			t.Fatalf("%+v: no hits", q)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%+v:\nbeside namespace m: %v\nalone:              %v", q, got, want)
		}
	}
}

// TestTermsFiledByNamespace: a word of one namespace is not a term of
// another's, whatever the query, and a phrase across a stop word still
// matches in its own namespace.
func TestTermsFiledByNamespace(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{
		rec("a", "x", "fact", "Lantern of the keep", "The lantern hangs by the door."),
		rec("a/b", "y", "fact", "Lantern", "A lantern in a namespace below."),
		rec("ab", "z", "fact", "Lantern", "A lantern in a namespace that shares a prefix."),
	}, nil, 1)
	for _, tt := range []struct {
		q    Query
		want []string
	}{
		{Query{NS: "a", Text: "lantern"}, []string{"a:x"}},
		{Query{NS: "a/b", Text: "lantern"}, []string{"a/b:y"}},
		{Query{NS: "ab", Text: "lantern"}, []string{"ab:z"}},
		{Query{NS: "a", Text: `"lantern of the keep"`}, []string{"a:x"}},
		{Query{NS: "a", Text: `"lantern the keep"`}, nil}, // one stop word short: not the phrase
		{Query{NS: "a", Text: `b:lantern`}, nil},          // no way to name another namespace's term
	} {
		if got := ids(search(t, ix, tt.q)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%+v: %v, want %v", tt.q, got, tt.want)
		}
	}
}

// openFormat1 opens an index of format 1 holding recs: terms bare, as
// lore wrote them before terms were filed by namespace.
func openFormat1(t *testing.T, recs []store.Record) *Index {
	t.Helper()
	ix, dir := openTemp(t)
	ix.b.byNS = false
	mustApply(t, ix, recs, nil, 1)
	if err := ix.bi.SetInternal(keyFormat, []byte(formatBareTerm)); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	old, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { old.Close() })
	return old
}

// TestFormat1StillSearched: an index of format 1 is opened, said to be
// outdated, and searched as before: within the namespace, and for a
// store of one namespace with the same scores as the current format.
func TestFormat1StillSearched(t *testing.T) {
	own := []store.Record{
		rec("n", "a", "fact", "Fire at the mill", "The mill burned in the night."),
		rec("n", "b", "fact", "The harbour", "Boats and fire on the water, a castle above."),
		rec("n", "c", "fact", "Castle", "The castle stands on the hill."),
	}
	cur, _ := openTemp(t)
	mustApply(t, cur, own, nil, 1)
	old := openFormat1(t, own)
	if !old.Outdated() || cur.Outdated() {
		t.Fatalf("Outdated: format 1 %v, current %v; want true, false", old.Outdated(), cur.Outdated())
	}
	queries := []Query{
		{NS: "n", Text: "fire castle"},
		{NS: "n", Text: `"the mill" fire`},
		{NS: "n", Text: `castle "fire at the mill"`, AnyTerm: true},
		{NS: "n", Kinds: []string{"fact"}},
	}
	for _, q := range queries {
		if got, want := search(t, old, q), search(t, cur, q); len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%+v:\nformat 1: %v\ncurrent:  %v", q, got, want)
		}
	}
	mixed := openFormat1(t, append([]store.Record{rec("m", "x", "fact", "Fire", "fire castle")}, own...))
	if got := ids(search(t, mixed, Query{NS: "m", Text: "fire castle"})); fmt.Sprint(got) != "[m:x]" {
		t.Errorf("format 1 beside another namespace: %v, want [m:x]", got)
	}
}
