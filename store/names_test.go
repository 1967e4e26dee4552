package store_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

func TestAliasesAndKeysRoundTrip(t *testing.T) {
	s := newStore(t)
	in := store.Record{NS: "novel", ID: "sefa", Kind: "character", Title: "Sefa Dunmore",
		Aliases: []string{"the surveyor", "Sefa", "Sefa"}, Keys: []string{"chart", "Admiralty"}}
	r1 := mustPut(t, s, in)
	got, err := s.Get("novel", "sefa")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Sefa", "the surveyor"}; !reflect.DeepEqual(got.Aliases, want) {
		t.Errorf("aliases = %q; want %q (sorted, deduplicated)", got.Aliases, want)
	}
	if want := []string{"Admiralty", "chart"}; !reflect.DeepEqual(got.Keys, want) {
		t.Errorf("keys = %q; want %q", got.Keys, want)
	}
	heads, _, err := s.List(store.ListOptions{NS: "novel", Kind: "character"})
	if err != nil || len(heads) != 1 || !reflect.DeepEqual(heads[0].Aliases, got.Aliases) {
		t.Errorf("List by kind = %+v, %v; want the record with its aliases", heads, err)
	}
	// The same names in another order are the same content.
	in.Aliases = []string{"Sefa", "the surveyor"}
	if r := mustPut(t, s, in); r.Status != store.StatusUnchanged {
		t.Errorf("re-put with the aliases reordered: %v; want unchanged", r.Status)
	}
	in.Aliases = nil
	r2 := mustPut(t, s, in)
	if r2.Status == store.StatusUnchanged || r2.Version != r1.Version+1 {
		t.Errorf("dropping the aliases: %+v; want a new version", r2)
	}
	if got, _ := s.Get("novel", "sefa"); got.Aliases != nil {
		t.Errorf("aliases after dropping them = %q", got.Aliases)
	}
	old, err := s.GetVersion("novel", "sefa", r1.Version)
	if err != nil || len(old.Aliases) != 2 || len(old.Keys) != 2 {
		t.Errorf("version %d = %+v, %v; want its aliases and keys kept", r1.Version, old, err)
	}
	probs, err := s.Check()
	if err != nil || len(probs) != 0 {
		t.Errorf("Check = %v, %v; want healthy", probs, err)
	}
}

func TestBadAliasNamesTheRecord(t *testing.T) {
	s := newStore(t)
	for _, tc := range []struct {
		rec  store.Record
		frag []string
	}{
		{store.Record{NS: "novel", ID: "sefa", Aliases: []string{"Sefa", ""}}, []string{`record "sefa"`, "empty alias"}},
		{store.Record{NS: "novel", ID: "reef", Keys: []string{""}}, []string{`record "reef"`, "empty key"}},
		{store.Record{NS: "novel", ID: "reef", Aliases: []string{" the Needle"}}, []string{`record "reef"`, `alias " the Needle"`, "leading or trailing space"}},
		{store.Record{NS: "novel", ID: "reef", Keys: []string{"a\nb"}}, []string{`record "reef"`, "control character"}},
		{store.Record{NS: "novel", ID: "reef", Aliases: []string{strings.Repeat("x", 257)}}, []string{`record "reef"`, "257 bytes"}},
	} {
		_, err := s.Put(tc.rec)
		wantErr(t, err, store.ErrInvalid, tc.frag...)
	}
	if err := store.ValidNames("sefa", []string{"Sefa"}, []string{""}); err == nil || !strings.Contains(err.Error(), `record "sefa" has an empty key`) {
		t.Errorf("ValidNames(empty key) = %v; want an error naming the record", err)
	}
}

func TestCheckWarnsOnSharedAlias(t *testing.T) {
	// Not storetest.Open: its check at the end would fail on the warning.
	s, err := store.Open(filepath.Join(t.TempDir(), "lore.bolt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustPut(t, s, store.Record{NS: "novel", ID: "lighthouse", Aliases: []string{"the Light"}})
	mustPut(t, s, store.Record{NS: "novel", ID: "lamp", Aliases: []string{"the light", "Saltlight"}})
	mustPut(t, s, store.Record{NS: "other", ID: "lamp", Aliases: []string{"Saltlight"}}) // another namespace: no clash
	probs, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 {
		t.Fatalf("Check = %+v; want one warning for the shared alias", probs)
	}
	p := probs[0]
	if !p.Warning() || p.NS != "novel" || !strings.Contains(p.What, `"lamp" and "lighthouse"`) || !strings.Contains(p.What, `alias "the light"`) {
		t.Errorf("warning = %+v; want it to name both records and the alias", p)
	}
}

func TestListNamed(t *testing.T) {
	s := newStore(t)
	for _, r := range []store.Record{
		{NS: "novel", ID: "a-scene", Kind: "scene", Title: "The Storm"},
		{NS: "novel", ID: "b-scene", Kind: "scene", Title: "The Lamp", Aliases: []string{"the lamp scene"}},
		{NS: "novel", ID: "c-sefa", Kind: "character", Title: "Sefa Dunmore"},
		{NS: "novel", ID: "d-note", Keys: []string{"saltlight"}},
		{NS: "novel", ID: "e-note"},
		{NS: "other", ID: "f-sefa", Kind: "character", Aliases: []string{"Sefa"}},
	} {
		mustPut(t, s, r)
	}
	heads, _, err := s.List(store.ListOptions{NS: "novel", Named: true, NamedKinds: []string{"character", "location"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(heads); got != "b-scene c-sefa d-note" {
		t.Errorf("List Named = %s; want the records with aliases or keys and the characters", got)
	}
	heads, _, _ = s.List(store.ListOptions{NS: "novel", Named: true, Kind: "scene"})
	if got := ids(heads); got != "b-scene" {
		t.Errorf("List Named, kind scene = %s", got)
	}
}

func TestNamedHeads(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "novel", ID: "a-scene", Kind: "scene", Title: "The Storm", Order: 4})
	mustPut(t, s, store.Record{NS: "novel", ID: "b-scene", Kind: "scene", Title: "The Lamp", Summary: "s", Tags: []string{"t"},
		Aliases: []string{"the lamp scene"}, Keys: []string{"wick"}, Meta: map[string]string{"from": "3"}, Order: 5, Body: "body", Pinned: true})
	mustPut(t, s, store.Record{NS: "novel", ID: "c-sefa", Kind: "character", Title: "Sefa Dunmore"})
	mustPut(t, s, store.Record{NS: "other", ID: "d-sefa", Kind: "character", Aliases: []string{"Sefa"}})
	got, err := s.NamedHeads("novel", []string{"character"})
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Record{
		{NS: "novel", ID: "b-scene", Kind: "scene", Title: "The Lamp", Aliases: []string{"the lamp scene"}, Keys: []string{"wick"},
			Meta: map[string]string{"from": "3"}, Order: 5},
		{NS: "novel", ID: "c-sefa", Kind: "character", Title: "Sefa Dunmore"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NamedHeads =\n %+v\nwant\n %+v", got, want)
	}
	if _, err := s.NamedHeads("Bad NS", nil); err == nil {
		t.Error("NamedHeads of a bad namespace: no error")
	}
}
