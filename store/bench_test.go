package store_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
)

func smallRecord(i int) store.Record {
	id := "rec-" + strconv.Itoa(i)
	return store.Record{NS: "bench", ID: id, Kind: "memory", Title: "memory " + id,
		Body: "The keeper noted ship " + id + " passing the rocks at dusk.", Tags: []string{"log"}}
}

func BenchmarkPut(b *testing.B) {
	s := storetest.Open(b, &store.Options{Counters: []store.Counter{counter(b)}})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Put(smallRecord(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPutMany1000(b *testing.B) {
	s := storetest.Open(b, &store.Options{Counters: []store.Counter{counter(b)}})
	b.ReportAllocs()
	n := 0
	recs := make([]store.Record, 1000)
	for b.Loop() {
		for j := range recs {
			recs[j] = smallRecord(n)
			n++
		}
		if _, err := s.PutMany(recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}

// BenchmarkPutManyOneTx puts n records in one PutMany (one
// transaction, as an import does) into a new store, with the clock
// advancing per record as time.Now does.
func BenchmarkPutManyOneTx(b *testing.B) {
	for _, n := range []int{10_000, 20_000, 40_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			recs := make([]store.Record, n)
			for i := range recs {
				recs[i] = smallRecord(i)
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				s, err := store.Open(filepath.Join(b.TempDir(), "lore.bolt"), &store.Options{Now: clock()})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := s.PutMany(recs, nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
		})
	}
}

func benchReadStore(b *testing.B) *store.Store {
	s := storetest.Open(b, &store.Options{Counters: []store.Counter{counter(b)}})
	recs := make([]store.Record, 10_000)
	for i := range recs {
		recs[i] = smallRecord(i)
	}
	if _, err := s.PutMany(recs, nil); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkGet(b *testing.B) {
	s := benchReadStore(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Get("bench", "rec-"+strconv.Itoa(i%10_000)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkHead(b *testing.B) {
	s := benchReadStore(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := s.Head("bench", "rec-"+strconv.Itoa(i%10_000)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestPutMany100k measures one PutMany of 100,000 small records with the
// real tokenizer. It runs only when LORE_MEASURE=1 (it takes seconds); the
// time is logged, never asserted.
func TestPutMany100k(t *testing.T) {
	if os.Getenv("LORE_MEASURE") != "1" {
		t.Skip("set LORE_MEASURE=1 to measure")
	}
	s := storetest.Open(t, &store.Options{Counters: []store.Counter{counter(t)}})
	recs := make([]store.Record, 100_000)
	for i := range recs {
		recs[i] = smallRecord(i)
	}
	cpu0 := rusage.CPU()
	start := time.Now()
	res, err := s.PutMany(recs, nil)
	elapsed := time.Since(start)
	cpu := rusage.CPU() - cpu0
	if err != nil {
		t.Fatal(err)
	}
	st, _ := s.Stats("")
	t.Logf("PutMany of %d records: %v wall (%.1f µs/record), %v CPU, file %d MB", len(res), elapsed.Round(time.Millisecond),
		float64(elapsed.Microseconds())/float64(len(res)), cpu.Round(time.Millisecond), st.FileBytes>>20)
	start = time.Now()
	_, err = s.PutMany(recs, nil)
	t.Logf("the same 100,000 again (all unchanged): %v, %v", time.Since(start), err)
}

// BenchmarkHeads reads the heads of 400 records spread over the store in
// one call, as a packet reads its candidates'.
func BenchmarkHeads(b *testing.B) {
	s := benchReadStore(b)
	ids := spreadIDs(400, 25)
	b.ReportAllocs()
	for b.Loop() {
		if hs, err := s.Heads("bench", ids); err != nil || len(hs) != len(ids) {
			b.Fatal(len(hs), err)
		}
	}
}

// BenchmarkNeighborsOf reads the one-hop neighbours of 400 records of a
// 10,000-record store with four links each, in one call, as a packet
// reads its hits'.
func BenchmarkNeighborsOf(b *testing.B) {
	s := storetest.Open(b, &store.Options{Counters: []store.Counter{counter(b)}})
	recs := make([]store.Record, 10_000)
	var links []store.Link
	for i := range recs {
		recs[i] = smallRecord(i)
		for _, d := range []int{1, 7} {
			links = append(links, store.Link{NS: "bench", From: "rec-" + strconv.Itoa(i), Rel: "next", To: "rec-" + strconv.Itoa((i+d)%len(recs))})
		}
	}
	if _, err := s.PutMany(recs, links); err != nil {
		b.Fatal(err)
	}
	ids := spreadIDs(400, 25)
	b.ReportAllocs()
	for b.Loop() {
		if nbs, err := s.NeighborsOf("bench", ids, nil); err != nil || len(nbs) != len(ids) {
			b.Fatal(len(nbs), err)
		}
	}
}

// spreadIDs is n ids of smallRecord, every step-th, sorted.
func spreadIDs(n, step int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "rec-" + strconv.Itoa(i*step)
	}
	slices.Sort(ids)
	return ids
}
