package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/packet"
)

// Phases run one at a time, each in its own sub-process of this binary,
// so each gets its own peak RSS (VmHWM) and its own CPU time.
const (
	phaseIngestLore  = "ingest-lore"
	phaseIngestBleve = "ingest-bleve"
	phasePackets     = "packets"
	phaseSearchBleve = "search-bleve"
	phaseSearchLore  = "search-lore"
	phaseIngestFTS5  = "ingest-fts5"
	phaseSearchFTS5  = "search-fts5"
	phaseCount       = "count"
)

var phaseNames = []string{phaseIngestLore, phaseIngestBleve, phasePackets, phaseSearchBleve, phaseSearchLore, phaseCount, phaseIngestFTS5, phaseSearchFTS5}

// Budgets of the packet phase: the scene and chapter scopes.
var packetBudgets = []packetBudget{{"scene", 8000}, {"chapter", 20000}}

// packetBudget is a scope a latency phase builds its packets at.
type packetBudget struct {
	scope  string
	tokens int
}

// warmup is the number of queries run untimed before a latency phase.
const warmup = 20

// phaseArgs is what a phase sub-process is told.
type phaseArgs struct {
	Phase      string
	N          int
	Seed       uint64
	Queries    int
	Batch      int
	CountMax   int
	Dir        string // the run's work directory
	CPUProfile string // write a CPU profile of the phase here
	PacketsOut string // packets phase: write each packet's sha256 or refusal here
}

