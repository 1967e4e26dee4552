package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lorekeep/lore/server"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
)

// httpServer serves dir with opts through httptest and returns its URL.
func httpServer(t *testing.T, dir string, opts *server.Options) string {
	t.Helper()
	s := newServer(t, dir, opts)
	return httpServerOf(t, s)
}

// httpServerOf serves s through httptest and returns its URL; cleanup
// closes both.
func httpServerOf(t *testing.T, s *server.Server) string {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := s.Close(); err != nil {
			t.Errorf("close server: %v", err)
		}
	})
	return ts.URL
}

// do sends one request and returns the status and body.
func do(t *testing.T, method, url, token string, body any) (int, string) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out)
}

func TestHTTPRoundTrip(t *testing.T) {
	dir := srvStore(t)
	httpRoundTrip(t, httpServer(t, dir, nil))
	srvCheck(t, dir)
}

// TestHTTPRoundTripEtcd runs the same requests on a server whose store
// is on etcd, then checks a second server (another host: its own local
// index) sees the first one's writes at once.
func TestHTTPRoundTripEtcd(t *testing.T) {
	t.Setenv(lore.EnvLocal, t.TempDir())
	etcdURL := etcdtest.URL(t)
	if err := lore.Init(etcdURL); err != nil {
		t.Fatal(err)
	}
	a := httpServer(t, etcdURL, nil)
	httpRoundTrip(t, a)
	b := httpServer(t, etcdURL, nil) // the local index is a's: b builds its own
	if status, body := do(t, "POST", a+"/v1/records", "", map[string]any{"id": "kettle", "body": "the kettle sings"}); status != 200 {
		t.Fatalf("put on a: %d %s", status, body)
	}
	for _, st := range []struct {
		method, path string
		body         any
		want         string
	}{
		{"GET", "/v1/records/memory/kettle", nil, `"body":"the kettle sings"`},
		{"POST", "/v1/search", map[string]any{"query": "kettle"}, `"id":"kettle"`},
		{"GET", "/v1/namespaces", nil, `"namespaces":["memory","work"]`},
	} {
		if status, body := do(t, st.method, b+st.path, "", st.body); status != 200 || !strings.Contains(body, st.want) {
			t.Errorf("on b: %s %s: %d %s; want 200 with %s", st.method, st.path, status, body, st.want)
		}
	}
}

