package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
)

// lineWriter hands each complete output line to a channel.
type lineWriter struct {
	buf   bytes.Buffer
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		w.lines <- strings.TrimSpace(line)
	}
}

func TestRunPrintsMembersAndStoreURL(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lineWriter{lines: make(chan string, 16)}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-n", "1", "-dir", dir, "-prefix", "try"}, out, os.Stderr) }()
	member := regexp.MustCompile(`^member 1 pid (\d+) client http://127\.0\.0\.1:(\d+)$`)
	var port, url string
	timeout := time.After(60 * time.Second)
	for url == "" {
		select {
		case l := <-out.lines:
			if m := member.FindStringSubmatch(l); m != nil {
				port = m[2]
			} else if u, ok := strings.CutPrefix(l, "store "); ok {
				url = u
			} else {
				t.Fatalf("unexpected line %q", l)
			}
		case err := <-done:
			t.Fatalf("run ended early: %v", err)
		case <-timeout:
			t.Fatal("no store URL within 60s")
		}
	}
	if want := fmt.Sprintf("etcd://127.0.0.1:%s/try", port); url != want {
		t.Errorf("store URL %q; want %q", url, want)
	}
	s, err := etcdstore.Open(url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(store.Record{NS: "n", ID: "x"}); err != nil {
		t.Error(err)
	}
	s.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel: %v", err)
	}
	if _, err := os.Stat(dir + "/cluster.json"); err != nil {
		t.Errorf("no cluster plan kept: %v", err)
	}
}

func TestRunUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "3"}, "-dir is required"},
		{[]string{"-n", "2", "-dir", t.TempDir()}, "want 1, 3 or 5"},
		{[]string{"-n", "1", "-dir", t.TempDir(), "-member", "4"}, "has members 1..1"},
	} {
		err := run(context.Background(), c.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want an error saying %q", c.args, err, c.want)
		}
	}
}

// TestLoreBinaryHasNoEtcdServer keeps the server in lore-cluster and the
// tests: the lore binary needs only the client.
func TestLoreBinaryHasNoEtcdServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../lore").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "go.etcd.io/etcd/client/v3") {
		t.Errorf("lore does not depend on the etcd client; the list is wrong")
	}
	for _, line := range strings.Fields(string(out)) {
		if strings.HasPrefix(line, "go.etcd.io/etcd/server/") {
			t.Errorf("the lore binary pulls in %s", line)
		}
	}
}

func TestBenchSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-member etcd cluster")
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"bench", "-n", "300", "-queries", "5", "-batch", "100"}, &out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| bbolt |") || !strings.Contains(out.String(), "| etcd, 3 members |") {
		t.Errorf("bench table lacks a backend:\n%s", out.String())
	}
}
