package store_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestReadsKeptUntilAWrite: heads and neighbour lists read again come
// out the same, as copies a caller may change, and every kind of write
// shows in the next read: a new version, token counts set without a
// change-log entry, a link added and one removed, a record deleted.
func TestReadsKeptUntilAWrite(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "n", ID: "a", Title: "A", Body: "alpha", Meta: map[string]string{"v": "1"}, Tags: []string{"x"}})
	mustPut(t, s, store.Record{NS: "n", ID: "b", Title: "B", Body: "beta"})
	mustLink(t, s, "n", "a", "next", "b")
	head := func() store.Record {
		t.Helper()
		hs, err := s.Heads("n", []string{"missing", "a", "b"})
		if err != nil || len(hs) != 2 || hs[0].ID != "a" || hs[1].ID != "b" {
			t.Fatalf("Heads = %v, %v; want a and b", ids(hs), err)
		}
		return hs[0]
	}
	nbs := func() string {
		t.Helper()
		m, err := s.NeighborsOf("n", []string{"a", "b"}, []string{"next"})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(len(m["a"]), len(m["b"]))
	}
	first := head()
	first.Meta["v"], first.Tags[0] = "changed by the caller", "y"
	if again := head(); again.Meta["v"] != "1" || again.Tags[0] != "x" {
		t.Fatalf("a head read again holds %v %v: the caller's change to a copy", again.Meta, again.Tags)
	}
	if got := nbs(); got != "1 1" { // a link is a neighbour both ways
		t.Fatalf("neighbours %s; want 1 1", got)
	}

	mustPut(t, s, store.Record{NS: "n", ID: "a", Title: "A", Body: "alpha", Meta: map[string]string{"v": "2"}})
	if got := head(); got.Meta["v"] != "2" || got.Version != 2 {
		t.Errorf("after a new version: v %q version %d; want 2, 2", got.Meta["v"], got.Version)
	}
	if err := s.SetTokens("n", "a", "estimate", store.TokenCount{Body: 7}); err != nil {
		t.Fatal(err)
	}
	if got := head(); got.Tokens["estimate"].Body != 7 {
		t.Errorf("after SetTokens: %v; want the estimate's 7", got.Tokens)
	}
	mustPut(t, s, store.Record{NS: "n", ID: "c", Title: "C"})
	mustLink(t, s, "n", "a", "next", "c")
	if got := nbs(); got != "2 1" {
		t.Errorf("after a link: neighbours %s; want 2 1", got)
	}
	if err := s.Unlink("n", "a", "next", "b"); err != nil {
		t.Fatal(err)
	}
	if got := nbs(); got != "1 0" {
		t.Errorf("after an unlink: neighbours %s; want 1 0", got)
	}
	if err := s.Delete("n", "b", false); err != nil {
		t.Fatal(err)
	}
	if hs, err := s.Heads("n", []string{"a", "b"}); err != nil || len(hs) != 1 {
		t.Errorf("after a delete: Heads = %v, %v; want a alone", ids(hs), err)
	}
}

// TestReadsKeptUnderWrites: a writer puts version after version of a
// record while readers read its head and neighbours: no reader ever sees
// a value older than one it saw before, and once the writer is done
// every reader sees the last.
func TestReadsKeptUnderWrites(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "n", ID: "r", Title: "R", Meta: map[string]string{"n": "0"}})
	mustPut(t, s, store.Record{NS: "n", ID: "o", Title: "O"})
	const writes = 60
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			seen := 0
			for last := false; !last; {
				select {
				case <-done:
					last = true
				default:
				}
				hs, err := s.Heads("n", []string{"o", "r"})
				if err != nil || len(hs) != 2 {
					t.Errorf("Heads = %v, %v", ids(hs), err)
					return
				}
				n, _ := strconv.Atoi(hs[1].Meta["n"])
				if n < seen {
					t.Errorf("read n=%d after n=%d", n, seen)
					return
				}
				seen = n
				m, err := s.NeighborsOf("n", []string{"r"}, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if want := min(n, 1); len(m["r"]) < want {
					t.Errorf("r has %d neighbours at n=%d; want at least %d", len(m["r"]), n, want)
					return
				}
			}
			if seen != writes {
				t.Errorf("after the writer: n=%d; want %d", seen, writes)
			}
		})
	}
	for i := 1; i <= writes; i++ {
		if i == 1 {
			mustLink(t, s, "n", "r", "next", "o")
		}
		mustPut(t, s, store.Record{NS: "n", ID: "r", Title: "R", Meta: map[string]string{"n": strconv.Itoa(i)}})
	}
	close(done)
	wg.Wait()
}
