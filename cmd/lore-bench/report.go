package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// report holds every figure of a run; it is printed as a table and
// written as JSON with the same content.
type report struct {
	Machine  machineInfo   `json:"machine"`
	Started  string        `json:"started"`
	Seed     uint64        `json:"seed"`
	Queries  int           `json:"queries"`
	Batch    int           `json:"batch"`
	Runs     []sizeRun     `json:"runs"`
	Counting countingStats `json:"counting"`
	// Scale compares each size run with the one before (with -scale:
	// 10k -> 100k, then 100k -> 1M).
	Scale []scaleFigures `json:"scale,omitempty"`
}

type machineInfo struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	MemBytes int64  `json:"mem_bytes"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	LoadAvg  string `json:"load_avg_at_start"`
}

// sizeRun is everything measured at one corpus size.
type sizeRun struct {
	N           int         `json:"n"`
	IngestLore  phaseResult `json:"ingest_lore"`
	IngestBleve phaseResult `json:"ingest_bleve"`
	Packets     phaseResult `json:"packets"`
	SearchBleve phaseResult `json:"search_bleve"`
	ColdCLI     coldFigures `json:"cold_cli"`
	DiskLore    int64       `json:"disk_lore_bytes"`
	DiskBleve   int64       `json:"disk_bleve_bytes"`
	// The SQLite FTS5 baseline, when lore-bench is built with it (-tags
	// fts5): its ingest, its search of the same words, its disk.
	IngestFTS5 *phaseResult `json:"ingest_fts5,omitempty"`
	SearchFTS5 *phaseResult `json:"search_fts5,omitempty"`
	DiskFTS5   int64        `json:"disk_fts5_bytes,omitempty"`
	Derived    derived      `json:"derived"`
}

type coldFigures struct {
	Runs     int     `json:"runs"`
	Medianms float64 `json:"median_ms"`
	Maxms    float64 `json:"max_ms"`
	// The runs split by what they ask: a novel packet with its scene as
	// focus (mentions, neighbours, story time) and an agent packet of
	// words alone.
	FocusMedianms float64 `json:"focus_median_ms,omitempty"`
	AgentMedianms float64 `json:"agent_median_ms,omitempty"`
}

// derived are the figures computed from a sizeRun's measurements.
type derived struct {
	LoreRecordsPerS   float64 `json:"lore_records_per_s"`
	LoreMBPerS        float64 `json:"lore_mb_per_s"`
	LoreUsPerRecord   float64 `json:"lore_us_per_record"`
	LoreCPUUsPerRec   float64 `json:"lore_cpu_us_per_record"`
	BleveRecordsPerS  float64 `json:"bleve_records_per_s"`
	BleveMBPerS       float64 `json:"bleve_mb_per_s"`
	BleveUsPerRecord  float64 `json:"bleve_us_per_record"`
	BleveCPUUsPerRec  float64 `json:"bleve_cpu_us_per_record"`
	IngestTimeRatio   float64 `json:"ingest_time_ratio"` // Lore / bleve: <= 0.5 is the goal
	IngestCPURatio    float64 `json:"ingest_cpu_ratio"`  // CPU less corpus generation, Lore / bleve
	SceneP50Ratio     float64 `json:"scene_p50_ratio"`   // Lore packet / bleve search: <= 1.2 is the goal
	ChapterP50Ratio   float64 `json:"chapter_p50_ratio"`
	LoreBytesPerRec   float64 `json:"lore_disk_bytes_per_record"`
	BleveBytesPerRec  float64 `json:"bleve_disk_bytes_per_record"`
	AvgRecordTextByte float64 `json:"avg_record_text_bytes"`
}

func (r *sizeRun) derive() {
	d := &r.Derived
	n := float64(r.N)
	const mb = 1 << 20
	if s := r.IngestLore.Seconds; s > 0 {
		d.LoreRecordsPerS = n / s
		d.LoreMBPerS = float64(r.IngestLore.Bytes) / mb / s
		d.LoreUsPerRecord = s * 1e6 / n
		d.LoreCPUUsPerRec = (r.IngestLore.CPUSeconds - r.IngestLore.GenCPUSeconds) * 1e6 / n
	}
	if s := r.IngestBleve.Seconds; s > 0 {
		d.BleveRecordsPerS = n / s
		d.BleveMBPerS = float64(r.IngestBleve.Bytes) / mb / s
		d.BleveUsPerRecord = s * 1e6 / n
		d.BleveCPUUsPerRec = (r.IngestBleve.CPUSeconds - r.IngestBleve.GenCPUSeconds) * 1e6 / n
		d.IngestTimeRatio = r.IngestLore.Seconds / s
	}
	if d.BleveCPUUsPerRec > 0 {
		d.IngestCPURatio = d.LoreCPUUsPerRec / d.BleveCPUUsPerRec
	}
	if base := r.SearchBleve.Latency["top50"].P50ms; base > 0 {
		d.SceneP50Ratio = r.Packets.Latency["scene"].P50ms / base
		d.ChapterP50Ratio = r.Packets.Latency["chapter"].P50ms / base
	}
	d.LoreBytesPerRec = float64(r.DiskLore) / n
	d.BleveBytesPerRec = float64(r.DiskBleve) / n
	d.AvgRecordTextByte = float64(r.IngestLore.Bytes) / n
}

// countingStats are the counter's figures on the corpus.
type countingStats struct {
	Records     int     `json:"records"`
	Bytes       int64   `json:"bytes"`
	Tokens      int64   `json:"tokens"`
	Seconds     float64 `json:"seconds"`
	TokensPerS  float64 `json:"tokens_per_s"`
	MBPerS      float64 `json:"mb_per_s"`
	TokensPerRe float64 `json:"avg_tokens_per_record"`
	PeakRSS     int64   `json:"peak_rss_bytes"`
	// Tokens per record (title, summary and body) at percentiles.
	TokensP1  int `json:"tokens_p1"`
	TokensP50 int `json:"tokens_p50"`
	TokensP99 int `json:"tokens_p99"`
}

func countFigures(p phaseResult) countingStats {
	c := countingStats{Records: p.Records, Bytes: p.Bytes, Tokens: p.Tokens, Seconds: p.Seconds, PeakRSS: p.PeakRSS,
		TokensP1: p.TokensP1, TokensP50: p.TokensP50, TokensP99: p.TokensP99}
	if p.Seconds > 0 {
		c.TokensPerS = float64(p.Tokens) / p.Seconds
		c.MBPerS = float64(p.Bytes) / (1 << 20) / p.Seconds
	}
	if p.Records > 0 {
		c.TokensPerRe = float64(p.Tokens) / float64(p.Records)
	}
	return c
}

// scaleFigures compare two sizes run.
type scaleFigures struct {
	From int `json:"from_n"`
	To   int `json:"to_n"`
	// IngestCostGrowth is per-record ingest time at To over that at From,
	// minus one: <= 0.30 is the goal from 10k to 100k.
	IngestCostGrowth    float64 `json:"ingest_cost_growth"`
	IngestCPUCostGrowth float64 `json:"ingest_cpu_cost_growth"`
	// SceneP50Growth is packet p50 at To over From: <= 2 is the goal.
	SceneP50Growth   float64 `json:"scene_p50_growth"`
	ChapterP50Growth float64 `json:"chapter_p50_growth"`
}

func (rep *report) derive() {
	rep.Scale = nil
	for i := 1; i < len(rep.Runs); i++ {
		a, b := rep.Runs[i-1], rep.Runs[i]
		rep.Scale = append(rep.Scale, scaleFigures{
			From:                a.N,
			To:                  b.N,
			IngestCostGrowth:    ratio(b.Derived.LoreUsPerRecord, a.Derived.LoreUsPerRecord) - 1,
			IngestCPUCostGrowth: ratio(b.Derived.LoreCPUUsPerRec, a.Derived.LoreCPUUsPerRec) - 1,
			SceneP50Growth:      ratio(b.Packets.Latency["scene"].P50ms, a.Packets.Latency["scene"].P50ms),
			ChapterP50Growth:    ratio(b.Packets.Latency["chapter"].P50ms, a.Packets.Latency["chapter"].P50ms),
		})
	}
}

const mib = 1 << 20

// print writes the report as aligned tables.
func (rep *report) print(w io.Writer) {
	m := rep.Machine
	fmt.Fprintf(w, "machine: %s, %d cores, %.1f GiB RAM, %s %s, load at start %s\n",
		m.CPU, m.Cores, float64(m.MemBytes)/(1<<30), m.Go, m.OS, m.LoadAvg)
	fmt.Fprintf(w, "seed %d, %d queries per budget, batches of %d\n\n", rep.Seed, rep.Queries, rep.Batch)
	t := table{w: w, tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)}
	rep.printIngest(t)
	rep.printPackets(t)
	rep.printSearch(t)
	rep.printFTS5(t)
	rep.printCold(t)
	rep.printCounting(w)
}

// table writes a report's tables: a title, then rows of right-aligned
// cells, flushed at its end.
type table struct {
	w  io.Writer
	tw *tabwriter.Writer
}

func (t table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")+"\t") }

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }
func f2(x float64) string { return fmt.Sprintf("%.2f", x) }
func n0(x float64) string { return fmt.Sprintf("%.0f", x) }
func mb(x int64) string   { return fmt.Sprintf("%.0f", float64(x)/mib) }

// orDash is a figure an older report lacks as "-".
func orDash(x float64) string {
	if x == 0 {
		return "-"
	}
	return f1(x)
}

// rss is a phase's peak RSS (VmHWM), then the peak of its anonymous part
// (the rest is mmapped store and index pages).
func rss(p phaseResult) string {
	return fmt.Sprintf("%.0f (anon %.0f)", float64(p.PeakRSS)/mib, float64(p.PeakAnon)/mib)
}

func (rep *report) printIngest(t table) {
	fmt.Fprintln(t.w, "INGEST (batches of PutMany vs bleve default mapping)")
	t.row("N", "lore s", "bleve s", "ratio", "lore rec/s", "bleve rec/s", "lore MB/s", "bleve MB/s", "lore µs/rec", "lore cpu µs/rec", "bleve cpu µs/rec", "cpu ratio", "lore RSS MiB", "bleve RSS MiB")
	for _, r := range rep.Runs {
		d := r.Derived
		t.row(fmt.Sprint(r.N), f1(r.IngestLore.Seconds), f1(r.IngestBleve.Seconds), f2(d.IngestTimeRatio),
			n0(d.LoreRecordsPerS), n0(d.BleveRecordsPerS), f2(d.LoreMBPerS), f2(d.BleveMBPerS),
			n0(d.LoreUsPerRecord), n0(d.LoreCPUUsPerRec), n0(d.BleveCPUUsPerRec), f2(d.IngestCPURatio),
			rss(r.IngestLore), rss(r.IngestBleve))
	}
	t.tw.Flush()
}

func (rep *report) printPackets(t table) {
	fmt.Fprintln(t.w, "\nPACKETS (warm, in process; ms) vs bleve search alone (default mapping, top 50)")
	t.row("N", "budget", "lore p50", "p95", "p99", "bleve p50", "p95", "p99", "p50 ratio", "deferred", "refused", "bleve hits", "lore RSS MiB", "bleve RSS MiB", "names kept", "fragments kept", "bodies ahead used", "lore disk reads", "bleve disk reads")
	for _, r := range rep.Runs {
		base := r.SearchBleve.Latency["top50"]
		for _, b := range packetBudgets {
			l := r.Packets.Latency[b.scope]
			ratio := r.Derived.SceneP50Ratio
			if b.scope == "chapter" {
				ratio = r.Derived.ChapterP50Ratio
			}
			t.row(fmt.Sprint(r.N), fmt.Sprintf("%s %d", b.scope, b.tokens), f2(l.P50ms), f2(l.P95ms), f2(l.P99ms),
				f2(base.P50ms), f2(base.P95ms), f2(base.P99ms), f2(ratio),
				fmt.Sprint(l.Deferred), fmt.Sprint(l.Refused), f1(base.Hits), rss(r.Packets), rss(r.SearchBleve), share(l.NameHits, l.NameMisses), share(l.FragmentHits, l.FragmentMisses), share(l.AheadUsed, l.AheadRead-l.AheadUsed),
				fmt.Sprint(r.Packets.MajorFaults), fmt.Sprint(r.SearchBleve.MajorFaults))
		}
	}
	t.tw.Flush()
}

func (rep *report) printSearch(t table) {
	fmt.Fprintln(t.w, "\nSEARCH ALONE (top 50, same words; ms): Lore's index (hits checked against the store) vs bleve default mapping")
	t.row("N", "lore p50", "p95", "p99", "lore hits", "bleve p50", "p95", "p99", "bleve hits", "p50 ratio")
	for _, r := range rep.Runs {
		l, base := r.Packets.Latency["search"], r.SearchBleve.Latency["top50"]
		ratio := 0.0
		if base.P50ms > 0 {
			ratio = l.P50ms / base.P50ms
		}
		t.row(fmt.Sprint(r.N), f2(l.P50ms), f2(l.P95ms), f2(l.P99ms), f1(l.Hits), f2(base.P50ms), f2(base.P95ms), f2(base.P99ms), f1(base.Hits), f2(ratio))
	}
	t.tw.Flush()
}

// printFTS5 prints Lore beside SQLite FTS5 on the same records and words,
// when the run measured it.
func (rep *report) printFTS5(t table) {
	ran := false
	for _, r := range rep.Runs {
		ran = ran || r.IngestFTS5 != nil
	}
	if !ran {
		return
	}
	fmt.Fprintln(t.w, "\nSQLITE FTS5 (mattn/go-sqlite3, WAL, porter unicode61, a transaction a batch; bm25 top 50 of the same words): ingest s, search and scene packet ms, disk bytes a record")
	t.row("N", "lore ingest", "fts5 ingest", "ratio", "lore search p50", "fts5 search p50", "p95", "p99", "fts5 hits", "scene packet p50", "packet/fts5", "lore bytes/rec", "fts5 bytes/rec", "ratio")
	for _, r := range rep.Runs {
		if r.IngestFTS5 == nil || r.SearchFTS5 == nil {
			continue
		}
		n := float64(r.N)
		s, scene := r.SearchFTS5.Latency["top50"], r.Packets.Latency["scene"].P50ms
		t.row(fmt.Sprint(r.N), f1(r.IngestLore.Seconds), f1(r.IngestFTS5.Seconds), f2(ratio(r.IngestLore.Seconds, r.IngestFTS5.Seconds)),
			f2(r.Packets.Latency["search"].P50ms), f2(s.P50ms), f2(s.P95ms), f2(s.P99ms), f1(s.Hits), f2(scene), f2(ratio(scene, s.P50ms)),
			n0(float64(r.DiskLore)/n), n0(float64(r.DiskFTS5)/n), f2(ratio(float64(r.DiskLore), float64(r.DiskFTS5))))
	}
	t.tw.Flush()
}

func (rep *report) printCold(t table) {
	fmt.Fprintln(t.w, "\nCOLD CLI (`lore packet --scope scene`, fresh process; ms) and DISK")
	t.row("N", "cold median", "cold max", "runs", "novel+focus median", "agent median", "lore bytes/rec", "bleve bytes/rec", "lore MiB", "bleve MiB", "text bytes/rec")
	for _, r := range rep.Runs {
		d := r.Derived
		t.row(fmt.Sprint(r.N), f1(r.ColdCLI.Medianms), f1(r.ColdCLI.Maxms), fmt.Sprint(r.ColdCLI.Runs), orDash(r.ColdCLI.FocusMedianms), orDash(r.ColdCLI.AgentMedianms),
			n0(d.LoreBytesPerRec), n0(d.BleveBytesPerRec), mb(r.DiskLore), mb(r.DiskBleve), n0(d.AvgRecordTextByte))
	}
	t.tw.Flush()
}

func (rep *report) printCounting(w io.Writer) {
	c := rep.Counting
	fmt.Fprintf(w, "\nCOUNTING (o200k_base, one goroutine): %d records, %.1f MiB, %d tokens (%.0f a record) in %.2f s: %.0f tokens/s, %.2f MB/s\n",
		c.Records, float64(c.Bytes)/mib, c.Tokens, c.TokensPerRe, c.Seconds, c.TokensPerS, c.MBPerS)
	fmt.Fprintf(w, "tokens per record: p1 %d, p50 %d, p99 %d\n", c.TokensP1, c.TokensP50, c.TokensP99)
	for i, s := range rep.Scale {
		if i == 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "SCALE %d -> %d: per-record ingest time %+.0f%% (cpu %+.0f%%), packet p50 x%.2f (scene), x%.2f (chapter)\n",
			s.From, s.To, 100*s.IngestCostGrowth, 100*s.IngestCPUCostGrowth, s.SceneP50Growth, s.ChapterP50Growth)
	}
}

// share is hits as a share of hits and misses (the timed packets' names
// or fragments that came from the process's caches), "-" for neither.
func share(hits, misses int64) string {
	if hits+misses == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(hits)/float64(hits+misses))
}

// ratio is x/y, 0 when y is.
func ratio(x, y float64) float64 {
	if y == 0 {
		return 0
	}
	return x / y
}