func httpRoundTrip(t *testing.T, url string) {
	t.Helper()
	steps := []struct {
		method, path string
		body         any
		status       int
		want         string // in the answer
	}{
		{"POST", "/v1/records", map[string]any{"id": "notes/tea", "kind": "memory", "body": "green tea at nine"}, 200, `"status":"added"`},
		{"POST", "/v1/records", map[string]any{"ns": "work", "id": "desk", "body": "the desk by the window"}, 200, `"ns":"work"`},
		{"GET", "/v1/records/memory/notes/tea", nil, 200, `"body":"green tea at nine"`},
		{"GET", "/v1/records/memory/notes/tea?offset=6", nil, 200, `"body":"tea at nine"`},
		{"GET", "/v1/records/memory/nope", nil, 404, "not found"},
		{"POST", "/v1/links", map[string]any{"from": "notes/tea", "rel": "about", "to": "morning"}, 200, `"changed":true`},
		{"GET", "/v1/neighbors/memory/morning", nil, 200, `"id":"notes/tea"`},
		{"POST", "/v1/search", map[string]any{"query": "tea"}, 200, `"id":"notes/tea"`},
		{"POST", "/v1/packet", map[string]any{"query": "tea", "budget": "1k"}, 200, "green tea at nine"},
		{"POST", "/v1/why", map[string]any{"id": "notes/tea", "query": "tea", "budget": "1k"}, 200, `"status":"in"`},
		{"POST", "/v1/why", map[string]any{"id": "desk", "query": "tea", "budget": "1k"}, 200, `"namespaces":["work"]`},
		{"POST", "/v1/why", map[string]any{"query": "tea"}, 400, `field \"id\" is required`},
		{"POST", "/v1/records", map[string]any{"id": "notes/coffee", "kind": "memory", "body": "black coffee at nine", "supersedes": "notes/tea"}, 200, `"status":"added"`},
		{"POST", "/v1/packet", map[string]any{"query": "tea coffee nine", "budget": "1k"}, 200, "## Superseded: 1 record"},
		{"POST", "/v1/packet", map[string]any{"query": "tea coffee nine", "budget": "1k", "at": "2000-01-01"}, 200, "green tea at nine"},
		{"POST", "/v1/packet", map[string]any{"query": "tea", "at": "soon"}, 400, "soon"},
		{"POST", "/v1/records", map[string]any{"id": "vec/a", "body": "the kettle boils", "vector": []float32{1, 0, 0}}, 200, `"status":"added"`},
		{"POST", "/v1/records", map[string]any{"id": "vec/b", "body": "a quiet lake", "vector": []float32{0, 1, 0}}, 200, `"status":"added"`},
		{"GET", "/v1/records/memory/vec/a", nil, 200, `"vector_dims":3`},
		{"GET", "/v1/records/memory/vec/a?with_vector=true", nil, 200, `"vector":[1,0,0]`},
		{"POST", "/v1/search", map[string]any{"query_vector": []float32{0.1, 1, 0}, "limit": 1}, 200, `"id":"vec/b"`},
		{"POST", "/v1/packet", map[string]any{"query": "kettle", "query_vector": []float32{0, 1, 0}, "budget": "1k"}, 200, "a quiet lake"},
		{"POST", "/v1/records", map[string]any{"id": "vec/c", "vector": []float32{1, 2}}, 400, "vector of 2 dimensions"},
		{"POST", "/v1/records", map[string]any{"id": "vec/d", "vector": []float32{}}, 400, "the vector is empty"},
		{"POST", "/v1/search", map[string]any{"query_vector": []float32{1, 2}}, 400, "it has 2 dimensions"},
		{"GET", "/v1/stats?ns=work", nil, 200, `"records":1`},
		{"GET", "/v1/namespaces", nil, 200, `"namespaces":["memory","work"]`},
		{"DELETE", "/v1/links", map[string]any{"from": "notes/tea", "rel": "about", "to": "morning"}, 200, `"removed":true`},
		{"DELETE", "/v1/records/memory/notes/tea", nil, 200, `"forgotten":true`},
		{"GET", "/v1/records/memory/notes/tea", nil, 404, "not found"},
		{"GET", "/v1/nothing", nil, 404, "no such endpoint"},
	}
	for _, st := range steps {
		status, body := do(t, st.method, url+st.path, "", st.body)
		if status != st.status || !strings.Contains(body, st.want) {
			t.Errorf("%s %s: %d %s\nwant %d with %s", st.method, st.path, status, body, st.status, st.want)
		}
	}
}

func TestHTTPBadRequests(t *testing.T) {
	dir := srvStore(t)
	url := httpServer(t, dir, &server.Options{MaxBodyBytes: 1024})
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"wrong type", "/v1/records", `{"id":"x","order":"first"}`, 400, `"order"`},
		{"unknown field", "/v1/records", `{"id":"x","titel":"t"}`, 400, `"titel"`},
		{"syntax", "/v1/records", `{"id":"x",}`, 400, "byte"},
		{"truncated", "/v1/records", `{"id":"x"`, 400, "ends"},
		{"empty", "/v1/records", ``, 400, "empty body"},
		{"not an object", "/v1/records", `[1,2]`, 400, "object"},
		{"two values", "/v1/records", `{"id":"x"}{"id":"y"}`, 400, "more than one"},
		{"missing id", "/v1/records", `{"body":"b"}`, 400, `"id"`},
		{"bad id", "/v1/records", `{"id":"a\u0001b"}`, 400, "id"},
		{"missing rel", "/v1/links", `{"from":"a","to":"b"}`, 400, `"rel"`},
		{"missing query", "/v1/search", `{}`, 400, `"query"`},
		{"bad budget", "/v1/packet", `{"budget":"lots"}`, 400, "lots"},
		{"bad format", "/v1/packet", `{"format":"pdf"}`, 400, "pdf"},
		{"too large", "/v1/records", `{"id":"x","body":"` + strings.Repeat("a", 2000) + `"}`, 413, "1024"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, "POST", url+tc.path, "", tc.body)
			var e struct{ Error string }
			if json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
				t.Errorf("error body %q is not {\"error\": ...}", body)
			}
			if status != tc.status || !strings.Contains(e.Error, tc.want) {
				t.Errorf("POST %s %s: %d %s\nwant %d mentioning %s", tc.path, tc.body, status, body, tc.status, tc.want)
			}
		})
	}
	status, body := do(t, "GET", url+"/v1/records/memory/x?offset=abc", "", nil)
	if status != 400 || !strings.Contains(body, "abc") {
		t.Errorf("offset=abc: %d %s", status, body)
	}
}

