package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	// The etcd engine: a store's lore.json (-config) may keep the store on
	// an etcd cluster (package lore links no engine; this one registers
	// etcd:// with package store).
	_ "github.com/lorekeep/lore/store/etcdstore"
)

// childEnv is set in the environment of phase sub-processes, so that a
// test binary standing in for this one knows to act as the program.
const childEnv = "LORE_BENCH_CHILD"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lore-bench:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	n          int
	seed       uint64
	queries    int
	batch      int
	countMax   int
	coldRuns   int
	scale      bool
	scale1M    bool
	jsonFile   string
	dir        string
	keep       bool
	cpuProfile string
	packetsOut string
	loreBin    string
	phase      string // internal: run one phase and print its JSON
	print      string // print the table of a JSON report instead of running
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("lore-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.n, "n", 10000, "records in the corpus")
	fs.Uint64Var(&c.seed, "seed", 1, "corpus and query seed: the same seed gives the same corpus")
	fs.IntVar(&c.queries, "queries", 1000, "seeded packet queries per budget")
	fs.IntVar(&c.batch, "batch", 1000, "records per PutMany and per bleve batch")
	fs.IntVar(&c.countMax, "count-max", 20000, "records the counting phase counts (the first ones)")
	fs.IntVar(&c.coldRuns, "cold-runs", 20, "fresh `lore packet` processes timed (0 skips the cold CLI)")
	fs.BoolVar(&c.scale, "scale", false, "run N = 10,000 and 100,000 (ignores -n)")
	fs.BoolVar(&c.scale1M, "scale-1m", false, "with -scale, also N = 1,000,000 (minutes; not for CI)")
	fs.StringVar(&c.jsonFile, "json", "", "write the figures as JSON to this file")
	fs.StringVar(&c.dir, "dir", "", "work directory (default: a temporary one, removed at the end)")
	fs.BoolVar(&c.keep, "keep", false, "keep the work directory")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile per phase: FILE.<phase>.<n>.pprof")
	fs.StringVar(&c.packetsOut, "packets-out", "", "with -phase packets: write each packet's sha256 (or its refusal's) and its time to this file, one line a packet, to compare two builds' bytes (the first four fields) and see where the tail is")
	fs.StringVar(&c.loreBin, "lore-bin", "", "lore binary for the cold CLI runs (default: go build ./cmd/lore once)")
	fs.StringVar(&c.phase, "phase", "", "internal: run one phase in this process")
	fs.StringVar(&c.print, "print", "", "print the table of a JSON report written by -json, and run nothing")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lore-bench [flags]\n\nBenchmarks Lore against bleve's default mapping on a seeded synthetic corpus.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (all input is flags): %w", fs.Arg(0), errUsage)
	}
	switch {
	case c.n < 1:
		return c, fmt.Errorf("-n %d: want 1 or more records: %w", c.n, errUsage)
	case c.queries < 1:
		return c, fmt.Errorf("-queries %d: want 1 or more: %w", c.queries, errUsage)
	case c.batch < 1:
		return c, fmt.Errorf("-batch %d: want 1 or more: %w", c.batch, errUsage)
	case c.countMax < 1:
		return c, fmt.Errorf("-count-max %d: want 1 or more: %w", c.countMax, errUsage)
	case c.coldRuns < 0:
		return c, fmt.Errorf("-cold-runs %d: want 0 (skip) or more: %w", c.coldRuns, errUsage)
	case c.scale1M && !c.scale:
		return c, fmt.Errorf("-scale-1m without -scale: give both: %w", errUsage)
	case c.phase != "" && !slices.Contains(phaseNames, c.phase):
		return c, fmt.Errorf("-phase %q: want one of %s: %w", c.phase, strings.Join(phaseNames, ", "), errUsage)
	case c.phase != "" && c.dir == "":
		return c, fmt.Errorf("-phase %s needs -dir: %w", c.phase, errUsage)
	case c.packetsOut != "" && c.phase != phasePackets:
		return c, fmt.Errorf("-packets-out %s needs -phase %s (the packets of one phase are written, not of a whole run): %w", c.packetsOut, phasePackets, errUsage)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "recall" {
		return runRecall(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "vectors" {
		return runVectors(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "serve" {
		return runServe(ctx, args[1:], stdout, stderr)
	}
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if c.print != "" {
		return printReport(c.print, stdout)
	}
	if c.phase != "" {
		res, err := runPhase(phaseArgs{Phase: c.phase, N: c.n, Seed: c.seed, Queries: c.queries,
			Batch: c.batch, CountMax: c.countMax, Dir: c.dir, CPUProfile: c.cpuProfile, PacketsOut: c.packetsOut})
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(res)
	}
	return runBench(ctx, c, stdout, stderr)
}

// printReport prints the table of the JSON report in file.
func printReport(file string, stdout io.Writer) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("-print %s: not a lore-bench JSON report: %w", file, err)
	}
	rep.derive()
	rep.print(stdout)
	return nil
}

// runBench runs every phase at every size, each in a child process, then
// the counting phase at the largest size, and prints (and writes) the
// report.
func runBench(ctx context.Context, c config, stdout, stderr io.Writer) error {
	sizes := benchSizes(c)
	work, err := workDir(c)
	if err != nil {
		return err
	}
	if c.dir == "" && !c.keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintf(stderr, "work directory: %s\n", work)
	}

	rep := report{Machine: machine(), Seed: c.seed, Queries: c.queries, Batch: c.batch, Started: time.Now().UTC().Format(time.RFC3339)}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	loreBin, err := buildLoreCLI(ctx, c, work, stderr)
	if err != nil {
		return err
	}
	for _, n := range sizes {
		r, err := runSize(ctx, c, self, loreBin, filepath.Join(work, "n"+strconv.Itoa(n)), n, stderr)
		if err != nil {
			return err
		}
		rep.Runs = append(rep.Runs, r)
	}
	cn := sizes[len(sizes)-1]
	fmt.Fprintf(stderr, "counting ...\n")
	cnt, err := subprocess(ctx, self, c, phaseCount, cn, work)
	if err != nil {
		return err
	}
	rep.Counting = countFigures(cnt)
	rep.derive()

	rep.print(stdout)
	if c.jsonFile != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(c.jsonFile, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchSizes are the corpus sizes to run: -n, or the -scale ladder.
func benchSizes(c config) []int {
	if !c.scale {
		return []int{c.n}
	}
	sizes := []int{10_000, 100_000}
	if c.scale1M {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// workDir makes the work directory: -dir, or a new temporary one.
func workDir(c config) (string, error) {
	if c.dir == "" {
		return os.MkdirTemp("", "lore-bench-")
	}
	return c.dir, os.MkdirAll(c.dir, 0o755)
}

// buildLoreCLI returns the lore binary for the cold CLI runs: -lore-bin,
// else one built into work (none when the cold runs are skipped).
func buildLoreCLI(ctx context.Context, c config, work string, stderr io.Writer) (string, error) {
	if c.loreBin != "" || c.coldRuns <= 0 {
		return c.loreBin, nil
	}
	loreBin := filepath.Join(work, "lore-cli")
	fmt.Fprintf(stderr, "building %s ...\n", loreBin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", loreBin, "github.com/lorekeep/lore/cmd/lore")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of the lore CLI (run lore-bench from inside the lore module, or give -lore-bin, or -cold-runs 0): %v: %s", err, out)
	}
	return loreBin, nil
}

// runSize runs the phases at corpus size n in a fresh dir, then measures
// both stores' size on disk.
func runSize(ctx context.Context, c config, self, loreBin, dir string, n int, stderr io.Writer) (sizeRun, error) {
	r := sizeRun{N: n}
	if err := os.RemoveAll(dir); err != nil {
		return r, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, err
	}
	// Each engine's queries run right after its own ingest, and the cold
	// CLI right after Lore's packets, so that every query meets the page
	// cache as its own engine left it. The machines the figures in
	// BENCHMARKS.md come from reclaim cached pages that go unused for a
	// few minutes, with memory to spare (about 20 MB/s, 12 GB free), so a
	// query run after the other engine's ingest (9 minutes at 1M) reads
	// its store from disk: Lore's packets at 1M took 153,141 major faults
	// so, against 2 with their store cached, and their p50 doubled; the
	// cold CLI's median went from 56.5 to 115.1 ms.
	phase := func(name string, res *phaseResult) error {
		fmt.Fprintf(stderr, "n=%d: %s ...\n", n, name)
		var err error
		*res, err = subprocess(ctx, self, c, name, n, dir)
		return err
	}
	if err := phase(phaseIngestLore, &r.IngestLore); err != nil {
		return r, err
	}
	if err := phase(phasePackets, &r.Packets); err != nil {
		return r, err
	}
	var err error
	if c.coldRuns > 0 {
		fmt.Fprintf(stderr, "n=%d: cold CLI x%d ...\n", n, c.coldRuns)
		if r.ColdCLI, err = coldCLI(ctx, loreBin, corpus{seed: c.seed, n: n}, loreDir(dir), c.coldRuns); err != nil {
			return r, err
		}
	}
	if err := phase(phaseIngestBleve, &r.IngestBleve); err != nil {
		return r, err
	}
	if err := phase(phaseSearchBleve, &r.SearchBleve); err != nil {
		return r, err
	}
	if fts5Built {
		var ing, srch phaseResult
		if err := phase(phaseIngestFTS5, &ing); err != nil {
			return r, err
		}
		if err := phase(phaseSearchFTS5, &srch); err != nil {
			return r, err
		}
		r.IngestFTS5, r.SearchFTS5 = &ing, &srch
		if r.DiskFTS5, err = dirBytes(filepath.Dir(fts5File(dir))); err != nil {
			return r, err
		}
	}
	if r.DiskLore, err = dirBytes(loreDir(dir)); err != nil {
		return r, err
	}
	if r.DiskBleve, err = dirBytes(bleveDir(dir)); err != nil {
		return r, err
	}
	r.derive()
	if c.dir == "" && !c.keep {
		os.RemoveAll(dir) // free the disk before the next size
	}
	return r, nil
}

// subprocess runs one phase as a child of this binary and decodes its
// result, adding the child's CPU time.
func subprocess(ctx context.Context, self string, c config, phase string, n int, dir string) (phaseResult, error) {
	args := []string{"-phase", phase, "-n", strconv.Itoa(n), "-seed", strconv.FormatUint(c.seed, 10),
		"-queries", strconv.Itoa(c.queries), "-batch", strconv.Itoa(c.batch),
		"-count-max", strconv.Itoa(c.countMax), "-dir", dir}
	if c.cpuProfile != "" {
		args = append(args, "-cpuprofile", fmt.Sprintf("%s.%s.%d.pprof", c.cpuProfile, phase, n))
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s at n=%d: %w: %v: %s", phase, n, errPhase, err, strings.TrimSpace(stderr.String()))
	}
	var res phaseResult
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
		return res, fmt.Errorf("%s at n=%d: %w: unreadable result %q: %v", phase, n, errPhase, firstLine([]byte(stdout.String())), err)
	}
	if st := cmd.ProcessState; st != nil {
		res.CPUSeconds = (st.UserTime() + st.SystemTime()).Seconds()
	}
	return res, nil
}

// coldCLI times `lore packet` as a fresh process: open, build, render,
// exit. Exit 2 (something deferred) and 3 (cannot fit) are answers, not
// failures.
func coldCLI(ctx context.Context, bin string, c corpus, store string, runs int) (coldFigures, error) {
	qs := c.queries(runs)
	ds := make([]time.Duration, 0, runs)
	var focus, agent []time.Duration
	for i := range runs {
		q := qs[i%len(qs)]
		args := []string{"--store", store, "--quiet", "packet", "--ns", q.NS, "--scope", "scene", "--profile", q.Profile}
		if q.Focus != "" {
			args = append(args, "--focus", q.Focus)
		}
		args = append(args, q.Text)
		cmd := exec.CommandContext(ctx, bin, args...)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		t := time.Now()
		err := cmd.Run()
		d := time.Since(t)
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && (exit.ExitCode() == 2 || exit.ExitCode() == 3)) {
			return coldFigures{}, fmt.Errorf("cold CLI %s %s: %w: %v: %s", bin, strings.Join(args, " "), errPhase, err, strings.TrimSpace(stderr.String()))
		}
		ds = append(ds, d)
		if q.Focus != "" {
			focus = append(focus, d)
		} else {
			agent = append(agent, d)
		}
	}
	return coldFigures{Runs: runs, Medianms: summarize(ds).P50ms, Maxms: ms(slices.Max(ds)),
		FocusMedianms: summarize(focus).P50ms, AgentMedianms: summarize(agent).P50ms}, nil
}

// machine describes where the figures were taken.
func machine() machineInfo {
	m := machineInfo{Go: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Cores: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				m.MemBytes = kb << 10
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}
