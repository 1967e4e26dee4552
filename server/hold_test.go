package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/server"
	"github.com/lorekeep/lore/store"
	bolt "go.etcd.io/bbolt"
)

// The tests of a server that keeps its store open across requests
// (server/hold.go): other opens' writes are read, other opens get their
// turn within their lock timeout, two servers share a store, Close lets
// go of the file. Nothing here times the server: only outcomes.

// cliPut stands in for `lore put` in another process: it opens the
// store writable with the CLI's default lock timeout, puts one record
// and closes.
func cliPut(dir, id, body string) error {
	l, err := lore.Open(dir, &lore.Options{LockTimeout: store.DefaultLockTimeout})
	if err != nil {
		return err
	}
	_, err = l.Put(context.Background(), store.Record{NS: server.DefaultMemoryNS, ID: id, Kind: "memory", Body: body})
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return err
}

// readBack reads id through a server and returns its body ("" and the
// status when not 200).
func readBack(t *testing.T, url, id string) (string, int) {
	t.Helper()
	status, body := do(t, "GET", url+"/v1/records/memory/"+id, "", nil)
	if status != 200 {
		return "", status
	}
	var rec store.Record
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Body, status
}

// searchHas reports whether a search through a server finds id.
func searchHas(t *testing.T, url, query, id string) bool {
	t.Helper()
	status, body := do(t, "POST", url+"/v1/search", "", map[string]any{"query": query})
	if status != 200 {
		t.Fatalf("search %q: %d %s", query, status, body)
	}
	return strings.Contains(body, `"`+id+`"`)
}

// A write by another open of the store (a CLI put) is read, searched and
// packed by the next request of a server that keeps the store open.
func TestHoldSeesOtherWrites(t *testing.T) {
	dir := srvStore(t)
	s := newServer(t, dir, &server.Options{Idle: time.Hour, Lease: time.Hour})
	url := serveHTTP(t, s)
	for i := range 5 {
		// A write and a read through the server: the store is held.
		if status, body := do(t, "POST", url+"/v1/records", "", map[string]any{"id": fmt.Sprint("own-", i), "body": "written by the server"}); status != 200 {
			t.Fatalf("put: %d %s", status, body)
		}
		if _, status := readBack(t, url, fmt.Sprint("own-", i)); status != 200 {
			t.Fatalf("read own write: %d", status)
		}
		if !s.HoldStats().Held {
			t.Fatal("the server does not keep the store open between requests")
		}
		id, word := fmt.Sprint("cli-", i), fmt.Sprintf("quokka%d", i)
		if err := cliPut(dir, id, "the "+word+" was written by the command line"); err != nil {
			t.Fatalf("CLI put %d beside the server: %v", i, err)
		}
		if body, status := readBack(t, url, id); status != 200 || !strings.Contains(body, word) {
			t.Errorf("round %d: the server reads %q (%d) after the CLI's put", i, body, status)
		}
		if !searchHas(t, url, word, id) {
			t.Errorf("round %d: the server's search misses %s after the CLI's put", i, id)
		}
		status, body := do(t, "POST", url+"/v1/packet", "", map[string]any{"query": word, "budget": 2000})
		if status != 200 || !strings.Contains(body, id) {
			t.Errorf("round %d: the server's packet misses %s after the CLI's put: %d %.300s", i, id, status, body)
		}
	}
	if st := s.HoldStats(); st.Turns == 0 {
		t.Errorf("the CLI's puts got in without the server giving the store back: %+v", st)
	}
	srvCheckClosed(t, s, dir)
}

// serveHTTP serves s through httptest; cleanup closes both.
func serveHTTP(t *testing.T, s *server.Server) string {
	t.Helper()
	return httpServerOf(t, s)
}

// srvCheckClosed closes s and checks the store.
func srvCheckClosed(t *testing.T, s *server.Server, dir string) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Errorf("close server: %v", err)
	}
	srvCheck(t, dir)
}

