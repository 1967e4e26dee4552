package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/mention"
	"github.com/lorekeep/lore/store"
)

// nameTexts are the texts conformNameKeys looks names up by: capitals,
// a name across a line break, a word past store.MaxFilingWord bytes,
// words no name has, and more distinct words than etcd reads in one
// round trip.
var nameTexts = []string{
	"Sefa walked to the Needle cliffs at dawn.",
	"the surveyor met ÆRØSKØBING's harbour-master and\nMara Voss",
	"Nothing here names anyone at all.",
	"a " + strings.Repeat("longword", 12) + "x and the chart",
	"Voss",
	manyWords(300) + " the Needle cliffs, then Sefa",
}

// manyWords is n distinct made-up words.
func manyWords(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("a%dword", i) // sorted before the names' words: read in a later round trip
	}
	return strings.Join(ws, " ")
}

// conformNameKeys: NamesByWord gives exactly the named heads with a name
// all of whose words are among the words (as a filter over NamedHeads
// gives them),
// among them every head a text can name, through puts, renames, kind
// changes, dropped aliases and deletes; it declines kinds whose titles
// it does not file; and Check finds the keys consistent.
func conformNameKeys(t *testing.T, open Opener) {
	s := open(t, nil)
	long := strings.Repeat("longword", 12)
	must(s.PutMany([]store.Record{
		{NS: "n", ID: "sefa", Kind: "character", Title: "Sefa Dunmore", Aliases: []string{"the surveyor", "Sefa"}, Keys: []string{"chart"}},
		{NS: "n", ID: "cliffs", Kind: "location", Title: "The Needle cliffs"},
		{NS: "n", ID: "mara", Kind: "character", Title: "Mara Voss"},
		{NS: "n", ID: "town", Kind: "location", Title: "Ærøskøbing"},
		{NS: "n", ID: "storm", Kind: "scene", Title: "The Storm", Body: "Sefa came."},
		{NS: "n", ID: "fact", Kind: "fact", Title: "Tides", Aliases: []string{"harbour-master"}},
		{NS: "n", ID: "word", Kind: "item", Title: long + "x " + long + "y"},
		{NS: "n", ID: "dots", Kind: "item", Title: "..."},
		{NS: "m", ID: "sefa", Kind: "character", Title: "Sefa"},
	}, nil))
	checkNamesByWord(t, s, "after the first puts")

	mara := must(s.Get("n", "mara"))
	mara.Title, mara.Aliases = "Mara Quell", []string{"Voss"}
	must(s.Put(mara))
	sefa := must(s.Get("n", "sefa"))
	sefa.Aliases, sefa.Keys = nil, nil
	must(s.Put(sefa))
	cliffs := must(s.Get("n", "cliffs"))
	cliffs.Kind = "scene" // its title is a name no more
	must(s.Put(cliffs))
	if err := s.Delete("n", "town", false); err != nil {
		t.Fatal(err)
	}
	checkNamesByWord(t, s, "after renames, a kind change and a delete")

	if hs, ok := must2(s.NamesByWord("n", []string{"character", "deity"}, []string{"sefa"})); ok || hs != nil {
		t.Errorf("NamesByWord with kind deity = %+v, %v; want nothing and false (the caller walks)", hs, ok)
	}
	hs, ok := must2(s.NamesByWord("n", []string{"location"}, store.TextWords(nameTexts...)))
	if !ok || idsOf(hs) != "fact mara" {
		t.Errorf("NamesByWord of kind location only = %v, %v; want fact and mara (by their aliases) alone", idsOf(hs), ok)
	}
	if probs := must(s.Check()); len(probs) != 0 {
		t.Errorf("check: %+v", probs)
	}
}

// checkNamesByWord compares NamesByWord for each of nameTexts, and for
// all of them at once, with a filter over NamedHeads.
func checkNamesByWord(t *testing.T, s *store.Store, when string) {
	t.Helper()
	named := must(s.NamedHeads("n", store.NamingKinds))
	for i, texts := range append([][]string{nameTexts}, splitTexts()...) {
		words := store.TextWords(texts...)
		got, ok := must2(s.NamesByWord("n", store.NamingKinds, words))
		if !ok {
			t.Fatalf("%s: NamesByWord says the store keeps no name keys", when)
		}
		var want []store.Record
		for _, h := range named {
			if filedUnder(h, words) {
				want = append(want, h)
			}
		}
		if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("%s, texts %d: NamesByWord = %v; want %v", when, i, idsOf(got), idsOf(want))
		}
		for _, h := range named {
			if nameable(h, texts) && !slices.ContainsFunc(got, func(r store.Record) bool { return r.ID == h.ID }) {
				t.Errorf("%s, texts %d: %s has a name the texts can match, but NamesByWord misses it", when, i, h.ID)
			}
		}
	}
}

func splitTexts() [][]string {
	out := make([][]string, len(nameTexts))
	for i, t := range nameTexts {
		out[i] = []string{t}
	}
	return out
}

// names lists what h goes by under NamingKinds.
func names(h store.Record) []string {
	out := append(slices.Clone(h.Aliases), h.Keys...)
	if slices.Contains(store.NamingKinds, h.Kind) {
		out = append(out, h.Title)
	}
	return out
}

func filedUnder(h store.Record, words []string) bool {
	for _, n := range names(h) {
		w, others := store.NameWords(n)
		if w != "" && slices.Contains(words, w) && !slices.ContainsFunc(others, func(o string) bool { return !slices.Contains(words, o) }) {
			return true
		}
	}
	return false
}

func nameable(h store.Record, texts []string) bool {
	var ns []mention.Name
	for _, n := range names(h) {
		ns = append(ns, mention.Name{Text: n, ID: h.ID})
	}
	return len(mention.Select(ns, texts...)) > 0
}

func idsOf(rs []store.Record) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, r.ID)
	}
	return b.String()
}
