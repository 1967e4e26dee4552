package store_test

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
	bolt "go.etcd.io/bbolt"
)

// wordCounter is a counter whose counts differ from o200k_base's while it
// claims the same name: it plays a tokenizer that changed under a cache.
type wordCounter struct{}

func (wordCounter) Name() string { return "o200k_base" }
func (wordCounter) Count(s string) int {
	return len(strings.Fields(s))
}

// TestCheckFindsDamage damages a store behind its back, with bbolt
// directly, and expects Check to say what is wrong in words.
func TestCheckFindsDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	opts := &store.Options{Counters: []store.Counter{counter(t)}}
	s, err := store.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, store.Record{NS: "n", ID: "a", Body: "alpha beta gamma, delta; epsilon!"})
	mustPut(t, s, store.Record{NS: "n", ID: "b", Body: "b"})
	mustPut(t, s, store.Record{NS: "n", ID: "c"})
	mustLink(t, s, "n", "a", "r", "b")
	mustLink(t, s, "n", "b", "r", "c")
	if p, err := s.Check(); err != nil || len(p) != 0 {
		t.Fatalf("Check on a healthy store = %v, %v", p, err)
	}
	s.Close()

	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		k := func(parts ...string) []byte { return []byte(strings.Join(parts, "\x00")) }
		seq := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
		return firstErr(
			tx.Bucket([]byte("links_in")).Delete(k("n", "b", "r", "a")),                                 // one direction only
			tx.Bucket([]byte("links_in")).Put(k("n", "z", "r", "y"), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}), // the other way round
			tx.Bucket([]byte("changes")).Delete(seq(2)),                                                 // a gap
			tx.Bucket([]byte("meta")).Put([]byte("seq"), seq(9)),                                        // log ends early
			tx.Bucket([]byte("bodies")).Put(k("n", "ghost"), []byte{1, 'x'}),                            // body without head
			tx.Bucket([]byte("heads")).Put(k("n", "broken"), []byte{1, 200}),                            // undecodable
			tx.Bucket([]byte("bodies")).Delete(k("n", "b")),                                             // head without body
		)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	all := problemLines(t, path, &store.Options{ReadOnly: true, Counters: []store.Counter{wordCounter{}}})
	for _, want := range []string{
		"/: change log has a gap: 1 is followed by 3",
		"/: change log ends at 5 but the store's sequence number is 9",
		`n/a: link -r-> "b" is stored outgoing but not incoming`,
		`n/y: link -r-> "z" is stored incoming but not outgoing`,
		"n/ghost: a body is stored for a record that does not exist",
		"n/broken: head does not decode",
		"n/b: head says the body has 1 bytes but no body is stored",
		"n/a: cached o200k_base token counts",
		"n/b: content digest",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("Check problems lack %q; got:\n%s", want, all)
		}
	}
	if strings.Contains(all, "n/c: cached") {
		t.Errorf("Check reports a token mismatch for n/c, whose texts are empty:\n%s", all)
	}
}

// problemLines opens the store at path with opts and returns what Check
// finds, one "ns/id: what" a line.
func problemLines(t *testing.T, path string, opts *store.Options) string {
	t.Helper()
	s, err := store.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	problems, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.NS+"/"+p.ID+": "+p.What)
	}
	return strings.Join(got, "\n")
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// A read-only store's first page check loads bbolt's freelist, which
// bbolt does without the lock its other transactions read it under:
// reads running beside Check must not race it (run with -race; a check
// on the store's own handle, not checkHandle's, reports a race inside
// bbolt).
func TestReadOnlyCheckBesideReads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		mustPut(t, s, store.Record{NS: "n", ID: fmt.Sprint("r", i), Body: strings.Repeat("lantern ", i+1)})
	}
	s.Close()

	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := ro.Bodies("n", []string{"r1", "r7"}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 3 {
		if p, err := ro.Check(); err != nil || len(p) != 0 {
			t.Errorf("Check on a healthy read-only store = %v, %v", p, err)
		}
	}
	close(stop)
	wg.Wait()
}

// TestCheckFindsVectorDamage damages the vectors behind the store's back
// and expects Check to name each record.
func TestCheckFindsVectorDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, store.Record{NS: "n", ID: "a", Body: "a", Vector: []float32{1, 0}})
	mustPut(t, s, store.Record{NS: "n", ID: "b", Body: "b", Vector: []float32{0, 1}})
	mustPut(t, s, store.Record{NS: "n", ID: "c", Body: "c"})
	if p, err := s.Check(); err != nil || len(p) != 0 {
		t.Fatalf("Check on a healthy store = %v, %v", p, err)
	}
	s.Close()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		k := func(parts ...string) []byte { return []byte(strings.Join(parts, "\x00")) }
		v := tx.Bucket([]byte("vectors"))
		return firstErr(
			v.Put(k("n", "ghost"), []byte{1, 0, 0, 128, 63, 0, 0, 0, 0}), // no record
			v.Put(k("n", "c"), []byte{1, 0, 0, 128, 63, 0, 0, 0, 0}),     // its head says none
			v.Delete(k("n", "b")), // its head says one
		)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	all := problemLines(t, path, &store.Options{ReadOnly: true})
	for _, want := range []string{
		"n/ghost: a vector is stored for a record that does not exist",
		"n/c: a vector is stored for a record whose head says it has none",
		"n/b: vector: record \"b\" in namespace \"n\": store is corrupt: its head says it has a vector, but none is stored",
		"n/: the namespace's vector dimension and count read 2 and 2, but its vectors are 1 of 2 dimensions",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("Check problems lack %q; got:\n%s", want, all)
		}
	}
}
