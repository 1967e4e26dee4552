package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/etcdmember"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// writerEnv makes the test binary a Lore writer process: "URL|NAME|N".
const writerEnv = "LORE_CLUSTER_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(memberEnv); spec != "" {
		if err := runMember(spec, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "member:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if w := os.Getenv(writerEnv); w != "" {
		os.Exit(writer(w))
	}
	os.Exit(m.Run())
}

// writer puts N records through the facade, building a packet every 10,
// and prints "ack ID" for each put the store acknowledged, "fail ID" for
// each it refused, and "packet ok|fail".
func writer(spec string) int {
	parts := strings.Split(spec, "|")
	var n int
	fmt.Sscan(parts[2], &n)
	l, err := lore.Open(parts[0], &lore.Options{LocalDir: parts[3], Engine: &etcdstore.Options{RequestTimeout: 3 * time.Second}})
	if err != nil {
		fmt.Println("open fail", err)
		return 1
	}
	defer l.Close()
	ctx := context.Background()
	out := bufio.NewWriter(os.Stdout)
	for i := range n {
		id := fmt.Sprintf("%s-%03d", parts[1], i)
		_, err := l.Put(ctx, store.Record{NS: "load", ID: id, Title: "load " + id, Body: "the lantern keeper logs entry " + id})
		if err != nil && !errors.Is(err, lore.ErrIndexLags) { // a lag error: the put was saved
			fmt.Fprintln(out, "fail", id, strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Fprintln(out, "ack", id)
		}
		if i%10 == 9 {
			if _, err := l.Packet(ctx, packet.Request{NS: "load", Query: "lantern keeper", Budget: 2000}); err != nil {
				fmt.Fprintln(out, "packet fail", err)
			} else {
				fmt.Fprintln(out, "packet ok")
			}
		}
		out.Flush()
	}
	return 0
}

// cluster is a 3-member cluster of child processes.
type cluster struct {
	t     *testing.T
	dir   string
	ms    []etcdmember.Member
	procs []*exec.Cmd
}

func startCluster(t *testing.T) *cluster {
	ms, err := etcdmember.Plan(3)
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, dir: t.TempDir(), ms: ms, procs: make([]*exec.Cmd, 3)}
	t.Cleanup(func() {
		for i := range c.procs {
			c.kill(i)
		}
	})
	ready := make(chan error, 3)
	for i := range ms {
		c.start(i, ready)
	}
	for range ms {
		if err := <-ready; err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (c *cluster) start(i int, ready chan error) {
	sp := spec{Member: c.ms[i], Cluster: etcdmember.InitialCluster(c.ms), Dir: filepath.Join(c.dir, c.ms[i].Name)}
	p, err := startMember(os.Args[0], sp, os.Stderr, ready)
	if err != nil {
		c.t.Fatal(err)
	}
	c.procs[i] = p
}

// kill stops member i hard, as a machine dies.
func (c *cluster) kill(i int) {
	if p := c.procs[i]; p != nil {
		p.Process.Signal(syscall.SIGKILL)
		p.Wait()
		c.procs[i] = nil
	}
}

func (c *cluster) url() string { return etcdmember.StoreURL(c.ms, "fault") }

// leader returns the index of the member that leads now.
func (c *cluster) leader(cli *clientv3.Client) int {
	for i, m := range c.ms {
		ep := strings.TrimPrefix(m.Client, "http://")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := cli.Status(ctx, ep)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return i
		}
	}
	c.t.Fatal("no member says it leads")
	return -1
}

func TestFaultsOnThreeMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-member etcd cluster")
	}
	c := startCluster(t)
	url := c.url()
	if err := lore.Init(url); err != nil {
		t.Fatal(err)
	}
	eps, _, _ := etcdstore.ParseURL(url)
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	// Two Lore processes write; the leader is killed in the middle.
	const each = 120
	var mu sync.Mutex
	acked, failed, packets, packetFails := map[string]bool{}, 0, 0, 0
	var wg sync.WaitGroup
	progress := make(chan struct{}, 2*each)
	for w := range 2 {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|w%d|%d|%s", writerEnv, url, w, each, t.TempDir()))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				mu.Lock()
				switch {
				case len(f) >= 2 && f[0] == "ack":
					acked[f[1]] = true
					progress <- struct{}{}
				case len(f) >= 2 && f[0] == "packet":
					if f[1] == "ok" {
						packets++
					} else {
						packetFails++
					}
				case len(f) >= 1 && f[0] == "fail":
					failed++
					t.Logf("writer %d: %s", w, sc.Text())
				default:
					t.Errorf("writer %d: %s", w, sc.Text())
				}
				mu.Unlock()
			}
			cmd.Wait()
		})
	}
	for range 60 {
		<-progress // let both get going
	}
	killed := c.leader(cli)
	c.kill(killed)
	wg.Wait()

	mu.Lock()
	t.Logf("killed leader %s after 60 acks; %d writes acknowledged, %d refused; %d packets built, %d refused",
		c.ms[killed].Name, len(acked), failed, packets, packetFails)
	if len(acked)+failed != 2*each {
		t.Errorf("%d acks and %d failures; want %d writes accounted for", len(acked), failed, 2*each)
	}
	if len(acked) < each {
		t.Errorf("only %d of %d writes went through the leader change", len(acked), 2*each)
	}
	if packets == 0 {
		t.Errorf("no packet was built during the load")
	}
	mu.Unlock()

	// 0 acknowledged writes lost.
	s, err := etcdstore.Open(url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lost := 0
	for id := range acked {
		if _, err := s.Head("load", id); err != nil {
			lost++
			t.Errorf("acknowledged write %s is gone: %v", id, err)
		}
	}
	st, err := s.Stats("load")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lost %d of %d acknowledged writes; the store holds %d records", lost, len(acked), st.Records)

	// The killed member rejoins and catches up to the cluster's revision.
	ready := make(chan error, 1)
	c.start(killed, ready)
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
	last, err := s.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	ep := strings.TrimPrefix(c.ms[killed].Client, "http://")
	one, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		resp, err := one.Get(ctx, "/fault/heads/", clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithSerializable())
		cancel()
		if err == nil && resp.Header.Revision >= int64(last) && resp.Count == int64(st.Records) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rejoined member %s did not catch up to revision %d with %d records (last answer %v, %v)", c.ms[killed].Name, last, st.Records, resp, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// 2 of 3 down: no quorum. Writes fail naming the endpoints, reads are
	// refused clearly, and nothing is half-written.
	before, err := s.Stats("")
	if err != nil {
		t.Fatal(err)
	}
	weak, err := etcdstore.Open(url, nil, &etcdstore.Options{RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer weak.Close()
	down := []int{(killed + 1) % 3, (killed + 2) % 3}
	for _, i := range down {
		c.kill(i)
	}
	var recs []store.Record
	for i := range 20 {
		recs = append(recs, store.Record{NS: "load", ID: fmt.Sprint("quorumless-", i)})
	}
	_, err = weak.PutMany(recs, nil)
	if !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), "no quorum") || !strings.Contains(err.Error(), eps[down[0]]) {
		t.Errorf("write without quorum: %v; want ErrUnavailable saying no quorum and naming the endpoints", err)
	}
	if _, err := weak.Get("load", "w0-000"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("linearizable read without quorum: %v; want a clear ErrUnavailable", err)
	}
	if _, err := etcdstore.Open(url, nil, &etcdstore.Options{RequestTimeout: time.Second}); !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), "no quorum") {
		t.Errorf("open without quorum: %v; want ErrUnavailable saying no quorum", err)
	}
	// Bring them back: the refused batch left nothing behind.
	ready = make(chan error, 2)
	for _, i := range down {
		c.start(i, ready)
	}
	for range down {
		if err := <-ready; err != nil {
			t.Fatal(err)
		}
	}
	after, err := s.Stats("")
	if err != nil {
		t.Fatal(err)
	}
	if after.Records != before.Records || after.LastSeq != before.LastSeq {
		t.Errorf("after the quorumless write: %d records at seq %d; before: %d at %d", after.Records, after.LastSeq, before.Records, before.LastSeq)
	}
	probs, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("check: %s/%s: %s", p.NS, p.ID, p.What)
	}
}
