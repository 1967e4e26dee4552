package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// TestMain lets the test binary stand in for lore-bench: the phase
// sub-processes that run() starts re-execute os.Executable().
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCorpusDeterministic(t *testing.T) {
	a, b := corpus{seed: 7, n: 500}, corpus{seed: 7, n: 500}
	ra, la := a.batch(100, 200)
	rb, lb := b.batch(100, 200)
	if !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(la, lb) {
		t.Fatal("the same seed gave different records or links")
	}
	// A record does not depend on the batch it is generated in.
	one, _ := a.batch(150, 151)
	if !reflect.DeepEqual(one[0], ra[50]) {
		t.Errorf("record 150 alone differs from record 150 in a batch:\n%+v\n%+v", one[0], ra[50])
	}
	rc, _ := corpus{seed: 8, n: 500}.batch(100, 200)
	if reflect.DeepEqual(ra, rc) {
		t.Error("seeds 7 and 8 gave the same records")
	}
	if qa, qb := a.queries(30), b.queries(30); !reflect.DeepEqual(qa, qb) {
		t.Error("the same seed gave different queries")
	}
}

func TestCorpusShape(t *testing.T) {
	const n = 3000
	c := corpus{seed: 1, n: n}
	recs, links := c.batch(0, n)
	kinds := map[string]int{}
	summaries := 0
	index := map[string]store.Record{}
	for _, r := range recs {
		if err := store.ValidNamespace(r.NS); err != nil {
			t.Fatalf("record %s: %v", r.ID, err)
		}
		if err := store.ValidID(r.ID); err != nil {
			t.Fatalf("record %s: %v", r.ID, err)
		}
		if r.Body == "" || r.Title == "" {
			t.Fatalf("record %s has no title or body: %+v", r.ID, r)
		}
		if r.Summary != "" {
			summaries++
		}
		kinds[r.Kind]++
		index[r.ID] = r
	}
	if f := float64(summaries) / n; f < 0.28 || f > 0.39 {
		t.Errorf("%.2f of records have a summary, want about a third", f)
	}
	if per := float64(len(links)) / n; per < 3.3 || per > 4.5 {
		t.Errorf("%.2f links a record, want about 4", per)
	}
	for _, l := range links {
		to, ok := index[l.To]
		if !ok || to.NS != l.NS || l.To >= l.From {
			t.Fatalf("link %+v: want a target earlier in the same namespace (target %+v)", l, to)
		}
	}
	// Kinds of both profiles, and a bounded number of core memories.
	for _, k := range []string{"scene", "character", "timeline", "obligation", "memory", "core"} {
		if kinds[k] == 0 {
			t.Errorf("no record of kind %q in %v", k, kinds)
		}
	}
	if kinds["core"] != 2*coreRecords {
		t.Errorf("%d core records, want %d (two agent namespaces)", kinds["core"], 2*coreRecords)
	}
	// Novel queries focus a scene of their namespace.
	for _, q := range c.queries(50) {
		if q.Focus == "" {
			continue
		}
		if r := index[q.Focus]; r.Kind != "scene" || r.NS != q.NS {
			t.Errorf("query %+v focuses %s (kind %q, ns %q), want a scene of %s", q, q.Focus, r.Kind, r.NS, q.NS)
		}
	}
}

