// Command lore-cluster starts a local etcd cluster to try Lore's etcd
// store on one machine: n embedded members on loopback ports, each in its
// own child process (so one can be killed as a real machine dies), with
// their data under -dir. It prints one line per member,
//
//	member N pid P client URL
//
// then the store URL, and runs until SIGINT or SIGTERM, which it passes
// on to the members. Run again with the same -dir to restart the same
// cluster (the ports are kept in DIR/cluster.json); -member N starts only
// member N, to bring back one that was killed.
//
//	go run ./cmd/lore-cluster -n 3 -dir /tmp/lc
//	go run ./cmd/lore-cluster bench -n 10000   # BENCHMARKS.md's etcd table
//	lore --store etcd://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/lore init
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lorekeep/lore/internal/etcdmember"
)

// memberEnv, when set, makes this program (or a test binary standing in
// for it) run one member instead of a cluster: its value is the member's
// JSON.
const memberEnv = "LORE_CLUSTER_MEMBER"

// readyLine is what a member prints on stdout once it serves.
const readyLine = "ready"

func main() {
	if spec := os.Getenv(memberEnv); spec != "" {
		if err := runMember(spec, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "lore-cluster member:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lore-cluster:", err)
		os.Exit(1)
	}
}

// plan is DIR/cluster.json: the members and their ports, kept so that a
// restart finds its data dirs' peers where they were.
type plan struct {
	Members []etcdmember.Member `json:"members"`
	Prefix  string              `json:"prefix"`
}

// spec is what a member child is told.
type spec struct {
	Member  etcdmember.Member `json:"member"`
	Cluster string            `json:"cluster"`
	Dir     string            `json:"dir"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "bench" {
		return runBench(args[1:], stdout, stderr)
	}
	fl := flag.NewFlagSet("lore-cluster", flag.ContinueOnError)
	fl.SetOutput(stderr)
	n := fl.Int("n", 3, "number of members (1, 3 or 5)")
	dir := fl.String("dir", "", "folder for the members' data (required)")
	prefix := fl.String("prefix", "lore", "key prefix of the printed store URL")
	only := fl.Int("member", 0, "start only this member (1..n) of an existing cluster in -dir")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("-dir is required: the folder for the members' data, e.g. -dir /tmp/lore-cluster")
	}
	if *n != 1 && *n != 3 && *n != 5 {
		return fmt.Errorf("-n %d: want 1, 3 or 5 members (an odd number, so a majority survives)", *n)
	}
	p, err := loadPlan(*dir, *n, *prefix)
	if err != nil {
		return err
	}
	if *only < 0 || *only > len(p.Members) {
		return fmt.Errorf("-member %d: the cluster in %s has members 1..%d", *only, *dir, len(p.Members))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var procs []*exec.Cmd
	defer func() {
		for _, c := range procs {
			c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range procs {
			c.Wait()
		}
	}()
	ready := make(chan error, len(p.Members))
	for i, m := range p.Members {
		if *only != 0 && i+1 != *only {
			continue
		}
		c, err := startMember(self, spec{Member: m, Cluster: etcdmember.InitialCluster(p.Members), Dir: filepath.Join(*dir, m.Name)}, stderr, ready)
		if err != nil {
			return err
		}
		procs = append(procs, c)
		fmt.Fprintf(stdout, "member %d pid %d client %s\n", i+1, c.Process.Pid, m.Client)
	}
	timeout := time.After(90 * time.Second)
	for range procs {
		select {
		case err := <-ready:
			if err != nil {
				return err
			}
		case <-timeout:
			return errors.New("the members did not report ready within 90s (is a quorum of them running?)")
		case <-ctx.Done():
			return nil
		}
	}
	fmt.Fprintf(stdout, "store %s\n", etcdmember.StoreURL(p.Members, p.Prefix))
	if f, ok := stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	<-ctx.Done()
	return nil
}

// loadPlan reads DIR/cluster.json, or picks free ports and writes it.
func loadPlan(dir string, n int, prefix string) (plan, error) {
	path := filepath.Join(dir, "cluster.json")
	b, err := os.ReadFile(path)
	if err == nil {
		var p plan
		if err := json.Unmarshal(b, &p); err != nil || len(p.Members) == 0 {
			return plan{}, fmt.Errorf("%s is not a lore-cluster plan (%v); use a new -dir", path, err)
		}
		return p, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return plan{}, err
	}
	ms, err := etcdmember.Plan(n)
	if err != nil {
		return plan{}, err
	}
	p := plan{Members: ms, Prefix: prefix}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plan{}, err
	}
	b, _ = json.MarshalIndent(p, "", "  ")
	return p, os.WriteFile(path, append(b, '\n'), 0o644)
}

// startMember runs one member as a child process of self; ready gets nil
// when it serves, or its error.
func startMember(self string, sp spec, stderr io.Writer, ready chan<- error) (*exec.Cmd, error) {
	b, _ := json.Marshal(sp)
	c := exec.Command(self)
	c.Env = append(os.Environ(), memberEnv+"="+string(b))
	c.Stderr = stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start member %s: %w", sp.Member.Name, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == readyLine {
				ready <- nil
				io.Copy(io.Discard, out)
				return
			}
		}
		ready <- fmt.Errorf("member %s exited before it was ready (its log: %s)", sp.Member.Name, filepath.Join(sp.Dir, "etcd.log"))
	}()
	return c, nil
}

// runMember is the child: it serves one member until SIGTERM or SIGINT.
func runMember(js string, stdout io.Writer) error {
	var sp spec
	if err := json.Unmarshal([]byte(js), &sp); err != nil {
		return fmt.Errorf("%s: %w", memberEnv, err)
	}
	if err := os.MkdirAll(sp.Dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := etcdmember.Start(sp.Member, sp.Cluster, filepath.Join(sp.Dir, "data"), filepath.Join(sp.Dir, "etcd.log"), 80*time.Second)
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Fprintln(stdout, readyLine)
	select {
	case <-ctx.Done():
		return nil
	case err := <-e.Err():
		return err
	}
}
