package store_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// toFormat2 makes the file at path look like a store made before the due
// keys: format 2, its other secondary keys kept.
func toFormat2(t testing.TB, path string) { toFormat(t, path, 2, "d\x00", "n\x00") }

// toFormat makes the store at path one of format f as an older lore
// wrote it, by deleting the secondary keys under the prefixes that
// format lacks.
func toFormat(t testing.TB, path string, f byte, prefixes ...string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("idx"))
		var drop [][]byte
		c := b.Cursor()
		for _, p := range prefixes {
			for k, _ := c.Seek([]byte(p)); bytes.HasPrefix(k, []byte(p)); k, _ = c.Next() {
				drop = append(drop, bytes.Clone(k))
			}
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{f})
	}); err != nil {
		t.Fatal(err)
	}
}

func dueIDs(t *testing.T, s *store.Store, by int64) (string, bool) {
	t.Helper()
	var got []store.Record
	ok, err := s.Due("n", "obligation", by, false, func(r store.Record) bool { got = append(got, r); return true })
	if err != nil {
		t.Fatal(err)
	}
	return ids(got), ok
}

// A format 2 store opened read-only has no due keys (Due says so, and
// the other keys still serve); its first writable open adds them, Due
// then answers, and Check covers them: a missing one and a stale one
// (an obligation closed behind the store's back) are both reported.
func TestDueKeysUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, &store.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		meta := map[string]string{"due": fmt.Sprint(i), "status": []string{"open", "closed", ""}[i%3]}
		mustPut(t, s, store.Record{NS: "n", ID: fmt.Sprintf("o%02d", i), Kind: "obligation", Meta: meta})
	}
	want, ok := dueIDs(t, s, 6)
	if !ok || want != "o00 o02 o03 o05 o06" {
		t.Fatalf("Due by 6 = %q, %v; want o00 o02 o03 o05 o06", want, ok)
	}
	s.Close()
	toFormat2(t, path)

	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := dueIDs(t, ro, 6); ok || got != "" {
		t.Errorf("Due on a format 2 store = %q, %v; want nothing and false (the caller walks)", got, ok)
	}
	if h, _, err := ro.List(store.ListOptions{NS: "n", Kind: "obligation"}); err != nil || len(h) != 12 {
		t.Errorf("List by kind on a format 2 store: %d, %v; want 12", len(h), err)
	}
	if probs, err := ro.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check of a format 2 store: %v %+v; want clean", err, probs)
	}
	ro.Close()

	rw, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := dueIDs(t, rw, 6); !ok || got != want {
		t.Errorf("Due after the upgrade = %q, %v; want %q", got, ok, want)
	}
	if probs, err := rw.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check after the upgrade: %v %+v", err, probs)
	}
	rw.Close()

	// o01 is closed; o03 is due at 3.
	probs, all := checkAfterIdxEdit(t, path, "d\x00n\x00obligation\x00xo01", "d\x00n\x00obligation\x00n\x80\x00\x00\x00\x00\x00\x00\x03o03")
	if probs != 2 || !strings.Contains(all, `xo01" matches no head`) || !strings.Contains(all, `o03" of a head is missing`) {
		t.Errorf("check found:\n%s\nwant the stale due key of o01 and the missing one of o03", all)
	}
}

// The upgrade of an older store tells Options.Progress its phase, that
// it starts at 0 of every record and ends at all of them; a current
// store's open tells it nothing.
func TestUpgradeProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for i := range 2500 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprintf("r%04d", i), Kind: "obligation", Meta: map[string]string{"due": fmt.Sprint(i)}})
	}
	if _, err := s.PutMany(recs, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, from := range []int{2, 1} {
		if from == 2 {
			toFormat2(t, path)
		} else {
			stripIndex(t, path)
		}
		type call struct {
			phase       string
			done, total int
		}
		var calls []call
		opts := &store.Options{Progress: func(phase string, done, total int) { calls = append(calls, call{phase, done, total}) }}
		s, err := store.Open(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		phase := fmt.Sprintf("upgrading store format %d to 4", from)
		if len(calls) < 3 || calls[0] != (call{phase, 0, 2500}) || calls[len(calls)-1] != (call{phase, 2500, 2500}) {
			t.Errorf("from format %d: progress %v; want %q from 0 to 2,500 of 2,500 in steps", from, calls, phase)
		}
		calls = nil
		if s, err = store.Open(path, opts); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if len(calls) != 0 {
			t.Errorf("open of a current store: progress %v; want none", calls)
		}
		storetest.CheckFile(t, path, nil)
	}
}

// BenchmarkUpgrade times the first writable open of a format 1 store of
// 100,000 records (the bench namespace of BenchmarkRulePulls), which
// writes all their secondary keys.
func BenchmarkUpgrade(b *testing.B) {
	path := filepath.Join(b.TempDir(), "lore.bolt")
	s, err := store.Open(path, &store.Options{Now: clock()})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]store.Record, 0, 1000)
	for i := range 100_000 {
		r := smallRecord(i)
		if i%100 == 0 {
			r.Kind, r.Meta = "obligation", map[string]string{"status": "open", "due": fmt.Sprint(i / 100)}
		}
		if recs = append(recs, r); len(recs) == cap(recs) {
			if _, err := s.PutMany(recs, nil); err != nil {
				b.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	s.Close()
	for b.Loop() {
		b.StopTimer()
		stripIndex(b, path)
		b.StartTimer()
		s, err := store.Open(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// One transaction that writes a record's secondary keys and then changes
// them again (the same record twice in one PutMany) leaves only the last
// version's keys: a bbolt transaction's pending key writes keep the last
// word per key (and check, at cleanup, finds them complete).
func TestPendingKeysLastWordWins(t *testing.T) {
	s := newStore(t)
	_, err := s.PutMany([]store.Record{
		{NS: "n", ID: "a", Kind: "obligation", Pinned: true, Meta: map[string]string{"due": "3"}},
		{NS: "n", ID: "b", Kind: "note"},
		{NS: "n", ID: "a", Kind: "note", Order: 4},
	}, nil)
	if err != nil {
		t.Fatalf("PutMany with a record twice: %v", err)
	}
	got := func(o store.ListOptions) string {
		h, _, err := s.List(o)
		if err != nil {
			t.Fatal(err)
		}
		return ids(h)
	}
	if k, p := got(store.ListOptions{NS: "n", Kind: "note"}), got(store.ListOptions{NS: "n", Pinned: true}); k != "a b" || p != "" {
		t.Errorf("after a record twice in one PutMany: kind note %q, pinned %q; want \"a b\" and none", k, p)
	}
	if due, ok := dueIDs(t, s, 10); !ok || due != "" {
		t.Errorf("due: %q %v; want none", due, ok)
	}
}
