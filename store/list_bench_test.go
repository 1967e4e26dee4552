package store_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
)

// BenchmarkListKind lists a rare kind (1 record in 100) out of a
// namespace of 10,000, as a packet does for obligations and timeline
// entries on every build.
func BenchmarkListKind(b *testing.B) {
	s := storetest.Open(b, &store.Options{Counters: []store.Counter{counter(b)}})
	recs := make([]store.Record, 10_000)
	for i := range recs {
		recs[i] = smallRecord(i)
		if i%100 == 0 {
			recs[i].Kind = "obligation"
		}
		recs[i].Meta = map[string]string{"chapter": fmt.Sprint(i / 40)}
	}
	if _, err := s.PutMany(recs, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		heads, _, err := s.List(store.ListOptions{NS: "bench", Kind: "obligation"})
		if err != nil {
			b.Fatal(err)
		}
		if len(heads) != 100 {
			b.Fatalf("%d obligations, want 100", len(heads))
		}
	}
}

// recentStore holds 2,000 records in "bench" with distinct update times
// (the test clock ticks once a put), some pinned, some updated again, and
// a second namespace that Recent must not see.
func recentStore(tb testing.TB) *store.Store {
	tb.Helper()
	s := storetest.Open(tb, &store.Options{Now: tickClock()})
	for i := range 2000 {
		r := smallRecord(i)
		r.Pinned = i%97 == 0
		if _, err := s.Put(r); err != nil {
			tb.Fatal(err)
		}
		if _, err := s.Put(store.Record{NS: "other", ID: r.ID, Body: "x"}); err != nil {
			tb.Fatal(err)
		}
	}
	for _, i := range []int{5, 1500, 77} { // older records become the newest
		r := smallRecord(i)
		r.Body += " (revised)"
		if _, err := s.Put(r); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func tickClock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// TestRecentAndPinnedAgreeWithList checks Recent and ListOptions.Pinned,
// which read heads without decoding them, against the full List.
func TestRecentAndPinnedAgreeWithList(t *testing.T) {
	s := recentStore(t)
	all, _, err := s.List(store.ListOptions{NS: "bench"})
	if err != nil {
		t.Fatal(err)
	}
	byTime := slices.Clone(all)
	slices.SortFunc(byTime, func(a, b store.Record) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if a.Order != b.Order {
			return int(b.Order - a.Order)
		}
		return strings.Compare(a.ID, b.ID)
	})
	for _, n := range []int{0, 1, 5, 2000, 5000} {
		got, err := s.Recent("bench", n)
		if err != nil {
			t.Fatal(err)
		}
		want := byTime[:min(n, len(byTime))]
		if !slices.EqualFunc(got, want, func(a, b store.Record) bool { return reflect.DeepEqual(a, b) }) {
			t.Errorf("Recent(bench, %d) = %v, want %v", n, ids(got), ids(want))
		}
	}
	if got, _ := s.Recent("bench", 3); len(got) != 3 || got[0].ID != "rec-77" || got[1].ID != "rec-1500" || got[2].ID != "rec-5" {
		t.Errorf("Recent(bench, 3) = %v, want the three revised records, newest first", ids(got))
	}
	var pinned []store.Record
	for _, r := range all {
		if r.Pinned {
			pinned = append(pinned, r)
		}
	}
	got, _, err := s.List(store.ListOptions{NS: "bench", Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pinned) == 0 || !reflect.DeepEqual(got, pinned) {
		t.Errorf("List(Pinned) = %v, want %v", ids(got), ids(pinned))
	}
	for _, bad := range []struct {
		ns string
		n  int
	}{{"bench", -1}, {"Bad NS", 3}} {
		if _, err := s.Recent(bad.ns, bad.n); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Recent(%q, %d) = %v, want ErrInvalid", bad.ns, bad.n, err)
		}
	}
}

// BenchmarkRecent finds the 5 most recent of 2,000 records, the agent
// profile's "recent" pull, against decoding every head with List.
func BenchmarkRecent(b *testing.B) {
	s := recentStore(b)
	b.Run("Recent", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Recent("bench", 5); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("List", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := s.List(store.ListOptions{NS: "bench"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Records written at one time (an import) are recent by their order, the
// latest position first, not by the byte order of their ids.
func TestRecentTiesByOrder(t *testing.T) {
	s := storetest.Open(t, nil)
	var recs []store.Record
	for i := 1; i <= 12; i++ {
		recs = append(recs, store.Record{NS: "talk", ID: fmt.Sprintf("D1:%d", i), Kind: "turn", Order: int64(i), Body: "turn"})
	}
	if _, err := s.PutMany(recs, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Recent("talk", 3)
	if err != nil {
		t.Fatal(err)
	}
	if g := ids(got); g != ids([]store.Record{{ID: "D1:12"}, {ID: "D1:11"}, {ID: "D1:10"}}) {
		t.Errorf("Recent(talk, 3) = %v, want the last three turns", g)
	}
}
