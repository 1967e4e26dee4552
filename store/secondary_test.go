package store_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
	bolt "go.etcd.io/bbolt"
)

// stripIndex makes the file at path look like a store made before the
// secondary keys: format 1, no idx bucket.
func stripIndex(t testing.TB, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte("idx")); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{1})
	}); err != nil {
		t.Fatal(err)
	}
}

type pulls struct{ kind, pinned, recent string }

func readPulls(t *testing.T, s *store.Store) pulls {
	t.Helper()
	k, _, err1 := s.List(store.ListOptions{NS: "n", Kind: "obligation"})
	p, _, err2 := s.List(store.ListOptions{NS: "n", Pinned: true})
	r, err3 := s.Recent("n", 4)
	if err := firstErr(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	return pulls{ids(k), ids(p), ids(r)}
}

// An old store answers the same by walking when opened read-only, gets
// its secondary keys on its first writable open, and answers the same
// through them; Check then covers them.
func TestSecondaryKeysMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, &store.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		kind := []string{"obligation", "scene"}[i%2]
		mustPut(t, s, store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Kind: kind, Pinned: i%3 == 0, Order: int64(i)})
	}
	want := readPulls(t, s)
	if want.kind == "" || want.pinned == "" || want.recent == "" {
		t.Fatalf("pulls %+v: want some of each", want)
	}
	s.Close()
	stripIndex(t, path)

	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := readPulls(t, ro); got != want {
		t.Errorf("read-only walk: %+v; want %+v", got, want)
	}
	ro.Close()

	rw, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readPulls(t, rw); got != want {
		t.Errorf("after the build: %+v; want %+v", got, want)
	}
	if probs, err := rw.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check after the build: %v %+v", err, probs)
	}
	rw.Close()

	// A stale key and a missing one are both reported.
	probs, all := checkAfterIdxEdit(t, path, "p\x00n\x00r01", "k\x00n\x00obligation\x00r00")
	if probs != 2 || !strings.Contains(all, `"p\x00n\x00r01" matches no head`) || !strings.Contains(all, `"k\x00n\x00obligation\x00r00" of a head is missing`) {
		t.Errorf("check found:\n%s\nwant the stale pinned key of r01 and the missing kind key of r00", all)
	}
}

// BenchmarkRulePulls times the reads of a packet's rule pulls in a
// namespace of 100,000 records (1 in 100 an obligation, a quarter of
// them open, due at positions 0-999; 1 in 50 a timeline entry with an
// order, 1 in 500 pinned), through the secondary keys and, on the same
// file made format 1 and opened read-only, by the walks they replace.
// "due" is the obligation rule's read at position 500 with a horizon of
// 10: 128 open obligations of the 1,000.
func BenchmarkRulePulls(b *testing.B) {
	const n = 100_000
	path := filepath.Join(b.TempDir(), "lore.bolt")
	s, err := store.Open(path, &store.Options{Now: clock()})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]store.Record, 0, 1000)
	for i := range n {
		r := smallRecord(i)
		switch {
		case i%100 == 0:
			status := "closed"
			if i%400 == 0 {
				status = "open"
			}
			r.Kind, r.Meta = "obligation", map[string]string{"status": status, "due": strconv.Itoa(i / 100)}
		case i%50 == 0:
			r.Kind, r.Order = "timeline", int64(i/50)
		}
		r.Pinned = i%500 == 1
		if recs = append(recs, r); len(recs) == cap(recs) {
			if _, err := s.PutMany(recs, nil); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	s.Close()
	pulls := func(b *testing.B, s *store.Store, keys bool) {
		for _, p := range []struct {
			name string
			fn   func() (int, error)
		}{
			{"kind", func() (int, error) {
				h, _, err := s.List(store.ListOptions{NS: "bench", Kind: "obligation"})
				return len(h), err
			}},
			{"pinned", func() (int, error) {
				h, _, err := s.List(store.ListOptions{NS: "bench", Pinned: true})
				return len(h), err
			}},
			{"recent10", func() (int, error) {
				h, err := s.Recent("bench", 10)
				return len(h), err
			}},
			{"timeline", func() (int, error) {
				h, _, err := s.List(store.ListOptions{NS: "bench", Kind: "timeline"})
				return len(h), err
			}},
			{"due", func() (int, error) { return duePull(s, keys) }},
		} {
			b.Run(p.name, func(b *testing.B) {
				for b.Loop() {
					if k, err := p.fn(); err != nil || k == 0 {
						b.Fatalf("%d records, %v", k, err)
					}
				}
			})
		}
		if !keys {
			return // the walk's timeline rule lists the kind (above)
		}
		b.Run("ordered", func(b *testing.B) { // the timeline rule's two seeks
			for b.Loop() {
				got := 0
				for _, back := range []bool{true, false} {
					ok, err := s.Ordered("bench", "timeline", n/100, back, func(store.Record) bool { got++; return false })
					if err != nil || !ok {
						b.Fatalf("ordered: %v %v", ok, err)
					}
				}
				if got != 2 {
					b.Fatalf("%d entries, want 2", got)
				}
			}
		})
	}
	ro := func(b *testing.B) *store.Store {
		s, err := store.Open(path, &store.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	b.Run("keys", func(b *testing.B) { pulls(b, ro(b), true) })
	toFormat2(b, path)
	b.Run("format2", func(b *testing.B) { // the obligation rule before the due keys: List by kind
		s := ro(b)
		b.Run("due", func(b *testing.B) {
			for b.Loop() {
				if k, err := duePull(s, false); err != nil || k != 128 {
					b.Fatalf("%d obligations, %v", k, err)
				}
			}
		})
	})
	stripIndex(b, path)
	b.Run("walk", func(b *testing.B) { pulls(b, ro(b), false) })
}

// duePull is the obligation rule's read at position 500, horizon 10:
// through Due with keys, else by listing the kind and filtering as the
// rule does. It returns how many it pulls.
func duePull(s *store.Store, keys bool) (int, error) {
	const by = 510
	if keys {
		n := 0
		ok, err := s.Due("bench", "obligation", by, false, func(store.Record) bool { n++; return true })
		if !ok && err == nil {
			err = fmt.Errorf("no due keys")
		}
		return n, err
	}
	h, _, err := s.List(store.ListOptions{NS: "bench", Kind: "obligation"})
	n := 0
	for _, r := range h {
		if at, perr := strconv.ParseInt(r.Meta["due"], 10, 64); store.OpenStatus(r.Meta["status"]) && perr == nil && at <= by {
			n++
		}
	}
	return n, err
}

// checkReadOnly opens the store at path read-only and runs Check: how
// many problems it found, and what they say, one a line.
// checkAfterIdxEdit puts the secondary key stale into the store at path
// and deletes the key missing, behind the store's back, then checks the
// store as checkReadOnly does.
func checkAfterIdxEdit(t *testing.T, path, stale, missing string) (int, string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("idx"))
		if err := b.Put([]byte(stale), nil); err != nil {
			return err
		}
		return b.Delete([]byte(missing))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	return checkReadOnly(t, path)
}

func checkReadOnly(t *testing.T, path string) (int, string) {
	t.Helper()
	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	probs, err := ro.Check()
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.What
	}
	return len(probs), strings.Join(msgs, "\n")
}