// hammer sends reads (get, search, packet) to url from n goroutines until
// stop is closed, and counts them; a failed read is reported.
func hammer(t *testing.T, url string, n int, stop <-chan struct{}, count *atomic.Int64) *sync.WaitGroup {
	var wg sync.WaitGroup
	for c := range n {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var status int
				var body string
				switch (c + i) % 3 {
				case 0:
					status, body = do(t, "GET", url+"/v1/records/memory/seed-001", "", nil)
				case 1:
					status, body = do(t, "POST", url+"/v1/search", "", map[string]any{"query": "harbour"})
				default:
					status, body = do(t, "POST", url+"/v1/packet", "", map[string]any{"query": "harbour note", "budget": 1500})
				}
				if status != 200 {
					t.Errorf("read while others write: %d %.300s", status, body)
					return
				}
				count.Add(1)
			}
		})
	}
	return &wg
}

// seedHarbour puts records for the readers of hammer.
func seedHarbour(t *testing.T, dir string) {
	t.Helper()
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 40 {
		if _, err := l.Put(context.Background(), store.Record{NS: server.DefaultMemoryNS, ID: fmt.Sprintf("seed-%03d", i), Kind: "memory", Body: fmt.Sprintf("seed note %d about the harbour", i)}); err != nil {
			t.Fatal(err)
		}
	}
}

// A CLI-style writer with the CLI's lock timeout gets in while a server
// is read from in a loop, from this process and from another one; each
// write is read back through the server right after.
func TestHoldWriterGetsTurn(t *testing.T) {
	dir := srvStore(t)
	seedHarbour(t, dir)
	s := newServer(t, dir, nil)
	url := serveHTTP(t, s)
	stop := make(chan struct{})
	var reads atomic.Int64
	wg := hammer(t, url, 4, stop, &reads)
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for reads.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	for i := range 6 {
		id := fmt.Sprint("turn-", i)
		if i%2 == 0 {
			if err := cliPut(dir, id, "put beside the readers"); err != nil {
				t.Fatalf("put %d in this process while the server is read: %v", i, err)
			}
		} else if err := putInOtherProcess(t, dir, id, "put beside the readers"); err != nil {
			t.Fatalf("put %d in another process while the server is read: %v", i, err)
		}
		if body, status := readBack(t, url, id); status != 200 || body != "put beside the readers" {
			t.Errorf("write %d not read back through the server: %d %q", i, status, body)
		}
	}
	t.Logf("%d reads beside the writers; %+v", reads.Load(), s.HoldStats())
}

