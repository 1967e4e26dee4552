package store_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

const testPageSize = 4096

// damageFixture writes a small real store: 40 records with bodies of a
// few KB (some over a page, so there are overflow pages) and 60 links.
// It returns the file's bytes.
func damageFixture(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		body := strings.Repeat(fmt.Sprintf("line %d of record %d. ", i, i), 20+i*8)
		if _, err := s.Put(store.Record{NS: "novel", ID: fmt.Sprintf("rec-%02d", i), Kind: "canon", Title: "Record", Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		if _, err := s.Link(store.Link{NS: "novel", From: fmt.Sprintf("rec-%02d", i%40), Rel: "mentions", To: fmt.Sprintf("rec-%02d", (i*7)%40)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// exercise opens a damaged file and runs every kind of read and a write
// on it. It reports the first error; a panic or fault fails the test run.
func exercise(t *testing.T, path string, readOnly bool) error {
	t.Helper()
	s, err := store.Open(path, &store.Options{ReadOnly: readOnly})
	if err != nil {
		return err
	}
	defer s.Close()
	var errs []error
	errs = append(errs, s.ForEach("", func(store.Record) error { return nil }))
	errs = append(errs, s.ForEachLink("", func(store.Link) error { return nil }))
	_, err = s.Stats("")
	errs = append(errs, err)
	_, err = s.Get("novel", "rec-39")
	errs = append(errs, err)
	probs, err := s.Check()
	errs = append(errs, err)
	if len(probs) > 0 {
		errs = append(errs, fmt.Errorf("check: %d problems, first %s: %w", len(probs), probs[0].What, store.ErrCorrupt))
	}
	if !readOnly {
		_, err = s.Put(store.Record{NS: "novel", ID: "new", Kind: "canon", Body: "x"})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func writeDamaged(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lore.bolt")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func hwmBytes(b []byte) int {
	return int(binary.LittleEndian.Uint64(b[16+40:])) * testPageSize
}

func TestDamageTruncatedAtEveryPage(t *testing.T) {
	full := damageFixture(t)
	need := hwmBytes(full)
	if need < 8*testPageSize {
		t.Fatalf("fixture has %d bytes of pages in use, want a store of at least 8 pages", need)
	}
	for cut := 0; cut < len(full); cut += testPageSize {
		for _, readOnly := range []bool{true, false} {
			path := writeDamaged(t, full[:cut])
			err := exercise(t, path, readOnly)
			if cut >= need {
				if err != nil {
					t.Errorf("cut at %d (pages need %d), read-only %v: %v; want no error", cut, need, readOnly, err)
				}
				continue
			}
			var de *store.DamageError
			if !errors.As(err, &de) || !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("cut at %d of %d, read-only %v: got %v, want a DamageError", cut, need, readOnly, err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("cut at %d: %q does not name the file", cut, err)
			}
			if fi, _ := os.Stat(path); fi.Size() != int64(cut) {
				t.Errorf("cut at %d: the file is now %d bytes; a damaged store must not be written", cut, fi.Size())
			}
		}
	}
}

func TestDamageMessages(t *testing.T) {
	full := damageFixture(t)
	need := hwmBytes(full)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"zero-length", nil, "is empty (0 bytes)"},
		{"short", full[:50], "too short to be a store"},
		{"one meta", full[:100], "is truncated: 100 bytes"},
		{"half", full[:need/2/testPageSize*testPageSize], fmt.Sprintf("is truncated: %s bytes, its pages need %s", commas(need/2/testPageSize*testPageSize), commas(need))},
		{"foreign", []byte(strings.Repeat("not a bbolt file\n", 1000)), "not a Lore store, or both meta pages are damaged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeDamaged(t, tc.b)
			err := exercise(t, path, false)
			if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrCorrupt saying %q", err, tc.want)
			}
			if fi, _ := os.Stat(path); fi.Size() != int64(len(tc.b)) {
				t.Errorf("the file is now %d bytes, was %d: it was written", fi.Size(), len(tc.b))
			}
		})
	}
}

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestDamageRandomBytes(t *testing.T) {
	full := damageFixture(t)
	rng := rand.New(rand.NewPCG(1, 2))
	scribble := func(off, n int) []byte {
		b := append([]byte(nil), full...)
		for i := off; i < off+n && i < len(b); i++ {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	// One meta page: bbolt would fall back to the other, which may be
	// older than the last write, and a write would make the loss final.
	// The store is refused, read-only too, naming the bad page, and the
	// file is left as it was.
	for _, pg := range []int{0, 1} {
		for _, readOnly := range []bool{true, false} {
			path := writeDamaged(t, scribble(pg*testPageSize, testPageSize))
			before, _ := os.ReadFile(path)
			err := exercise(t, path, readOnly)
			var de *store.DamageError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), fmt.Sprintf("its meta page %d is bad", pg)) ||
				!strings.Contains(err.Error(), "--salvage") {
				t.Errorf("meta page %d scribbled, read-only %v: %v; want a DamageError naming meta page %d and the salvage", pg, readOnly, err, pg)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Errorf("meta page %d scribbled, read-only %v: the file was written", pg, readOnly)
			}
		}
	}
	err := exercise(t, writeDamaged(t, scribble(0, 2*testPageSize)), false)
	if !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("both meta pages scribbled: %v; want ErrCorrupt", err)
	}
	// Every leaf and branch page, one at a time: headers and all, then the
	// elements only (header intact).
	pages, caught := 0, 0
	for pg := 2; pg*testPageSize < hwmBytes(full); pg++ {
		flags := binary.LittleEndian.Uint16(full[pg*testPageSize+8:])
		if flags != 0x01 && flags != 0x02 {
			continue
		}
		pages++
		for _, skip := range []int{0, 16} {
			for _, readOnly := range []bool{true, false} {
				path := writeDamaged(t, scribble(pg*testPageSize+skip, 200))
				err := exercise(t, path, readOnly)
				if err != nil && !errors.Is(err, store.ErrCorrupt) {
					t.Errorf("page %d scribbled from byte %d: %v; want ErrCorrupt or a problem from check", pg, skip, err)
				}
				if err != nil && strings.Contains(err.Error(), "reading it failed") {
					caught++ // a panic or fault turned into an error at the store boundary
				}
			}
		}
	}
	if pages < 4 {
		t.Fatalf("found %d branch or leaf pages in the fixture, want several", pages)
	}
	if caught == 0 {
		t.Errorf("no scribbled page made bbolt panic or fault; the test does not reach the store's guard")
	}
	t.Logf("%d pages scribbled 4 ways each; %d runs caught a panic or fault", pages, caught)
}