// Phase results. Times are wall seconds of the measured work only (corpus
// generation is excluded); CPU and RSS are the sub-process's whole life.
type phaseResult struct {
	Phase      string  `json:"phase"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
	// At the end of the phase: resident anonymous memory (the Go heap and
	// stacks) and resident file pages (the mmapped bbolt file and index
	// segments, which the kernel can drop at will), and the most heap the
	// Go runtime obtained from the OS.
	RSSAnon int64 `json:"rss_anon_bytes"`
	// PeakAnon is the largest RssAnon seen by a sampler polling every
	// 100 ms: the peak of the process's own memory, without the mmapped
	// files that VmHWM also counts.
	PeakAnon int64 `json:"peak_rss_anon_bytes"`
	RSSFile  int64 `json:"rss_file_bytes"`
	HeapSys  int64 `json:"go_heap_sys_bytes"`
	// MajorFaults is the pages the process read from disk (page faults
	// the page cache could not serve): a query phase with many read a
	// store the cache did not hold.
	MajorFaults int64 `json:"major_faults"`

	// Ingest and count.
	// GenCPUSeconds is the CPU the process used while generating the
	// corpus (between the measured calls); it is subtracted from the
	// phase's CPU in the derived per-record figures.
	GenCPUSeconds float64 `json:"gen_cpu_seconds,omitempty"`

	Records int   `json:"records,omitempty"`
	Links   int   `json:"links,omitempty"`
	Bytes   int64 `json:"bytes,omitempty"`
	Tokens  int64 `json:"tokens,omitempty"`

	// Count: tokens per record at the 1st, 50th and 99th percentiles.
	TokensP1  int `json:"tokens_p1,omitempty"`
	TokensP50 int `json:"tokens_p50,omitempty"`
	TokensP99 int `json:"tokens_p99,omitempty"`

	// Packets and search, one entry per budget ("scene", "chapter"; the
	// baseline search has one entry, "top50").
	Latency map[string]latency `json:"latency,omitempty"`
}

// latency summarises one latency series.
type latency struct {
	Count    int     `json:"count"`
	P50ms    float64 `json:"p50_ms"`
	P95ms    float64 `json:"p95_ms"`
	P99ms    float64 `json:"p99_ms"`
	Meanms   float64 `json:"mean_ms"`
	Deferred int     `json:"deferred,omitempty"` // packets that deferred something (exit 2)
	Refused  int     `json:"refused,omitempty"`  // packets whose protected content did not fit (exit 3)
	Hits     float64 `json:"mean_hits,omitempty"`
	Tokens   float64 `json:"mean_tokens,omitempty"`
	// Packets whose names came from the process's cache (packet.NameStats)
	// and packets that read them from the store, over the timed packets.
	NameHits   int64 `json:"name_hits,omitempty"`
	NameMisses int64 `json:"name_misses,omitempty"`
	// Fragment counts from the process's cache and counted
	// (packet.FragmentStats), over the timed packets.
	FragmentHits   int64 `json:"fragment_hits,omitempty"`
	FragmentMisses int64 `json:"fragment_misses,omitempty"`
	// Bodies read ahead, and of those the ones the build then loaded
	// (packet.BodiesAheadStats), over the timed packets.
	AheadRead int64 `json:"ahead_read,omitempty"`
	AheadUsed int64 `json:"ahead_used,omitempty"`
}

func summarize(d []time.Duration) latency {
	if len(d) == 0 {
		return latency{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	pct := func(p float64) float64 {
		i := int(p*float64(len(s))+0.5) - 1
		i = min(max(i, 0), len(s)-1)
		return ms(s[i])
	}
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	return latency{Count: len(s), P50ms: pct(0.50), P95ms: pct(0.95), P99ms: pct(0.99), Meanms: ms(sum) / float64(len(s))}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Paths inside a run's work directory.
func loreDir(dir string) string  { return filepath.Join(dir, "lore") }
func bleveDir(dir string) string { return filepath.Join(dir, "bleve") }

// fts5File is the SQLite FTS5 baseline's database (fts5.go).
func fts5File(dir string) string { return filepath.Join(dir, "fts5", "fts.db") }

// runPhase runs one phase in this process.
func runPhase(a phaseArgs) (phaseResult, error) {
	if a.CPUProfile != "" {
		f, err := os.Create(a.CPUProfile)
		if err != nil {
			return phaseResult{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return phaseResult{}, err
		}
		defer pprof.StopCPUProfile()
	}
	c := corpus{seed: a.Seed, n: a.N}
	var res phaseResult
	var err error
	stop := make(chan struct{})
	peak := make(chan int64)
	go sampleAnon(stop, peak)
	switch a.Phase {
	case phaseIngestLore:
		res, err = ingestLore(c, a)
	case phaseIngestBleve:
		res, err = ingestBleve(c, a)
	case phasePackets:
		res, err = packets(c, a)
	case phaseIngestFTS5:
		res, err = ingestFTS5(c, a)
	case phaseSearchFTS5:
		res, err = searchFTS5(c, a)
	case phaseSearchBleve:
		res, err = searchBleve(c, a)
	case phaseSearchLore:
		res, err = searchLore(c, a)
	case phaseCount:
		res, err = count(c, a)
	default:
		return res, fmt.Errorf("phase %q: want one of %s: %w", a.Phase, strings.Join(phaseNames, ", "), errUsage)
	}
	close(stop)
	res.PeakAnon = <-peak
	res.Phase = a.Phase
	st := procStatus()
	res.PeakRSS, res.RSSAnon, res.RSSFile = st["VmHWM"], st["RssAnon"], st["RssFile"]
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapSys = int64(ms.HeapSys)
	res.MajorFaults = rusage.MajorFaults()
	return res, err
}

// ingestLore puts the corpus through Lore's PutMany in batches: validation,
// token counting, bbolt, the change log and the bleve catch-up.
func ingestLore(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	dir := loreDir(a.Dir)
	var spent time.Duration
	start := time.Now()
	if err := lore.Init(dir); err != nil {
		return res, err
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		return res, err
	}
	spent += time.Since(start)
	ctx := context.Background()
	for ahead := range c.ahead(a.Batch) {
		// PutMany returns while the index takes the batch in, so Lore is
		// idle (Flush) before the untimed generation of the next batches.
		t := time.Now()
		if err := l.Flush(); err != nil {
			l.Close()
			return res, err
		}
		spent += time.Since(t)
		g := rusage.CPU()
		batches := ahead()
		res.GenCPUSeconds += (rusage.CPU() - g).Seconds()
		for _, b := range batches {
			for i := range b.recs {
				res.Bytes += int64(textBytes(&b.recs[i]))
			}
			res.Records += len(b.recs)
			res.Links += len(b.links)
			t := time.Now()
			if _, err := l.PutMany(ctx, b.recs, b.links); err != nil {
				l.Close()
				return res, fmt.Errorf("put records %d..%d: %w", b.from, b.from+len(b.recs)-1, err)
			}
			spent += time.Since(t)
		}
	}
	t := time.Now()
	if err := l.Close(); err != nil {
		return res, err
	}
	spent += time.Since(t)
	res.Seconds = spent.Seconds()
	return res, nil
}

// ingestBleve is the baseline: bleve with its default mapping indexing the
// same records (as documents, the way a user of bleve would) in batches.
func ingestBleve(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	var spent time.Duration
	start := time.Now()
	bi, err := bleve.New(bleveDir(a.Dir), bleve.NewIndexMapping())
	if err != nil {
		return res, err
	}
	spent += time.Since(start)
	for ahead := range c.ahead(a.Batch) {
		g := rusage.CPU()
		batches := ahead()
		res.GenCPUSeconds += (rusage.CPU() - g).Seconds()
		for _, pb := range batches {
			t := time.Now()
			b := bi.NewBatch()
			for i := range pb.recs {
				r := &pb.recs[i]
				res.Bytes += int64(textBytes(r))
				if err := b.Index(r.NS+"/"+r.ID, r); err != nil {
					bi.Close()
					return res, err
				}
			}
			if err := bi.Batch(b); err != nil {
				bi.Close()
				return res, err
			}
			spent += time.Since(t)
			res.Records += len(pb.recs)
		}
	}
	t := time.Now()
	if err := bi.Close(); err != nil {
		return res, err
	}
	spent += time.Since(t)
	res.Seconds = spent.Seconds()
	return res, nil
}

// packetRequest is the Lore request for q at a budget.
func packetRequest(q query, scope string, tokens int) packet.Request {
	req := packet.Request{NS: q.NS, Query: q.Text, Budget: tokens, Scope: scope, Profile: q.Profile}
	if q.Focus != "" {
		req.Focus = []string{q.Focus}
	}
	return req
}

// packets builds and renders one packet per query at each budget, warm,
// in process, through the same facade the CLI uses (read-only open).
func packets(c corpus, a phaseArgs) (phaseResult, error) {
	res := phaseResult{Latency: map[string]latency{}}
	l, err := lore.Open(loreDir(a.Dir), &lore.Options{ReadOnly: true})
	if err != nil {
		return res, err
	}
	defer l.Close()
	dump, err := createDump(a.PacketsOut)
	if err != nil {
		return res, err
	}
	defer dump.Close()
	ctx := context.Background()
	qs := c.queries(a.Queries)
	var total time.Duration
	for _, b := range packetBudgets {
		// A CPU profile tells the budgets apart: pprof -tagfocus budget=scene.
		pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("budget", b.scope)))
		s, took, err := packetsAt(ctx, l, qs, b, dump)
		if err != nil {
			return res, err
		}
		res.Latency[b.scope] = s
		total += took
	}
	pprof.SetGoroutineLabels(ctx)
	// Lore's search alone, to compare index with index.
	search, err := searchTimes(l, qs)
	if err != nil {
		return res, err
	}
	res.Latency["search"] = search
	res.Seconds = total.Seconds()
	return res, dump.Close()
}

// packetsAt times the packets of qs at budget b, after a warm-up, and
// returns their latencies, the process caches' figures over them and
// the time they took in all; each packet's hash and time go to dump.
func packetsAt(ctx context.Context, l *lore.Lore, qs []query, b packetBudget, dump *packetDump) (latency, time.Duration, error) {
	// one builds and renders the packet of q; out is the packet, or the
	// refusal's message.
	one := func(q query) (out []byte, tokens int, deferred, refused bool, err error) {
		p, err := l.Packet(ctx, packetRequest(q, b.scope, b.tokens))
		if err != nil {
			if errors.Is(err, packet.ErrCannotFit) {
				return []byte(err.Error()), 0, false, true, nil
			}
			return nil, 0, false, false, fmt.Errorf("packet ns %q focus %q query %q: %w", q.NS, q.Focus, q.Text, err)
		}
		// Render is part of what a caller waits for.
		if out, err = p.Render("md"); err != nil {
			return nil, 0, false, false, err
		}
		return out, p.Tokens, p.Incomplete(), false, nil
	}
	for _, q := range qs[:min(warmup, len(qs))] {
		if _, _, _, _, err := one(q); err != nil {
			return latency{}, 0, err
		}
	}
	ds := make([]time.Duration, 0, len(qs))
	before := takeCacheStats()
	var total time.Duration
	var outTokens, deferrals, refusals int
	for k, q := range qs {
		t := time.Now()
		out, n, deferred, refused, err := one(q)
		d := time.Since(t)
		if err != nil {
			return latency{}, 0, err
		}
		if dump != nil {
			fmt.Fprintf(dump, "%s %d refused=%t %x %.2fms\n", b.scope, k, refused, sha256.Sum256(out), d.Seconds()*1000)
		}
		ds = append(ds, d)
		total += d
		outTokens += n
		if deferred {
			deferrals++
		}
		if refused {
			refusals++
		}
	}
	s := summarize(ds)
	s.Deferred, s.Refused = deferrals, refusals
	takeCacheStats().since(before, &s)
	if len(qs) > 0 {
		s.Tokens = float64(outTokens) / float64(len(qs))
	}
	return s, total, nil
}

// searchTimes times Lore's search alone for qs (its own mapping, the
// same words, top 50, each hit checked against the store), after the
// first warmup untimed.
func searchTimes(l *lore.Lore, qs []query) (latency, error) {
	ctx := context.Background()
	ds := make([]time.Duration, 0, len(qs))
	hits := 0
	for k, q := range qs {
		t := time.Now()
		h, err := l.Search(ctx, index.Query{NS: q.NS, Text: q.Text, Limit: 50})
		d := time.Since(t)
		if err != nil {
			return latency{}, fmt.Errorf("search ns %q query %q: %w", q.NS, q.Text, err)
		}
		if k >= warmup || len(qs) <= warmup {
			ds = append(ds, d)
		}
		hits += len(h)
	}
	s := summarize(ds)
	s.Hits = float64(hits) / float64(len(qs))
	return s, nil
}

// searchLore is Lore's search alone as its own phase (run by hand with
// -phase search-lore -cpuprofile, to see where its time goes beside
// search-bleve's): the packet phase's search figures without the packets.
func searchLore(c corpus, a phaseArgs) (phaseResult, error) {
	res := phaseResult{Latency: map[string]latency{}}
	l, err := lore.Open(loreDir(a.Dir), &lore.Options{ReadOnly: true})
	if err != nil {
		return res, err
	}
	defer l.Close()
	s, err := searchTimes(l, c.queries(a.Queries))
	if err != nil {
		return res, err
	}
	res.Latency["search"] = s
	res.Seconds = s.Meanms * float64(s.Count) / 1000
	return res, nil
}

// baselineQuery is the bleve query a user of bleve alone would write for
// q: the words against the default _all field, within the namespace.
func baselineQuery(q query) *bleve.SearchRequest {
	ns := bleve.NewTermQuery(q.NS)
	ns.SetField("ns")
	words := bleve.NewMatchQuery(q.Text)
	return bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(ns, words), 50, 0, false)
}

// searchBleve runs the baseline search (default mapping, top 50) for the
// same queries.
func searchBleve(c corpus, a phaseArgs) (phaseResult, error) {
	bi, err := bleve.OpenUsing(bleveDir(a.Dir), map[string]any{"read_only": true})
	if err != nil {
		return phaseResult{}, err
	}
	defer bi.Close()
	ctx := context.Background()
	return timeTop50(c.queries(a.Queries), func(q query) (int, error) {
		sr, err := bi.SearchInContext(ctx, baselineQuery(q))
		if err != nil {
			return 0, err
		}
		return len(sr.Hits), nil
	})
}

// timeTop50 times a baseline's search over qs, after warmup of them run
// untimed: run searches for one query and says how many hits it found.
func timeTop50(qs []query, run func(query) (int, error)) (phaseResult, error) {
	res := phaseResult{Latency: map[string]latency{}}
	for _, q := range qs[:min(warmup, len(qs))] {
		if _, err := run(q); err != nil {
			return res, err
		}
	}
	ds := make([]time.Duration, 0, len(qs))
	hits := 0
	for _, q := range qs {
		t := time.Now()
		n, err := run(q)
		d := time.Since(t)
		if err != nil {
			return res, fmt.Errorf("search %q in %s: %w", q.Text, q.NS, err)
		}
		ds = append(ds, d)
		hits += n
	}
	s := summarize(ds)
	if len(qs) > 0 {
		s.Hits = float64(hits) / float64(len(qs))
	}
	res.Latency["top50"] = s
	for _, d := range ds {
		res.Seconds += d.Seconds()
	}
	return res, nil
}

// count runs the store's default counter (o200k_base) over the text of the
// first CountMax records, on one goroutine.
func count(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		return res, err
	}
	n := min(c.n, a.CountMax)
	var spent time.Duration
	per := make([]int, 0, n)
	for from := 0; from < n; from += a.Batch {
		recs, _ := c.batch(from, min(from+a.Batch, n))
		t := time.Now()
		for i := range recs {
			r := &recs[i]
			k := counter.Count(r.Title) + counter.Count(r.Summary) + counter.Count(r.Body)
			per = append(per, k)
			res.Tokens += int64(k)
			res.Bytes += int64(textBytes(r))
		}
		spent += time.Since(t)
		res.Records += len(recs)
	}
	res.Seconds = spent.Seconds()
	slices.Sort(per)
	res.TokensP1, res.TokensP50, res.TokensP99 = per[len(per)/100], per[len(per)/2], per[len(per)*99/100]
	return res, nil
}

// vmHWM returns this process's peak resident set size in bytes, from
// /proc/self/status (0 where there is no /proc).
func vmHWM() int64 { return procStatus()["VmHWM"] }

// procStatus returns the sizes (in bytes) that /proc/self/status gives in
// kB, by name: VmHWM, VmRSS, RssAnon, RssFile... Empty without /proc.
func procStatus() map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			continue
		}
		if kb, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[name] = kb << 10
		}
	}
	return out
}

// dirBytes sums the sizes of the regular files under dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}

// firstLine is the first line of b, for error messages.
func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}

// sampleAnon polls RssAnon until stop is closed, then sends the largest
// value seen.
func sampleAnon(stop <-chan struct{}, peak chan<- int64) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	high := procStatus()["RssAnon"]
	for {
		select {
		case <-stop:
			peak <- max(high, procStatus()["RssAnon"])
			return
		case <-tick.C:
			high = max(high, procStatus()["RssAnon"])
		}
	}
}
