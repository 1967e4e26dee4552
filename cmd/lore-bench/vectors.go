package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/vector"
)

// vectorNS holds every record of the vector benchmark: the scan's cost
// grows with the vectors of one namespace, so they are all in one.
const vectorNS = "vec"

// runVectors is `lore-bench vectors`: the cost of the caller's vectors.
// For each size it stores the bench corpus's records in one namespace,
// each with a random vector (normal in every dimension: no model runs
// here, and the scan's cost does not depend on what the numbers mean),
// then times, over the same seeded queries in the same minutes: the
// vector scan alone (top 50), a search by vector through the facade,
// the agent packet at 8k without a vector and with one.
func runVectors(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lore-bench vectors", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("n", "10000,100000", "record counts, comma-separated")
	dim := fs.Int("dim", 384, "dimensions of every vector")
	queries := fs.Int("queries", 200, "seeded queries timed at each size")
	seed := fs.Uint64("seed", 1, "corpus, vector and query seed")
	budget := fs.Int("budget", 8000, "packet budget in tokens")
	dir := fs.String("dir", "", "work directory (default: a temporary one, removed at the end)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-n %q: want record counts such as 10000,100000: %w", *sizes, errUsage)
		}
		ns = append(ns, n)
	}
	if *dim < 1 || *dim > store.MaxVectorDims || *queries < 1 || *budget < 1 {
		return fmt.Errorf("-dim 1 to %d, -queries and -budget 1 or more: %w", store.MaxVectorDims, errUsage)
	}
	work := *dir
	if work == "" {
		tmp, err := os.MkdirTemp("", "lore-bench-vectors-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	fmt.Fprintf(stdout, "vectors of %d dimensions, %d queries, agent packet at %d tokens; p50 / p99 in ms\n\n", *dim, *queries, *budget)
	fmt.Fprintf(stdout, "| records | ingest s | vector scan top 50 | search by vector | packet, no vector | packet with vector | ratio (p50) |\n")
	fmt.Fprintf(stdout, "|---|---|---|---|---|---|---|\n")
	for _, n := range ns {
		row, err := vectorsAt(ctx, filepath.Join(work, fmt.Sprint(n)), n, *dim, *queries, *seed, *budget)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "| %d | %.1f | %s | %s | %s | %s | %.2f |\n", n, row.ingest.Seconds(),
			pp(row.scan), pp(row.search), pp(row.plain), pp(row.withVec), row.withVec.P50ms/row.plain.P50ms)
	}
	return nil
}

func pp(l latency) string { return fmt.Sprintf("%.2f / %.2f", l.P50ms, l.P99ms) }

type vectorRow struct {
	ingest                       time.Duration
	scan, search, plain, withVec latency
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func vectorsAt(ctx context.Context, dir string, n, dim, nq int, seed uint64, budget int) (vectorRow, error) {
	var row vectorRow
	if err := lore.Init(dir); err != nil {
		return row, err
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		return row, err
	}
	defer l.Close()
	c := corpus{seed: seed, n: n}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	start := time.Now()
	const batch = 1000
	for from := 0; from < n; from += batch {
		recs := make([]store.Record, 0, batch)
		for i := from; i < min(from+batch, n); i++ {
			r := c.record(i)
			r.NS = vectorNS
			r.Vector = randomVector(rng, dim)
			recs = append(recs, r)
		}
		if _, err := l.PutMany(ctx, recs, nil); err != nil {
			return row, err
		}
	}
	if err := l.Flush(); err != nil {
		return row, err
	}
	row.ingest = time.Since(start)

	qs := c.queries(nq)
	vecs := make([][]float32, len(qs))
	for i := range vecs {
		vecs[i] = randomVector(rng, dim)
	}
	// The scan alone: a cache of the bench's own, as the facade keeps one
	// (with the same check of the change log before every search).
	cache, ref := vector.NewCache(0), vector.StoreRef{Src: l.Store(), Key: dir}
	req := func(i int, withVec bool) packet.Request {
		r := packet.Request{NS: vectorNS, Query: qs[i].Text, Budget: budget, Profile: "agent"}
		if withVec {
			r.QueryVector = vecs[i]
		}
		return r
	}
	// One untimed pass of each warms the caches (the vectors are read
	// once per process), as a server's first request would.
	if _, err := cache.Search(ref, vectorNS, vecs[0], 50, vector.Filter{}); err != nil {
		return row, err
	}
	for _, v := range []bool{false, true} {
		if _, err := l.Packet(ctx, req(0, v)); err != nil {
			return row, err
		}
	}
	// The four series interleave, query by query, so that a busy moment
	// of the machine falls on all of them alike.
	var scan, search, plain, withVec []time.Duration
	for i := range qs {
		t := time.Now()
		if _, err := cache.Search(ref, vectorNS, vecs[i], 50, vector.Filter{}); err != nil {
			return row, err
		}
		scan = append(scan, time.Since(t))
		t = time.Now()
		if _, err := l.Search(ctx, index.Query{NS: vectorNS, Vector: vecs[i], Limit: 50}); err != nil {
			return row, err
		}
		search = append(search, time.Since(t))
		for _, v := range []bool{false, true} {
			t = time.Now()
			p, err := l.Packet(ctx, req(i, v))
			if err != nil {
				return row, err
			}
			if _, err := p.Render("md"); err != nil {
				return row, err
			}
			if v {
				withVec = append(withVec, time.Since(t))
			} else {
				plain = append(plain, time.Since(t))
			}
		}
	}
	row.scan, row.search, row.plain, row.withVec = summarize(scan), summarize(search), summarize(plain), summarize(withVec)
	return row, nil
}