func TestHTTPAuth(t *testing.T) {
	dir := srvStore(t)
	url := httpServer(t, dir, &server.Options{Token: "s3cret"})
	for _, tc := range []struct {
		token  string
		status int
	}{{"", 401}, {"wrong", 401}, {"s3cret", 200}} {
		status, body := do(t, "GET", url+"/v1/stats", tc.token, nil)
		if status != tc.status {
			t.Errorf("token %q: %d %s, want %d", tc.token, status, body, tc.status)
		}
	}
	status, _ := do(t, "POST", url+"/v1/records", "", map[string]any{"id": "x"})
	if status != 401 {
		t.Errorf("write without token: %d, want 401", status)
	}
	l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Get(server.DefaultMemoryNS, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a write without token was stored: %v", err)
	}
}

// The page at / and its files are served without the token (they hold
// no data), with a content security policy; everything under /v1 still
// needs the token, and the page's folder is not listed.
func TestHTTPPageAndList(t *testing.T) {
	dir := srvStore(t)
	url := httpServer(t, dir, &server.Options{Token: "s3cret"})
	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{"/", "<script src=\"/ui/app.js\"", 200},
		{"/ui/app.js", "/v1/packet", 200},
		{"/ui/style.css", "#bar", 200},
		{"/ui/", "", 404},
		{"/ui/nope.js", "", 404},
	} {
		res, err := http.Get(url + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("GET %s: %d, want %d with %q", tc.path, res.StatusCode, tc.status, tc.want)
		}
		if tc.status == 200 && !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("GET %s: CSP %q", tc.path, res.Header.Get("Content-Security-Policy"))
		}
	}
	for i := range 7 {
		if status, body := do(t, "POST", url+"/v1/records", "s3cret", map[string]any{"id": fmt.Sprintf("r%d", i), "kind": "note", "title": fmt.Sprintf("note %d", i), "body": "text"}); status != 200 {
			t.Fatalf("put: %d %s", status, body)
		}
	}
	if status, _ := do(t, "GET", url+"/v1/records/memory", "", nil); status != 401 {
		t.Errorf("list without the token: %d, want 401", status)
	}
	var ids []string
	after := ""
	for pages := 0; pages < 10; pages++ {
		status, body := do(t, "GET", url+"/v1/records/memory?limit=3&after="+after, "s3cret", nil)
		var page struct {
			Records []struct{ ID, Kind, Title string }
			Next    string
		}
		if status != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("list: %d %s", status, body)
		}
		for _, r := range page.Records {
			if r.Kind != "note" || r.Title == "" {
				t.Errorf("list item %+v: want its kind and title", r)
			}
			ids = append(ids, r.ID)
		}
		if after = page.Next; after == "" {
			break
		}
	}
	if strings.Join(ids, ",") != "r0,r1,r2,r3,r4,r5,r6" {
		t.Errorf("paged list: %v", ids)
	}
	if status, body := do(t, "GET", url+"/v1/records/memory?limit=x", "s3cret", nil); status != 400 || !strings.Contains(body, "limit") {
		t.Errorf("limit=x: %d %s", status, body)
	}
}