// TestCorpusTokenSizes checks the sizes with the real counter: about 50
// to 2,000 tokens a record.
func TestCorpusTokenSizes(t *testing.T) {
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := corpus{seed: 3, n: 2000}.batch(0, 2000)
	lo, hi := 1<<30, 0
	for i := range recs {
		r := &recs[i]
		k := counter.Count(r.Title) + counter.Count(r.Summary) + counter.Count(r.Body)
		lo, hi = min(lo, k), max(hi, k)
	}
	if lo < 40 || lo > 120 || hi < 1200 || hi > 2300 {
		t.Errorf("record sizes %d..%d tokens, want about 50..2000", lo, hi)
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted input
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := summarize(ds)
	want := latency{Count: 100, P50ms: 50, P95ms: 95, P99ms: 99, Meanms: 50.5}
	if got != want {
		t.Errorf("summarize(1..100 ms) = %+v, want %+v", got, want)
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("summarize sorted its input in place")
	}
	if got := summarize(nil); got != (latency{}) {
		t.Errorf("summarize(nil) = %+v, want zero", got)
	}
}

func TestParseFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		quote string
	}{
		{[]string{"-n", "0"}, "-n 0"},
		{[]string{"-queries", "-3"}, "-queries -3"},
		{[]string{"-batch", "0"}, "-batch 0"},
		{[]string{"-cold-runs", "-1"}, "-cold-runs -1"},
		{[]string{"-scale-1m"}, "-scale-1m"},
		{[]string{"-phase", "warp"}, `"warp"`},
		{[]string{"-phase", "count"}, "needs -dir"},
		{[]string{"-packets-out", "p.txt"}, "-packets-out p.txt needs -phase packets"},
		{[]string{"-phase", "count", "-dir", "d", "-packets-out", "p.txt"}, "needs -phase packets"},
		{[]string{"extra"}, `"extra"`},
		{[]string{"-n", "many"}, "many"},
	} {
		_, err := parseFlags(tc.args, io.Discard)
		if !errors.Is(err, errUsage) {
			t.Errorf("parseFlags(%q) = %v, want errUsage", tc.args, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.quote) {
			t.Errorf("parseFlags(%q) = %q, want it to quote %q", tc.args, err, tc.quote)
		}
	}
	c, err := parseFlags([]string{"-scale", "-scale-1m", "-json", "x.json"}, io.Discard)
	if err != nil || !c.scale || !c.scale1M || c.jsonFile != "x.json" || c.n != 10000 || c.queries != 1000 {
		t.Errorf("parseFlags(-scale -scale-1m -json x.json) = %+v, %v", c, err)
	}
}

func TestVmHWM(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if got := vmHWM(); got < 1<<20 {
		t.Errorf("vmHWM() = %d bytes, want at least 1 MiB", got)
	}
}

