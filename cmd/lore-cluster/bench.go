package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/etcdmember"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// runBench is `lore-cluster bench`: the same seeded corpus and queries
// on a bbolt store and on a 3-member loopback cluster, in one run, so the
// figures sit beside their baseline (BENCHMARKS.md).
func runBench(args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("lore-cluster bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	n := fl.Int("n", 10000, "records")
	queries := fl.Int("queries", 300, "packet queries per backend")
	batch := fl.Int("batch", 500, "records per PutMany")
	if err := fl.Parse(args); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "lore-cluster-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	recs := corpus(*n)
	qs := benchQueries(*queries)

	bolt := filepath.Join(work, "bolt")
	if err := lore.Init(bolt); err != nil {
		return err
	}
	rb, err := benchOne(bolt, nil, "", recs, qs, *batch)
	if err != nil {
		return fmt.Errorf("bbolt: %w", err)
	}

	ms, stop, err := startBenchCluster(work, stderr)
	if err != nil {
		return err
	}
	defer stop()
	url := etcdmember.StoreURL(ms, "bench")
	if err := lore.Init(url); err != nil {
		return err
	}
	re, err := benchOne(url, &lore.Options{LocalDir: filepath.Join(work, "local-a")}, filepath.Join(work, "local-b"), recs, qs, *batch)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	st, err := memberStatus(url)
	if err != nil {
		return err
	}
	fi, err := os.Stat(filepath.Join(bolt, lore.BoltFile))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "N = %d records, batches of %d, %d packet queries (budget 4000), one run\n\n", *n, *batch, *queries)
	printBenchTable(stdout, *n, rb, re)
	fmt.Fprintf(stdout, "\nsize after ingest: bbolt file %.1f MiB; etcd member db %.1f MiB (in use %.1f MiB, before any compaction)\n",
		float64(fi.Size())/(1<<20), float64(st.DbSize)/(1<<20), float64(st.DbSizeInUse)/(1<<20))
	return nil
}

// startBenchCluster starts a 3-member loopback cluster under work and
// waits until every member is ready; stop kills the members, the last
// started first.
func startBenchCluster(work string, stderr io.Writer) (ms []etcdmember.Member, stop func(), err error) {
	if ms, err = etcdmember.Plan(3); err != nil {
		return nil, nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	var started []*exec.Cmd
	stop = func() {
		for _, c := range slices.Backward(started) {
			c.Process.Kill()
			c.Wait()
		}
	}
	ready := make(chan error, 3)
	for _, m := range ms {
		c, err := startMember(self, spec{Member: m, Cluster: etcdmember.InitialCluster(ms), Dir: filepath.Join(work, m.Name)}, stderr, ready)
		if err != nil {
			stop()
			return nil, nil, err
		}
		started = append(started, c)
	}
	for range ms {
		if err := <-ready; err != nil {
			stop()
			return nil, nil, err
		}
	}
	return ms, stop, nil
}

// memberStatus asks the first member of the cluster at url for its status
// (the size of its database).
func memberStatus(url string) (*clientv3.StatusResponse, error) {
	eps, _, _ := etcdstore.ParseURL(url)
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps})
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	return cli.Status(context.Background(), eps[0])
}

// printBenchTable prints one row per backend: ingest rate of n records,
// packet latency and, with a second node, its index lag.
func printBenchTable(stdout io.Writer, n int, rs ...benchResult) {
	fmt.Fprintf(stdout, "| backend | ingest rec/s | packet p50 | packet p99 | index lag on a 2nd node p50 / max |\n|---|---:|---:|---:|---:|\n")
	for _, r := range rs {
		lag := "n/a (one process)"
		if len(r.lags) > 0 {
			lag = fmt.Sprintf("%s / %s", pct(r.lags, 50), pct(r.lags, 100))
		}
		fmt.Fprintf(stdout, "| %s | %.0f | %s | %s | %s |\n", r.name, float64(n)/r.ingest.Seconds(), pct(r.packets, 50), pct(r.packets, 99), lag)
	}
}

type benchResult struct {
	name    string
	ingest  time.Duration
	packets []time.Duration
	lags    []time.Duration
}

// benchOne ingests recs into the store at name and times packets; with
// other set (etcd), a second node with its own local index measures how
// long after each acknowledged batch its watch has indexed it.
func benchOne(name string, opts *lore.Options, other string, recs []store.Record, qs []string, batch int) (benchResult, error) {
	r := benchResult{name: "bbolt"}
	if other != "" {
		r.name = "etcd, 3 members"
	}
	l, err := lore.Open(name, opts)
	if err != nil {
		return r, err
	}
	defer l.Close()
	var b *lore.Lore
	if other != "" {
		if b, err = lore.Open(name, &lore.Options{LocalDir: other}); err != nil {
			return r, err
		}
		defer b.Close()
	}
	ctx := context.Background()
	start := time.Now()
	for i := 0; i < len(recs); i += batch {
		res, err := l.PutMany(ctx, recs[i:min(i+batch, len(recs))], nil)
		if err != nil {
			return r, err
		}
		if b != nil {
			acked := time.Now()
			seq := res[len(res)-1].Seq
			for {
				wm, err := b.IndexWatermark()
				if err != nil {
					return r, err
				}
				if wm >= seq {
					break
				}
				time.Sleep(200 * time.Microsecond)
			}
			r.lags = append(r.lags, time.Since(acked))
		}
	}
	r.ingest = time.Since(start)
	if b != nil {
		r.ingest -= sum(r.lags) // the waits for the other node are not ingest
	}
	for _, q := range qs {
		t := time.Now()
		if _, err := l.Packet(ctx, packet.Request{NS: "bench", Query: q, Budget: 4000}); err != nil {
			return r, err
		}
		r.packets = append(r.packets, time.Since(t))
	}
	return r, nil
}

func sum(ds []time.Duration) time.Duration {
	var s time.Duration
	for _, d := range ds {
		s += d
	}
	return s
}

// pct is the p-th percentile (nearest rank) of ds.
func pct(ds []time.Duration, p int) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := max(0, (len(s)*p+99)/100-1)
	return s[min(i, len(s)-1)].Round(10 * time.Microsecond).String()
}

var benchWords = strings.Fields("harbour lantern keeper tide bell reef chart surveyor light storm gull rope ledger " +
	"cliff headland beacon oil wick glass shutter signal ship wreck salt fog horn quay net mast anchor")

// corpus is n seeded records of ~80 words each.
func corpus(n int) []store.Record {
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]store.Record, n)
	for i := range recs {
		var b strings.Builder
		for w := range 80 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(benchWords[rng.IntN(len(benchWords))])
		}
		recs[i] = store.Record{NS: "bench", ID: fmt.Sprintf("r%06d", i), Kind: "note",
			Title: benchWords[rng.IntN(len(benchWords))] + " " + benchWords[rng.IntN(len(benchWords))], Body: b.String()}
	}
	return recs
}

func benchQueries(n int) []string {
	rng := rand.New(rand.NewPCG(3, 4))
	qs := make([]string, n)
	for i := range qs {
		qs[i] = benchWords[rng.IntN(len(benchWords))] + " " + benchWords[rng.IntN(len(benchWords))]
	}
	return qs
}
