package store_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// Salvage, over a real store cut at every page boundary and with pages
// scribbled over, gets back only records identical to the originals and
// accounts for every record it does not get back.
func TestSalvage(t *testing.T) {
	full := damageFixture(t)
	orig := map[string]string{}
	s, err := store.Open(writeDamaged(t, full), &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ForEach("", func(r store.Record) error { orig[r.ID] = r.Body; return nil }); err != nil {
		t.Fatal(err)
	}
	s.Close()

	salvage := func(t *testing.T, b []byte) (store.SalvageReport, map[string]string) {
		t.Helper()
		dst := filepath.Join(t.TempDir(), "salvaged.bolt")
		rep, err := store.Salvage(writeDamaged(t, b), dst, nil)
		if err != nil {
			t.Fatalf("salvage: %v", err)
		}
		got := map[string]string{}
		out, err := store.Open(dst, &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("open the salvaged store: %v", err)
		}
		defer out.Close()
		if err := out.ForEach("", func(r store.Record) error { got[r.ID] = r.Body; return nil }); err != nil {
			t.Fatal(err)
		}
		for id, body := range got {
			if orig[id] != body {
				t.Errorf("salvaged %s has a body of %d bytes, the original %d", id, len(body), len(orig[id]))
			}
		}
		if rep.Records != len(got) {
			t.Errorf("report says %d records, the new store holds %d", rep.Records, len(got))
		}
		return rep, got
	}

	rep, got := salvage(t, full)
	if len(got) != 40 || rep.Links != 40 || rep.LostPages != 0 || rep.LostRecords != 0 {
		t.Fatalf("salvage of an undamaged store: %+v, %d records; want 40 records, 40 links (60 puts of 40 distinct), nothing lost", rep, len(got))
	}
	need := hwmBytes(full)
	cuts, back := 0, 0
	for cut := 2 * testPageSize; cut < need; cut += testPageSize {
		rep, got := salvage(t, full[:cut])
		if len(got)+rep.LostRecords < 40 && rep.LostPages == 0 {
			t.Errorf("cut at %d: %d records back, %d counted lost, no page counted lost; want all 40 accounted for", cut, len(got), rep.LostRecords)
		}
		if len(got) < 40 && rep.LostPages == 0 {
			t.Errorf("cut at %d: %d of 40 records back but no lost page reported", cut, len(got))
		}
		cuts, back = cuts+1, back+len(got)
	}
	t.Logf("%d cut points: %d of %d records salvaged in all (%.0f%%)", cuts, back, 40*cuts, 100*float64(back)/float64(40*cuts))
	// Zero bytes: nothing to salvage, said so.
	_, err = store.Salvage(writeDamaged(t, nil), filepath.Join(t.TempDir(), "x.bolt"), nil)
	if !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("salvage of an empty file: %v; want ErrCorrupt", err)
	}
	// An existing destination is refused.
	dst := writeDamaged(t, []byte("keep me"))
	if _, err := store.Salvage(writeDamaged(t, full), dst, nil); err == nil {
		t.Errorf("salvage onto an existing file: no error")
	}
	if b, _ := os.ReadFile(dst); string(b) != "keep me" {
		t.Errorf("salvage overwrote its existing destination")
	}
}

// With its newer meta page damaged, a store's last writes are on pages
// the older root does not lead to: salvage reads them too, and gets back
// every record as last written (an update at its new body, a delete
// gone), saying that what was lost cannot be counted.
func TestSalvageByPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	var recs []store.Record
	for i := range 30 {
		r := store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Kind: "canon", Title: "Record", Body: strings.Repeat(fmt.Sprintf("fact %d. ", i), 10+i)}
		recs = append(recs, r)
		want[r.ID] = r.Body
	}
	if _, err := s.PutMany(recs, nil); err != nil {
		t.Fatal(err)
	}
	// The last transactions: one update, one delete, one new record.
	if _, err := s.Put(store.Record{NS: "n", ID: "r05", Kind: "canon", Title: "Record", Body: "fact 5, corrected."}); err != nil {
		t.Fatal(err)
	}
	want["r05"] = "fact 5, corrected."
	if err := s.Delete("n", "r07", false); err != nil {
		t.Fatal(err)
	}
	delete(want, "r07")
	if _, err := s.Put(store.Record{NS: "n", ID: "r99", Kind: "canon", Title: "Late", Body: "written last."}); err != nil {
		t.Fatal(err)
	}
	want["r99"] = "written last."
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	newer := 0
	if binary.LittleEndian.Uint64(b[testPageSize+16+48:]) > binary.LittleEndian.Uint64(b[16+48:]) {
		newer = 1
	}
	b[newer*testPageSize+16+20] ^= 0xff
	dst := filepath.Join(t.TempDir(), "salvaged.bolt")
	rep, err := store.Salvage(writeDamaged(t, b), dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := store.Open(dst, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	got := map[string]string{}
	if err := out.ForEach("", func(r store.Record) error { got[r.ID] = r.Body; return nil }); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("salvaged %d records, want %d as last written; differ: %v", len(got), len(want), mapDiff(got, want))
	}
	if rep.FromPages == 0 || !rep.LostUnknown || rep.Records != len(got) {
		t.Errorf("report %+v; want records from pages, the loss unknown, %d records", rep, len(got))
	}
}

func mapDiff(got, want map[string]string) []string {
	var d []string
	for k, v := range want {
		if got[k] != v {
			d = append(d, k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			d = append(d, "+"+k)
		}
	}
	return d
}

// TestSalvageKeepsVectors salvages a store whose records carry vectors:
// they come back with them.
func TestSalvageKeepsVectors(t *testing.T) {
	src := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, store.Record{NS: "n", ID: "a", Body: "a", Vector: []float32{1, 2, 3}})
	mustPut(t, s, store.Record{NS: "n", ID: "b", Body: "b"})
	s.Close()
	dst := filepath.Join(t.TempDir(), "salvaged.bolt")
	if _, err := store.Salvage(src, dst, nil); err != nil {
		t.Fatal(err)
	}
	out, err := store.Open(dst, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if a, err := out.Get("n", "a"); err != nil || !slices.Equal(a.Vector, []float32{1, 2, 3}) {
		t.Errorf("salvaged a: vector %v, %v; want [1 2 3]", a.Vector, err)
	}
	if p, err := out.Check(); err != nil || len(p) != 0 {
		t.Errorf("check of the salvaged store: %v %v", p, err)
	}
}
