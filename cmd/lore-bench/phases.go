package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lore/internal/rusage"
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

// firstLine is the first line of b, for error messages.
func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}