func TestHTTPBindNeedsToken(t *testing.T) {
	dir := srvStore(t)
	s := newServer(t, dir, nil)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		err := s.ListenHTTP(context.Background(), addr, nil)
		if !errors.Is(err, server.ErrNeedToken) || !strings.Contains(err.Error(), addr) {
			t.Errorf("listen %s without token: %v, want ErrNeedToken naming the address", addr, err)
		}
	}
	if err := s.ListenHTTP(context.Background(), "nonsense", nil); !errors.Is(err, server.ErrOptions) {
		t.Errorf("listen nonsense: %v, want ErrOptions", err)
	}
	// Loopback needs none; with a token, any address is allowed.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.ListenHTTP(ctx, "127.0.0.1:0", func(net.Addr) { cancel() })
	}()
	if err := <-done; err != nil {
		t.Errorf("loopback listen: %v", err)
	}
	s2 := newServer(t, dir, &server.Options{Token: "t"})
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { done <- s2.ListenHTTP(ctx2, "0.0.0.0:0", func(net.Addr) { cancel2() }) }()
	if err := <-done; err != nil {
		t.Errorf("listen 0.0.0.0 with a token: %v", err)
	}
}

func TestHTTPNamespaceScope(t *testing.T) {
	dir := srvStore(t)
	url := httpServer(t, dir, &server.Options{NS: "team/a"})
	status, body := do(t, "POST", url+"/v1/records", "", map[string]any{"id": "x", "body": "hello"})
	if status != 200 || !strings.Contains(body, `"ns":"team/a"`) {
		t.Fatalf("put without ns: %d %s", status, body)
	}
	status, body = do(t, "GET", url+"/v1/records/team%2Fa/x", "", nil)
	if status != 200 || !strings.Contains(body, `"body":"hello"`) {
		t.Errorf("get team%%2Fa/x: %d %s", status, body)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/records", `{"ns":"team/b","id":"x"}`},
		{"GET", "/v1/records/team%2Fb/x", ""},
		{"DELETE", "/v1/records/team%2Fb/x", ""},
		{"POST", "/v1/search", `{"ns":"team/b","query":"hello"}`},
		{"POST", "/v1/links", `{"ns":"team/b","from":"x","rel":"r","to":"y"}`},
		{"POST", "/v1/packet", `{"ns":"team/b"}`},
		{"GET", "/v1/stats?ns=team/b", ""},
	} {
		var b any
		if tc.body != "" {
			b = tc.body
		}
		status, body := do(t, tc.method, url+tc.path, "", b)
		if status != 403 || !strings.Contains(body, "team/b") || !strings.Contains(body, "team/a") {
			t.Errorf("%s %s: %d %s, want 403 naming both namespaces", tc.method, tc.path, status, body)
		}
	}
	// Stats count the scope only, and leave out the store-wide change-log
	// position and file size, which other namespaces' writes move.
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := l.Put(context.Background(), store.Record{NS: "team/b", ID: fmt.Sprintf("b%d", i), Body: "other"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	status, body = do(t, "GET", url+"/v1/stats", "", nil)
	var st map[string]any
	if err := json.Unmarshal([]byte(body), &st); status != 200 || err != nil {
		t.Fatalf("stats: %d %s (%v)", status, body, err)
	}
	if st["records"] != 1.0 || strings.Contains(body, "team/b") {
		t.Errorf("scoped stats %s; want 1 record and no word of team/b", body)
	}
	for _, k := range []string{"last_seq", "file_bytes"} {
		if _, ok := st[k]; ok {
			t.Errorf("scoped stats %s has %s, which counts other namespaces' writes", body, k)
		}
	}
}

// TestHTTPGracefulShutdown cancels the server while writes are in flight:
// every write that was acknowledged must be in the store afterwards.
func TestHTTPGracefulShutdown(t *testing.T) {
	dir := srvStore(t)
	s := newServer(t, dir, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- s.ListenHTTP(ctx, "127.0.0.1:0", func(a net.Addr) { addrc <- a }) }()
	url := "http://" + (<-addrc).String()

	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("c%d-%d", c, i)
				j, _ := json.Marshal(map[string]any{"id": id, "body": "written before shutdown"})
				resp, err := http.Post(url+"/v1/records", "application/json", bytes.NewReader(j))
				if err != nil {
					return // the server is gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					mu.Lock()
					acked = append(acked, id)
					n := len(acked)
					mu.Unlock()
					if n == 20 {
						cancel() // shut down with requests in flight
					}
				}
			}
		})
	}
	wg.Wait()
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if len(acked) < 20 {
		t.Fatalf("only %d writes acknowledged", len(acked))
	}
	l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, id := range acked {
		if _, err := l.Get(server.DefaultMemoryNS, id); err != nil {
			t.Errorf("acknowledged write %s lost: %v", id, err)
		}
	}
}

