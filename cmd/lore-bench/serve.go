package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
)

// runServe is `lore-bench serve`: `lore serve --http` under load on
// loopback, beside the in-process packet of the same run.
//
// It builds the bench corpus once (or reuses -dir's), times the packets
// and searches of the seeded queries in process (a read-only lore.Open,
// as the packets phase), then, at each mix and client count, for each
// lore binary in turn (-baseline-bin first, when given, then -lore-bin),
// starts `lore serve --http` on the store and runs: concurrent HTTP clients,
// each sending its next request as soon as the last is answered, until
// -requests are answered or -duration has passed. Beside the clients,
// another process runs `lore put` on the same store every -other-writer
// (its wait and failures are reported). Mixes: "packet" (POST
// /v1/packet alone) and "mixed" (reads and writes 9:1: per ten
// requests five packets, four searches and one write of a record).
// Nothing is asserted; the table is the answer.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lore-bench serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 100000, "records in the corpus")
	seed := fs.Uint64("seed", 1, "corpus and query seed")
	queries := fs.Int("queries", 500, "seeded queries, used in turn by every run")
	budgetTokens := fs.Int("budget", 8000, "packet budget in tokens")
	clientsFlag := fs.String("clients", "1,4,16", "concurrent HTTP clients, comma-separated")
	mixesFlag := fs.String("mix", "packet,mixed", "mixes to run: packet, mixed")
	requests := fs.Int("requests", 3000, "requests answered per run (a mix at a client count), at most")
	duration := fs.Duration("duration", 15*time.Second, "time per run, at most")
	otherWriter := fs.Duration("other-writer", 500*time.Millisecond, "a `lore put` in another process this often during each run (0: none)")
	dir := fs.String("dir", "", "work directory; a corpus already built there (by an earlier -keep run) is reused (default: a temporary one, removed at the end)")
	keep := fs.Bool("keep", false, "keep the work directory")
	loreBin := fs.String("lore-bin", "", "lore binary to serve (default: go build ./cmd/lore)")
	baseBin := fs.String("baseline-bin", "", "an older lore binary to measure first, in the same run, on the same store")
	jsonFile := fs.String("json", "", "write the figures as JSON to this file")
	perRequest := fs.Bool("per-request", false, "also serve with -lore-bin's --keep-open 0 (the store opened for every request): the kept open alone, on the same code")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (all input is flags): %w", fs.Arg(0), errUsage)
	}
	clients, err := intList(*clientsFlag)
	if err != nil {
		return fmt.Errorf("-clients %q: %v: %w", *clientsFlag, err, errUsage)
	}
	mixes := strings.Split(*mixesFlag, ",")
	for _, m := range mixes {
		if m != mixPacket && m != mixMixed {
			return fmt.Errorf("-mix %q: want packet, mixed or both: %w", *mixesFlag, errUsage)
		}
	}
	switch {
	case *n < 1, *queries < 1, *budgetTokens < 1, *requests < 1, *duration <= 0, *otherWriter < 0:
		return fmt.Errorf("-n, -queries, -budget, -requests and -duration must be positive, -other-writer 0 or more: %w", errUsage)
	}
	work := *dir
	if work == "" {
		if work, err = os.MkdirTemp("", "lore-bench-serve-"); err != nil {
			return err
		}
		if !*keep {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	c := corpus{seed: *seed, n: *n}
	storeDir := loreDir(work)
	if _, err := os.Stat(filepath.Join(storeDir, lore.BoltFile)); err != nil {
		fmt.Fprintf(stderr, "building the corpus of %d records in %s ...\n", *n, storeDir)
		if _, err := ingestLore(c, phaseArgs{N: *n, Seed: *seed, Batch: 1000, Dir: work}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stderr, "reusing the store in %s (it must hold the corpus of -n %d -seed %d)\n", storeDir, *n, *seed)
	}
	if *loreBin == "" {
		*loreBin = filepath.Join(work, "lore-cli")
		fmt.Fprintf(stderr, "building %s ...\n", *loreBin)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", *loreBin, "github.com/lorekeep/lore/cmd/lore")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build of the lore CLI (run lore-bench from inside the lore module, or give -lore-bin): %v: %s", err, out)
		}
	}
	qs := c.queries(*queries)
	rep := serveReport{Machine: machine(), N: *n, Seed: *seed, Budget: *budgetTokens, Started: time.Now().UTC().Format(time.RFC3339)}
	fmt.Fprintf(stderr, "in process ...\n")
	if rep.InProcess, err = inProcess(ctx, storeDir, qs, *budgetTokens); err != nil {
		return err
	}
	type server struct {
		name, path string
		args       []string // more flags of lore serve
	}
	var bins []server
	if *baseBin != "" {
		bins = append(bins, server{name: "baseline", path: *baseBin})
	}
	if *perRequest {
		bins = append(bins, server{name: "this, --keep-open 0", path: *loreBin, args: []string{"--keep-open", "0"}})
	}
	bins = append(bins, server{name: "this", path: *loreBin})
	// The binaries take turns at each mix and client count, so that a
	// machine whose speed drifts (a shared one) moves both alike.
	for _, mix := range mixes {
		for _, k := range clients {
			for _, b := range bins {
				fmt.Fprintf(stderr, "%s (%s): %s with %d clients ...\n", b.name, b.path, mix, k)
				r, err := serveRun(ctx, serveRunArgs{bin: b.path, serveArgs: b.args, store: storeDir, qs: qs, budget: *budgetTokens, mix: mix,
					clients: k, requests: *requests, duration: *duration, otherWriter: *otherWriter})
				if err != nil {
					return fmt.Errorf("%s %s: %w", b.name, b.path, err)
				}
				r.Binary = b.name
				rep.Runs = append(rep.Runs, r)
			}
		}
	}
	rep.print(stdout)
	if *jsonFile != "" {
		out, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonFile, append(out, '\n'), 0o644)
	}
	return nil
}