// putInOtherProcess runs cliPut in a child process (this test binary).
func putInOtherProcess(t *testing.T, dir, id, body string) error {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPutHelperProcess$")
	cmd.Env = append(os.Environ(), "LORE_PUT_HELPER_DIR="+dir, "LORE_PUT_HELPER_ID="+id, "LORE_PUT_HELPER_BODY="+body)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// TestPutHelperProcess is the other process of putInOtherProcess.
func TestPutHelperProcess(t *testing.T) {
	dir := os.Getenv("LORE_PUT_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	if err := cliPut(dir, os.Getenv("LORE_PUT_HELPER_ID"), os.Getenv("LORE_PUT_HELPER_BODY")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Two servers on one store, each keeping it open, and a CLI writer
// beside them: every acknowledged write, through either server or the
// CLI, is read by the next request of either server, and no writer waits
// past its lock timeout (each would fail with ErrLocked).
func TestHoldTwoServersAndCLI(t *testing.T) {
	dir := srvStore(t)
	a := newServer(t, dir, nil)
	b := newServer(t, dir, nil)
	urls := []string{serveHTTP(t, a), serveHTTP(t, b)}
	var wg sync.WaitGroup
	const clients, rounds = 4, 8
	for c := range clients {
		wg.Go(func() {
			for i := range rounds {
				id := fmt.Sprintf("c%d-%d", c, i)
				body := fmt.Sprintf("client %d round %d", c, i)
				if c == 0 {
					// The CLI writer.
					if err := cliPut(dir, id, body); err != nil {
						t.Errorf("CLI put %s beside two servers: %v", id, err)
						continue
					}
				} else {
					w := urls[(c+i)%2]
					if status, out := do(t, "POST", w+"/v1/records", "", map[string]any{"id": id, "body": body}); status != 200 {
						t.Errorf("put %s via %s: %d %s", id, w, status, out)
						continue
					}
				}
				for _, r := range urls {
					if got, status := readBack(t, r, id); got != body {
						t.Errorf("acknowledged write %s read via %s: %d %q, want %q", id, r, status, got, body)
					}
				}
			}
		})
	}
	wg.Wait()
	t.Logf("server a %+v; server b %+v", a.HoldStats(), b.HoldStats())
	if err := a.Close(); err != nil {
		t.Error(err)
	}
	srvCheckClosed(t, b, dir)
}

// Close lets go of the file: an open that does not wait gets in at once,
// where before Close it found the store held.
func TestHoldCloseReleases(t *testing.T) {
	dir := srvStore(t)
	s := newServer(t, dir, &server.Options{Idle: time.Hour, Lease: time.Hour})
	url := serveHTTP(t, s)
	if status, body := do(t, "POST", url+"/v1/records", "", map[string]any{"id": "x", "body": "held"}); status != 200 {
		t.Fatalf("put: %d %s", status, body)
	}
	noWait := &lore.Options{LockTimeout: time.Nanosecond}
	if l, err := lore.Open(dir, noWait); !errors.Is(err, store.ErrLocked) {
		if err == nil {
			l.Close()
		}
		t.Fatalf("open beside a holding server: %v, want ErrLocked", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.HoldStats().Held {
		t.Error("held after Close")
	}
	l, err := lore.Open(dir, noWait)
	if err != nil {
		t.Fatalf("open after the server's Close: %v", err)
	}
	l.Close()
	// A request after Close opens the store for itself and lets go.
	if got, status := readBack(t, url, "x"); got != "held" {
		t.Errorf("read after Close: %d %q", status, got)
	}
	if l, err = lore.Open(dir, noWait); err != nil {
		t.Fatalf("open after a request to a closed server: %v", err)
	}
	l.Close()
}

// MCP over stdio keeps the store open the same way and reads a CLI
// write with its next call.
func TestHoldMCPSeesOtherWrites(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, &server.Options{Idle: time.Hour, Lease: time.Hour})
	call(t, cs, "put_record", map[string]any{"id": "own", "body": "by the agent"})
	for i := range 3 {
		id := "cli-" + strconv.Itoa(i)
		if err := cliPut(dir, id, "by the command line "+strconv.Itoa(i)); err != nil {
			t.Fatalf("CLI put beside the MCP server: %v", err)
		}
		out := call(t, cs, "get_record", map[string]any{"id": id})
		if !strings.Contains(strings.Join(out, "\n"), "by the command line "+strconv.Itoa(i)) {
			t.Errorf("get_record %s after the CLI's put: %v", id, out)
		}
	}
}

// A process that waits for the store without announcing itself (an older
// lore, a bbolt tool: bbolt's own wait, a try every 50 ms) gets in at a
// lease's end, while the server is read from in a loop.
func TestHoldLeaseLetsUnannouncedIn(t *testing.T) {
	dir := srvStore(t)
	seedHarbour(t, dir)
	s := newServer(t, dir, &server.Options{Lease: 100 * time.Millisecond})
	url := serveHTTP(t, s)
	stop := make(chan struct{})
	var reads atomic.Int64
	wg := hammer(t, url, 4, stop, &reads)
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for reads.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	for i := range 3 {
		db, err := bolt.Open(filepath.Join(dir, lore.BoltFile), 0o600, &bolt.Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatalf("bbolt open %d, unannounced, beside a busy server: %v (%+v)", i, err, s.HoldStats())
		}
		db.Close()
	}
	if st := s.HoldStats(); st.Leases == 0 {
		t.Errorf("no lease ended: %+v", st)
	}
}