// TestServeHelperProcess is not a test: run by TestHTTPConcurrentServers
// as a second server process on the same store.
func TestServeHelperProcess(t *testing.T) {
	dir, addrFile := os.Getenv("LORE_SERVE_HELPER_DIR"), os.Getenv("LORE_SERVE_HELPER_ADDR")
	if dir == "" {
		t.Skip("helper process only")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	s, err := server.New(dir, &server.Options{LockTimeout: 30 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = s.ListenHTTP(ctx, "127.0.0.1:0", func(a net.Addr) {
		os.WriteFile(addrFile+".tmp", []byte(a.String()), 0o644)
		os.Rename(addrFile+".tmp", addrFile)
	})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestHTTPConcurrentServers runs three servers on one store (two in this
// process with separate opens, one in a second process) and 16 clients
// mixing writes and reads across them: no error, every acknowledged write
// read back, the store checks clean.
func TestHTTPConcurrentServers(t *testing.T) {
	dir := srvStore(t)
	opts := &server.Options{LockTimeout: 30 * time.Second}
	urls := []string{httpServer(t, dir, opts), httpServer(t, dir, opts)}

	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeHelperProcess$")
	cmd.Env = append(os.Environ(), "LORE_SERVE_HELPER_DIR="+dir, "LORE_SERVE_HELPER_ADDR="+addrFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	for i := 0; ; i++ {
		if b, err := os.ReadFile(addrFile); err == nil {
			urls = append(urls, "http://"+string(b))
			break
		}
		if i == 600 {
			t.Fatalf("helper process did not start: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	const clients, requests = 16, 24
	type write struct{ id, body string }
	var mu sync.Mutex
	final := map[string]string{} // id -> last acknowledged body
	var links []string
	var wg sync.WaitGroup
	errs := make(chan error, clients*requests)
	for c := range clients {
		wg.Go(func() {
			var mine []write
			for i := range requests {
				url := urls[(c+i)%len(urls)]
				var status int
				var body string
				switch {
				case i%4 == 3 && len(mine) > 0: // read back one of mine
					w := mine[(i*7)%len(mine)]
					status, body = do(t, "GET", url+"/v1/records/memory/"+w.id, "", nil)
					var rec store.Record
					if status == 200 && (json.Unmarshal([]byte(body), &rec) != nil || rec.Body != w.body) {
						errs <- fmt.Errorf("client %d read %s via %s: body %q, want %q", c, w.id, url, rec.Body, w.body)
					}
				case i%4 == 2 && len(mine) > 1: // link two of mine
					from, to := mine[len(mine)-1].id, mine[0].id
					status, body = do(t, "POST", url+"/v1/links", "", map[string]any{"from": from, "rel": "follows", "to": to})
					if status == 200 {
						mu.Lock()
						links = append(links, from+">"+to)
						mu.Unlock()
					}
				case i%6 == 5: // search
					status, body = do(t, "POST", url+"/v1/search", "", map[string]any{"query": fmt.Sprintf("client%d", c)})
				default: // write: a new record, or a new version of one
					w := write{id: fmt.Sprintf("c%02d-%d", c, i), body: fmt.Sprintf("client%d wrote request %d", c, i)}
					if i%5 == 4 && len(mine) > 0 {
						w.id = mine[0].id
					}
					status, body = do(t, "POST", url+"/v1/records", "", map[string]any{"id": w.id, "body": w.body})
					if status == 200 {
						mine = slices.DeleteFunc(mine, func(o write) bool { return o.id == w.id })
						mine = append(mine, w)
						mu.Lock()
						final[w.id] = w.body
						mu.Unlock()
					}
				}
				if status != 200 {
					errs <- fmt.Errorf("client %d request %d via %s: %d %s", c, i, url, status, body)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Stop the helper so its last close is done before the check.
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("helper process: %v\n%s", err, stderr.String())
	}
	l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for id, body := range final {
		r, err := l.Get(server.DefaultMemoryNS, id)
		if err != nil || r.Body != body {
			t.Errorf("acknowledged write %s: %q %v, want %q", id, r.Body, err, body)
		}
	}
	for _, lk := range links {
		from, to, _ := strings.Cut(lk, ">")
		out, err := l.Links(server.DefaultMemoryNS, from, store.Out)
		if err != nil || !slices.ContainsFunc(out, func(x store.Link) bool { return x.To == to }) {
			t.Errorf("acknowledged link %s lost: %v", lk, err)
		}
	}
	l.Close()
	srvCheck(t, dir)
	t.Logf("%d records written by %d clients over %d servers", len(final), clients, len(urls))
}

// The HTTP packet answer (packet, report and notes as JSON) stays under
// the ceiling; a budget that cannot hold pinned content is a 422 that
// says why.
func TestHTTPPacketBounded(t *testing.T) {
	dir := srvStore(t)
	bigGraph(t, dir, server.DefaultMemoryNS, 300)
	const ceiling = 2000
	url := httpServer(t, dir, &server.Options{MaxOutput: ceiling})
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	status, body := do(t, "POST", url+"/v1/packet", "", map[string]any{"query": "harbour coffee maps", "budget": "1800"})
	if status != 200 {
		t.Fatalf("packet: %d %s", status, body)
	}
	if n := counter.Count(strings.TrimSpace(body)); n > ceiling {
		t.Errorf("packet answer %d tokens over the ceiling %d", n, ceiling)
	}
	var ans server.PacketAnswer
	if err := json.Unmarshal([]byte(body), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Deferred)+ans.DeferredInPacket == 0 || !strings.Contains(ans.Report, "Deferred") {
		t.Errorf("no deferral notes: %+v", ans)
	}

	status, _ = do(t, "POST", url+"/v1/records", "", map[string]any{"id": "rules", "pinned": true, "body": strings.Repeat("Never sail at night without a lantern. ", 100)})
	if status != 200 {
		t.Fatal(status)
	}
	status, body = do(t, "POST", url+"/v1/packet", "", map[string]any{"query": "lantern", "budget": "300"})
	if status != 422 || !strings.Contains(body, "rules") || !strings.Contains(body, "300") {
		t.Errorf("pinned content over the budget: %d %s, want 422 naming the record and the budget", status, body)
	}
}

// A wrong method on a known endpoint is 405; an unknown path is 404.
func TestHTTPMethodNotAllowed(t *testing.T) {
	url := httpServer(t, srvStore(t), nil)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/records", 405},
		{"PUT", "/v1/records/memory/x", 405},
		{"GET", "/v1/packet", 405},
		{"POST", "/v1/stats", 405},
		{"GET", "/v1/nothing", 404},
		{"GET", "/v1/recordsx", 404},
	} {
		if got, body := do(t, tc.method, url+tc.path, "", nil); got != tc.status {
			t.Errorf("%s %s: status %d, want %d (%s)", tc.method, tc.path, got, tc.status, body)
		}
	}
}
