package store_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
	"github.com/lorekeep/lore/store/storetest"
)

// A format 3 store opened read-only has no name keys (NamesByWord says
// so, and NamedHeads still serves); its first writable open adds them,
// NamesByWord then answers, and Check covers them: a missing key and a
// stale one (a title changed behind the store's back) are both reported.
func TestNameKeysUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, &store.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, store.Record{NS: "n", ID: "mara", Kind: "character", Title: "Mara Voss", Aliases: []string{"the Captain"}})
	mustPut(t, s, store.Record{NS: "n", ID: "port", Kind: "location", Title: "Saltmarsh Port"})
	mustPut(t, s, store.Record{NS: "n", ID: "storm", Kind: "scene", Title: "The Storm at Saltmarsh"})
	words := store.TextWords("the Captain sailed from Saltmarsh Port into the storm")
	hs, ok, err := s.NamesByWord("n", store.NamingKinds, words)
	if err != nil || !ok || ids(hs) != "mara port" {
		t.Fatalf("NamesByWord = %s, %v, %v; want mara port", ids(hs), ok, err)
	}
	s.Close()
	toFormat(t, path, 3, "n\x00")

	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if hs, ok, err := ro.NamesByWord("n", store.NamingKinds, words); err != nil || ok || hs != nil {
		t.Errorf("NamesByWord on a format 3 store = %s, %v, %v; want nothing and false (the caller walks)", ids(hs), ok, err)
	}
	if hs, err := ro.NamedHeads("n", store.NamingKinds); err != nil || ids(hs) != "mara port" {
		t.Errorf("NamedHeads on a format 3 store = %s, %v; want mara port", ids(hs), err)
	}
	if probs, err := ro.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check of a format 3 store: %v %+v; want clean", err, probs)
	}
	ro.Close()

	rw, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hs, ok, err := rw.NamesByWord("n", store.NamingKinds, words); err != nil || !ok || ids(hs) != "mara port" {
		t.Errorf("NamesByWord after the upgrade = %s, %v, %v; want mara port", ids(hs), ok, err)
	}
	if probs, err := rw.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check after the upgrade: %v %+v", err, probs)
	}
	rw.Close()

	// port has no name with the word harbour.
	probs, all := checkAfterIdxEdit(t, path, "n\x00n\x00harbour\x00port", "n\x00n\x00captain\x00mara\x00the")
	if probs != 2 || !strings.Contains(all, `harbour\x00port" matches no head`) || !strings.Contains(all, `captain\x00mara\x00the" of a head is missing`) {
		t.Errorf("check found:\n%s\nwant the stale name key of port and the missing one of mara", all)
	}
}

// BenchmarkNamesByWord reads the names a 300-word scene can match among
// 20,000 named records, on both backends: a seek per word on bbolt, a
// few round trips of range reads on etcd; beside it, the walk of every
// named head that it replaces (NamedHeads).
func BenchmarkNamesByWord(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	word := func() string { return fmt.Sprintf("w%dx", rng.IntN(5000)) }
	var recs []store.Record
	for i := range 20000 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprintf("c%05d", i), Kind: "character",
			Title: word() + " " + word(), Keys: []string{word()}})
	}
	var text []string
	for range 300 {
		text = append(text, word())
	}
	words := store.TextWords(strings.Join(text, " "))
	for _, be := range []struct {
		Name string
		Open storetest.Opener
	}{{"bbolt", storetest.Open}, {"etcd", etcdtest.Open}} {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b, nil)
			for i := 0; i < len(recs); i += 500 {
				if _, err := s.PutMany(recs[i:i+500], nil); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("by-word", func(b *testing.B) {
				var n int
				for b.Loop() {
					hs, ok, err := s.NamesByWord("n", store.NamingKinds, words)
					if err != nil || !ok {
						b.Fatal(ok, err)
					}
					n = len(hs)
				}
				b.ReportMetric(float64(len(words)), "words")
				b.ReportMetric(float64(n), "heads")
			})
			b.Run("walk", func(b *testing.B) {
				for b.Loop() {
					if _, err := s.NamedHeads("n", store.NamingKinds); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
