package store_test

import (
	"fmt"
	"testing"

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