const (
	mixPacket = "packet"
	mixMixed  = "mixed"
)

func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, errors.New("want positive numbers such as 1,4,16")
		}
		out = append(out, k)
	}
	return out, nil
}

// serveReport is what `lore-bench serve` measured.
type serveReport struct {
	Machine   machineInfo   `json:"machine"`
	N         int           `json:"n"`
	Seed      uint64        `json:"seed"`
	Budget    int           `json:"budget"`
	Started   string        `json:"started"`
	InProcess inProcessFigs `json:"in_process"`
	Runs      []serveResult `json:"runs"`
}

// inProcessFigs are the same requests built in process, one at a time.
type inProcessFigs struct {
	Packet latency `json:"packet"`
	Search latency `json:"search"`
}

// serveResult is one run: a binary, a mix, a client count.
type serveResult struct {
	Binary    string  `json:"binary"`
	Mix       string  `json:"mix"`
	Clients   int     `json:"clients"`
	Seconds   float64 `json:"seconds"`
	Answered  int     `json:"answered"`
	PerSecond float64 `json:"per_second"`
	All       latency `json:"all"`
	Packet    latency `json:"packet"`
	Search    latency `json:"search"`
	Write     latency `json:"write"`
	// Errors counts answers other than 200 (and 422, a packet whose
	// protected content does not fit); FirstError is the first.
	Errors     int    `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
	// The other process's `lore put`s: how many, how long each took
	// (process start to exit, the lock wait included), how many failed.
	OtherPuts   latency `json:"other_puts"`
	OtherMaxms  float64 `json:"other_max_ms"`
	OtherFailed int     `json:"other_failed"`
	OtherError  string  `json:"other_error,omitempty"`
}

// inProcess times the packets and searches of qs through a read-only
// open, warm (after warmup untimed), one at a time.
func inProcess(ctx context.Context, dir string, qs []query, budget int) (inProcessFigs, error) {
	var f inProcessFigs
	l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		return f, err
	}
	defer l.Close()
	var pk, se []time.Duration
	for k, q := range qs {
		t := time.Now()
		p, err := l.Packet(ctx, packetRequest(q, "", budget))
		if err == nil {
			_, err = p.Render("md")
		}
		d := time.Since(t)
		if err != nil && !errors.Is(err, packet.ErrCannotFit) {
			return f, fmt.Errorf("packet ns %q query %q: %w", q.NS, q.Text, err)
		}
		t = time.Now()
		if _, err := l.Search(ctx, index.Query{NS: q.NS, Text: q.Text, Limit: 50}); err != nil {
			return f, err
		}
		ds := time.Since(t)
		if k >= warmup || len(qs) <= warmup {
			pk, se = append(pk, d), append(se, ds)
		}
	}
	f.Packet, f.Search = summarize(pk), summarize(se)
	return f, nil
}

type serveRunArgs struct {
	bin, store  string
	serveArgs   []string
	qs          []query
	budget      int
	mix         string
	clients     int
	requests    int
	duration    time.Duration
	otherWriter time.Duration
}

// serveRun starts `lore serve --http` on a free loopback port, runs the
// clients (and the other writer) and stops the server.
func serveRun(ctx context.Context, a serveRunArgs) (serveResult, error) {
	r := serveResult{Mix: a.mix, Clients: a.clients}
	port, err := freePort()
	if err != nil {
		return r, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	srv := exec.CommandContext(ctx, a.bin, append([]string{"--store", a.store, "serve", "--http", addr}, a.serveArgs...)...)
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		return r, err
	}
	defer func() {
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
	}()
	base := "http://" + addr
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: a.clients + 4}, Timeout: time.Minute}
	if err := waitReady(ctx, hc, base, srv, &srvErr); err != nil {
		return r, err
	}

	stop := make(chan struct{})
	var other sync.WaitGroup
	var otherTimes []time.Duration
	if a.otherWriter > 0 {
		other.Go(func() {
			tick := time.NewTicker(a.otherWriter)
			defer tick.Stop()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				t := time.Now()
				cmd := exec.CommandContext(ctx, a.bin, "--store", a.store, "--quiet", "put", "--ns", "assistant", "--kind", "memory",
					"--body", fmt.Sprintf("Another process wrote this note, number %d.", k), fmt.Sprintf("bench-other-%03d", k%100))
				out, err := cmd.CombinedOutput()
				if err != nil {
					r.OtherFailed++
					if r.OtherError == "" {
						r.OtherError = fmt.Sprintf("%v: %s", err, bytes.TrimSpace(out))
					}
					continue
				}
				otherTimes = append(otherTimes, time.Since(t))
			}
		})
	}

	var next atomic.Int64
	type sample struct {
		op string
		d  time.Duration
	}
	samples := make([][]sample, a.clients)
	var errMu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(a.duration)
	for c := range a.clients {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= a.requests || time.Now().After(deadline) || ctx.Err() != nil {
					return
				}
				op, path, body := serveRequest(a, k)
				t := time.Now()
				status, msg := post(ctx, hc, base+path, body)
				d := time.Since(t)
				if status != http.StatusOK && !(op == "packet" && status == http.StatusUnprocessableEntity) {
					errMu.Lock()
					r.Errors++
					if r.FirstError == "" {
						r.FirstError = fmt.Sprintf("%s %s: %d %s", op, path, status, msg)
					}
					errMu.Unlock()
					continue
				}
				samples[c] = append(samples[c], sample{op, d})
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	other.Wait()
	var all, pk, se, wr []time.Duration
	for _, ss := range samples {
		for _, s := range ss {
			all = append(all, s.d)
			switch s.op {
			case "packet":
				pk = append(pk, s.d)
			case "search":
				se = append(se, s.d)
			default:
				wr = append(wr, s.d)
			}
		}
	}
	r.Seconds, r.Answered = elapsed.Seconds(), len(all)
	r.PerSecond = float64(len(all)) / elapsed.Seconds()
	r.All, r.Packet, r.Search, r.Write = summarize(all), summarize(pk), summarize(se), summarize(wr)
	r.OtherPuts = summarize(otherTimes)
	for _, d := range otherTimes {
		r.OtherMaxms = max(r.OtherMaxms, ms(d))
	}
	return r, nil
}

// serveRequest is request k of a run: its kind, path and body.
func serveRequest(a serveRunArgs, k int) (op, path string, body any) {
	q := a.qs[k%len(a.qs)]
	switch {
	case a.mix == mixMixed && k%10 == 9:
		return "write", "/v1/records", map[string]any{"ns": "assistant", "id": fmt.Sprintf("bench-serve-%03d", k%200),
			"kind": "memory", "body": fmt.Sprintf("A note the load test wrote, request %d: %s.", k, q.Text)}
	case a.mix == mixMixed && k%2 == 1:
		return "search", "/v1/search", map[string]any{"ns": q.NS, "query": q.Text, "limit": 50}
	}
	req := map[string]any{"ns": q.NS, "query": q.Text, "budget": a.budget, "profile": q.Profile}
	if q.Focus != "" {
		req["focus"] = []string{q.Focus}
	}
	return "packet", "/v1/packet", req
}

// post sends body as JSON and returns the status, and the answer's
// start when it is not 200; the answer is read whole either way.
func post(ctx context.Context, hc *http.Client, url string, body any) (int, string) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err.Error()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return 0, err.Error()
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err.Error()
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, firstLine(out)
	}
	return resp.StatusCode, ""
}

// freePort finds a loopback port free now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitReady waits (up to a minute) until the server answers.
func waitReady(ctx context.Context, hc *http.Client, base string, srv *exec.Cmd, srvErr *bytes.Buffer) error {
	deadline := time.Now().Add(time.Minute)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/namespaces", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if srv.ProcessState != nil || time.Now().After(deadline) {
			return fmt.Errorf("lore serve --http %s did not start: %w: %s", base, errPhase, strings.TrimSpace(srvErr.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (rep serveReport) print(w io.Writer) {
	m := rep.Machine
	fmt.Fprintf(w, "lore serve --http on loopback, %d records (seed %d), packets at %d tokens; %s, %d cores, %s, load %s\n\n",
		rep.N, rep.Seed, rep.Budget, m.CPU, m.Cores, m.Go, m.LoadAvg)
	fmt.Fprintf(w, "in process, one at a time: packet p50 %.2f ms, p99 %.2f ms; search p50 %.2f ms, p99 %.2f ms\n\n",
		rep.InProcess.Packet.P50ms, rep.InProcess.Packet.P99ms, rep.InProcess.Search.P50ms, rep.InProcess.Search.P99ms)
	fmt.Fprintf(w, "| binary | mix | clients | requests/s | all p50 / p99 ms | packet p50 / p99 | search p50 / p99 | write p50 / p99 | errors | other process's puts: n, p50 / max ms, failed |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Runs {
		dash := func(l latency) string {
			if l.Count == 0 {
				return "-"
			}
			return pp(l)
		}
		maxPut := "-"
		if r.OtherPuts.Count > 0 {
			maxPut = fmt.Sprintf("%d, %.0f / %.0f, %d", r.OtherPuts.Count, r.OtherPuts.P50ms, r.OtherMaxms, r.OtherFailed)
		} else if r.OtherFailed > 0 {
			maxPut = fmt.Sprintf("0, -, %d", r.OtherFailed)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.1f | %s | %s | %s | %s | %d | %s |\n", r.Binary, r.Mix, r.Clients, r.PerSecond,
			dash(r.All), dash(r.Packet), dash(r.Search), dash(r.Write), r.Errors, maxPut)
	}
	for _, r := range rep.Runs {
		if r.FirstError != "" {
			fmt.Fprintf(w, "\n%s %s %d clients, first error: %s", r.Binary, r.Mix, r.Clients, r.FirstError)
		}
		if r.OtherError != "" {
			fmt.Fprintf(w, "\n%s %s %d clients, the other process's first failed put: %s", r.Binary, r.Mix, r.Clients, r.OtherError)
		}
	}
	fmt.Fprintln(w)
}