// TestRunSmall runs the whole program at a small N (every phase as a
// sub-process, no cold CLI) and checks the figures it reports against
// the store it built.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sub-processes")
	}
	dir := t.TempDir()
	jsonFile := filepath.Join(dir, "bench.json")
	var out strings.Builder
	args := []string{"-n", "240", "-queries", "12", "-cold-runs", "0", "-count-max", "100",
		"-batch", "100", "-json", jsonFile, "-dir", filepath.Join(dir, "work")}
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(rep.Runs))
	}
	r := rep.Runs[0]
	if r.N != 240 || r.IngestLore.Records != 240 || r.IngestBleve.Records != 240 {
		t.Errorf("n %d, records %d (lore) %d (bleve), want 240", r.N, r.IngestLore.Records, r.IngestBleve.Records)
	}
	if r.IngestLore.Bytes != r.IngestBleve.Bytes || r.IngestLore.Bytes == 0 {
		t.Errorf("text bytes %d (lore) vs %d (bleve): want the same corpus", r.IngestLore.Bytes, r.IngestBleve.Bytes)
	}
	for _, scope := range []string{"scene", "chapter"} {
		if l := r.Packets.Latency[scope]; l.Count != 12 || l.P50ms <= 0 || l.P99ms < l.P50ms {
			t.Errorf("packet latency %s = %+v, want 12 samples with p99 >= p50 > 0", scope, l)
		}
	}
	if own := r.Packets.Latency["search"]; own.Count != 12 || own.Hits == 0 {
		t.Errorf("Lore search = %+v, want 12 queries that find something", own)
	}
	if base := r.SearchBleve.Latency["top50"]; base.Count != 12 || base.Hits == 0 {
		t.Errorf("baseline search = %+v, want 12 queries that find something", base)
	}
	for name, p := range map[string]phaseResult{"ingest-lore": r.IngestLore, "ingest-bleve": r.IngestBleve, "packets": r.Packets, "search-bleve": r.SearchBleve} {
		if p.Phase != name || p.PeakRSS <= 0 || p.PeakAnon <= 0 || p.PeakAnon > p.PeakRSS || p.CPUSeconds <= 0 || p.Seconds <= 0 {
			t.Errorf("phase %s: %+v, want its name, RSS, CPU and time", name, p)
		}
	}
	for _, p := range []phaseResult{r.IngestLore, r.IngestBleve} {
		if p.GenCPUSeconds <= 0 || p.GenCPUSeconds >= p.CPUSeconds {
			t.Errorf("phase %s: generation CPU %.3f s of %.3f s, want a positive part of it", p.Phase, p.GenCPUSeconds, p.CPUSeconds)
		}
	}
	if r.DiskLore <= 0 || r.DiskBleve <= 0 || r.Derived.IngestTimeRatio <= 0 || r.Derived.SceneP50Ratio <= 0 {
		t.Errorf("disk %d/%d, ratios %+v: want all positive", r.DiskLore, r.DiskBleve, r.Derived)
	}
	if rep.Counting.Records != 100 || rep.Counting.Tokens < 100*40 || rep.Counting.TokensPerS <= 0 {
		t.Errorf("counting = %+v, want 100 records of 40+ tokens", rep.Counting)
	}
	// The table carries the same figures.
	for _, want := range []string{"INGEST", "PACKETS", "SEARCH ALONE", "COLD CLI", "COUNTING", "scene 8000", "chapter 20000"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	// -print shows the same table from the JSON.
	var again strings.Builder
	if err := run(context.Background(), []string{"-print", jsonFile}, &again, io.Discard); err != nil {
		t.Fatal(err)
	}
	if again.String() != out.String() {
		t.Errorf("-print gave\n%s\nwant the run's table\n%s", again.String(), out.String())
	}

	// The store the benchmark built holds the corpus, and its index all of it.
	l, err := lore.Open(loreDir(filepath.Join(dir, "work", "n240")), &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	st, err := l.Stats("")
	if err != nil {
		t.Fatal(err)
	}
	_, links := corpus{seed: 1, n: 240}.batch(0, 240)
	if st.Records != 240 || st.Links != len(links) || len(st.Namespaces) != len(namespaces) {
		t.Errorf("store has %d records, %d links, %d namespaces; want 240, %d, %d", st.Records, st.Links, len(st.Namespaces), len(links), len(namespaces))
	}
	if l.Stale() {
		t.Error("the index lags the store after the ingest phase")
	}
}

func TestQueriesAlternateAndTinyCorpus(t *testing.T) {
	qs := corpus{seed: 2, n: 5000}.queries(40)
	for i, q := range qs {
		want := "novel"
		if i%2 == 1 {
			want = "agent"
		}
		if q.Profile != want || (want == "novel") != (q.Focus != "") {
			t.Errorf("query %d = %+v, want profile %s (novel with a focus)", i, q, want)
		}
	}
	// One record: no scene, no agent namespace; queries still come.
	if qs := (corpus{seed: 2, n: 1}).queries(4); len(qs) != 4 {
		t.Errorf("%d queries over one record, want 4", len(qs))
	}
}

func TestDerive(t *testing.T) {
	run := func(n int, loreS, loreCPU, bleveS, bleveCPU, p50 float64) sizeRun {
		return sizeRun{
			N:           n,
			IngestLore:  phaseResult{Seconds: loreS, CPUSeconds: loreCPU + 1, GenCPUSeconds: 1, Bytes: int64(n) * 1000},
			IngestBleve: phaseResult{Seconds: bleveS, CPUSeconds: bleveCPU + 1, GenCPUSeconds: 1},
			Packets:     phaseResult{Latency: map[string]latency{"scene": {P50ms: p50}, "chapter": {P50ms: 2 * p50}}},
			SearchBleve: phaseResult{Latency: map[string]latency{"top50": {P50ms: 0.5}}},
			DiskLore:    int64(n) * 7000,
		}
	}
	rep := report{Runs: []sizeRun{run(1000, 2, 3, 5, 6, 4), run(10000, 26, 33, 50, 66, 10)}}
	for i := range rep.Runs {
		rep.Runs[i].derive()
	}
	rep.derive()
	if len(rep.Scale) != 1 || rep.Scale[0].From != 1000 || rep.Scale[0].To != 10000 {
		t.Fatalf("scale = %+v, want one step 1000 -> 10000", rep.Scale)
	}
	a, b := rep.Runs[0].Derived, rep.Runs[1].Derived
	near := func(got, want float64) bool { return got > want-1e-9 && got < want+1e-9 }
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"ingest time ratio", a.IngestTimeRatio, 0.4},
		{"ingest cpu ratio (generation excluded)", a.IngestCPURatio, 0.5},
		{"lore µs/record", a.LoreUsPerRecord, 2000},
		{"lore cpu µs/record", a.LoreCPUUsPerRec, 3000},
		{"lore MB/s", a.LoreMBPerS, 1000 * 1000 / float64(1<<20) / 2},
		{"scene p50 ratio", a.SceneP50Ratio, 8},
		{"chapter p50 ratio", a.ChapterP50Ratio, 16},
		{"disk bytes/record", b.LoreBytesPerRec, 7000},
		{"ingest cost growth", rep.Scale[0].IngestCostGrowth, 0.3},
		{"ingest cpu cost growth", rep.Scale[0].IngestCPUCostGrowth, 0.1},
		{"scene p50 growth", rep.Scale[0].SceneP50Growth, 2.5},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	one := report{Runs: rep.Runs[:1]}
	one.derive()
	if one.Scale != nil {
		t.Error("a single size has scale figures")
	}
}
