package lore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// The facade's hot paths, end to end on a real store (bbolt, bleve, the
// o200k counter): PutMany with its index catch-up, and a packet. The
// larger, seeded comparison with bleve alone is cmd/lore-bench.

// benchWords is a small vocabulary: common words first, so a Zipf draw
// gives prose-like term statistics.
var benchWords = strings.Fields(`the of and to a in that it was he for on with as his
is at by she had her from be this not light house night sea water hand eyes
door wind fire road stone ship tower lamp keeper harbor river field winter
summer morning evening voice king queen city village forest mountain letter
book word dream truth secret promise shadow memory storm rain bridge wall
garden market bell captain mother father brother sister friend stranger`)

// benchRecords returns n records (ids from start) of about 200 words in
// ns, with two links each to earlier records.
func benchRecords(ns string, start, n int) ([]store.Record, []store.Link) {
	rng := rand.New(rand.NewPCG(uint64(start), 11))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(benchWords)-1))
	kinds := []string{"scene", "character", "fact", "location", "timeline"}
	recs := make([]store.Record, n)
	var links []store.Link
	var sb strings.Builder
	for i := range recs {
		sb.Reset()
		for range 150 + rng.IntN(100) {
			sb.WriteString(benchWords[zipf.Uint64()])
			sb.WriteByte(' ')
		}
		id := fmt.Sprintf("r%06d", start+i)
		recs[i] = store.Record{NS: ns, ID: id, Kind: kinds[(start+i)%len(kinds)],
			Title: benchWords[zipf.Uint64()] + " " + benchWords[zipf.Uint64()], Body: sb.String(), Order: int64(start + i + 1)}
		if i%3 == 0 {
			recs[i].Summary = "In short: " + benchWords[zipf.Uint64()] + " and " + benchWords[zipf.Uint64()] + "."
		}
		for k := range 2 {
			if j := start + i - 1 - rng.IntN(20) - k; j >= 0 {
				links = append(links, store.Link{NS: ns, From: id, Rel: "mentions", To: fmt.Sprintf("r%06d", j)})
			}
		}
	}
	return recs, links
}

func benchOpen(b *testing.B) *lore.Lore {
	b.Helper()
	dir := filepath.Join(b.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		b.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

// BenchmarkPutMany1000 puts 1,000 new records (and 2,000 links) per
// operation through the facade: validation, counting, bbolt, change log
// and the index catch-up, fsyncs included.
func BenchmarkPutMany1000(b *testing.B) {
	l := benchOpen(b)
	ctx := context.Background()
	const batch = 1000
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		recs, links := benchRecords("bench", n, batch)
		b.StartTimer()
		if _, err := l.PutMany(ctx, recs, links); err != nil {
			b.Fatal(err)
		}
		n += batch
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n), "µs/record")
}

// BenchmarkPacket builds and renders a scene packet (focus, a query, one
// hop) through the facade on a store of 5,000 records.
func BenchmarkPacket(b *testing.B) {
	l := benchOpen(b)
	ctx := context.Background()
	recs, links := benchRecords("bench", 0, 5000)
	if _, err := l.PutMany(ctx, recs, links); err != nil {
		b.Fatal(err)
	}
	for _, budget := range []int{8000, 20000} {
		b.Run(fmt.Sprint("budget=", budget), func(b *testing.B) {
			req := packet.Request{NS: "bench", Focus: []string{"r002500"}, Query: "lamp keeper storm", Budget: budget}
			b.ReportAllocs()
			for b.Loop() {
				p, err := l.Packet(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Render("md"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
