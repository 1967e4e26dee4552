package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/store"
)

// benchCorpus makes n records of about bodyWords words each, drawn from a
// Zipf-like vocabulary so that term statistics look like prose.
func benchCorpus(ns string, start, n, bodyWords int) []store.Record {
	rng := rand.New(rand.NewPCG(uint64(start), 7))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", i*2654435761%1000003)
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(uint64(start), 8)), 1.1, 1, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	out := make([]store.Record, n)
	var sb strings.Builder
	for i := range n {
		sb.Reset()
		for range bodyWords {
			sb.WriteString(word())
			sb.WriteByte(' ')
		}
		out[i] = store.Record{
			NS:      ns,
			ID:      fmt.Sprintf("doc-%08d", start+i),
			Kind:    []string{"character", "scene", "fact", "memory"}[rng.IntN(4)],
			Title:   word() + " " + word() + " " + word(),
			Summary: word() + " " + word() + " " + word() + " " + word() + " " + word(),
			Body:    sb.String(),
			Tags:    []string{fmt.Sprintf("ch-%d", rng.IntN(30)), "draft"},
		}
	}
	return out
}

// BenchmarkApply measures one Apply of 1,000 new records (about 200 words
// each) into a growing index, fsync included.
func BenchmarkApply(b *testing.B) {
	ix, err := Open(filepath.Join(b.TempDir(), "index"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	const batch = 1000
	// Pre-generate a pool so the loop measures indexing, not generation.
	pool := benchCorpus("bench", 0, 10*batch, 200)
	b.ReportAllocs()
	seq, n := uint64(0), 0
	cpu0 := rusage.CPU()
	for b.Loop() {
		recs := make([]store.Record, batch)
		copy(recs, pool[(n%10)*batch:])
		for i := range recs {
			recs[i].ID = fmt.Sprintf("doc-%08d", n*batch+i)
		}
		seq++
		n++
		if err := ix.Apply(recs, nil, seq); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*batch), "µs/record")
	b.ReportMetric(float64((rusage.CPU()-cpu0).Microseconds())/float64(n*batch), "cpu-µs/record")
}

// BenchmarkApplyDefaultMapping is the baseline of issue 5: the same 1,000
// records through bleve's default mapping (dynamic fields, stored values,
// _all, TF-IDF) with Batch.Index.
func BenchmarkApplyDefaultMapping(b *testing.B) {
	bi, err := bleve.New(filepath.Join(b.TempDir(), "index"), bleve.NewIndexMapping())
	if err != nil {
		b.Fatal(err)
	}
	defer bi.Close()
	const batch = 1000
	pool := benchCorpus("bench", 0, 10*batch, 200)
	b.ReportAllocs()
	n := 0
	cpu0 := rusage.CPU()
	for b.Loop() {
		bt := bi.NewBatch()
		for i := range batch {
			r := pool[(n%10)*batch+i]
			if err := bt.Index(docID(r.NS, fmt.Sprintf("doc-%08d", n*batch+i)), r); err != nil {
				b.Fatal(err)
			}
		}
		n++
		if err := bi.Batch(bt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*batch), "µs/record")
	b.ReportMetric(float64((rusage.CPU()-cpu0).Microseconds())/float64(n*batch), "cpu-µs/record")
}

// BenchmarkRebuild measures Rebuild of 5,000 records.
func BenchmarkRebuild(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "index")
	recs := benchCorpus("bench", 0, 5000, 200)
	b.ReportAllocs()
	cpu0 := rusage.CPU()
	for b.Loop() {
		if err := Rebuild(dir, source(recs), 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(recs)), "µs/record")
	b.ReportMetric(float64((rusage.CPU()-cpu0).Microseconds())/float64(b.N*len(recs)), "cpu-µs/record")
}

// BenchmarkSearch searches an index of 20,100 records in three namespaces.
func BenchmarkSearch(b *testing.B) {
	ix, err := Open(filepath.Join(b.TempDir(), "index"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	recs := append(benchCorpus("a", 0, 10000, 200), benchCorpus("b", 10000, 10000, 200)...)
	recs = append(recs, benchCorpus("small", 20000, 100, 200)...)
	if err := ix.Apply(recs, nil, 1); err != nil {
		b.Fatal(err)
	}
	// Words of middling frequency, a phrase, and filters.
	sample := benchCorpus("a", 0, 1, 200)[0]
	words := strings.Fields(sample.Body)
	queries := map[string]Query{
		"words":         {NS: "a", Text: words[3] + " " + words[10] + " " + words[50]},
		"phrase":        {NS: "a", Text: `"` + words[20] + " " + words[21] + `"`},
		"words+filters": {NS: "a", Text: words[3] + " " + words[10], Kinds: []string{"scene"}, Tags: []string{"draft"}},
		"list kind":     {NS: "b", Kinds: []string{"fact"}},
		// A small namespace beside big ones: the cost of the others' matches.
		"small ns": {NS: "small", Text: words[3] + " " + words[10] + " " + words[50]},
	}
	for _, name := range []string{"words", "phrase", "words+filters", "list kind", "small ns"} {
		q := queries[name]
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			hits := 0
			for b.Loop() {
				h, err := ix.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				hits = len(h)
			}
			if hits == 0 {
				b.Fatalf("query %+v found nothing", q)
			}
		})
	}
}
