package lore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
)

// limitedServer serves a fresh store on a real loopback listener with the
// given limits and returns its address.
func limitedServer(t *testing.T, opts *lore.ServeOptions) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := lore.NewServer(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeListener(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return ln.Addr().String()
}

// slowPut opens a connection and sends the headers of a put whose body
// never comes.
func slowPut(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /v1/records HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":")
	return c
}

// cutOff reports whether the server ended c (EOF, reset or an answer)
// before a generous deadline of the test's own.
func cutOff(c net.Conn) error {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("still open: %w", err)
	}
	return nil
}

// A body that never arrives is cut at the read timeout, an idle kept-alive
// connection at the idle timeout.
func TestHTTPTimeoutsCutSlowClients(t *testing.T) {
	addr := limitedServer(t, &lore.ServeOptions{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	if err := cutOff(slowPut(t, addr)); err != nil {
		t.Errorf("a body that never comes: %v; want the server to cut it at its read timeout", err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a request on a fresh connection: %v %v; want 200", resp, err)
	}
	if err := cutOff(c); err != nil {
		t.Errorf("an idle kept-alive connection: %v; want the server to close it at its idle timeout", err)
	}
}

// With MaxConns connections held by slow clients, the next one is not
// served until one of them goes; then it is.
func TestHTTPConnectionCap(t *testing.T) {
	const max = 4
	addr := limitedServer(t, &lore.ServeOptions{MaxConns: max, ReadTimeout: time.Minute})
	var slow []net.Conn
	for range max {
		slow = append(slow, slowPut(t, addr))
	}
	answered := make(chan error, 1)
	go func() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			answered <- err
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /v1/namespaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		answered <- err
	}()
	select {
	case err := <-answered:
		t.Fatalf("request %d beside %d held connections was served (%v); want it to wait for a free one", max+1, max, err)
	case <-time.After(500 * time.Millisecond):
	}
	slow[0].Close()
	if err := <-answered; err != nil {
		t.Fatalf("request %d after one held connection closed: %v; want 200", max+1, err)
	}
}

// Tokens are trimmed, a blank one is refused, and the scheme is matched
// whatever its case.
func TestHTTPTokenRules(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{" ", "\t\n", "two words"} {
		if _, err := lore.NewServer(dir, &lore.ServeOptions{Token: tok}); !errors.Is(err, lore.ErrServeOptions) {
			t.Errorf("token %q: %v; want ErrServeOptions", tok, err)
		}
	}
	url := httpServer(t, dir, &lore.ServeOptions{Token: " s3cret\n"})
	for _, tc := range []struct {
		header string
		want   int
	}{
		{"Bearer s3cret", 200}, {"bearer s3cret", 200}, {"BEARER  s3cret ", 200},
		{"Bearer", 401}, {"Basic s3cret", 401}, {"Bearer s3cre", 401}, {"", 401},
	} {
		req, _ := http.NewRequest("GET", url+"/v1/namespaces", nil)
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Authorization %q: %d, want %d", tc.header, resp.StatusCode, tc.want)
		}
	}
}

// The API refuses invalid UTF-8 as the CLI does, naming the byte.
func TestHTTPRefusesInvalidUTF8(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	url := httpServer(t, dir, nil)
	body := []byte(`{"ns":"a","id":"r1","kind":"memory","body":"caf` + "\xe9" + `"}`)
	code, out := do(t, "POST", url+"/v1/records", "", body)
	if code != 400 || !strings.Contains(out, "not valid UTF-8") || !strings.Contains(out, "0xe9") {
		t.Fatalf("invalid UTF-8 body: %d %s; want 400 naming byte 0xe9", code, out)
	}
	if code, _ := do(t, "GET", url+"/v1/records/a/r1", "", nil); code != 404 {
		t.Errorf("the refused record: GET gave %d, want 404 (nothing written)", code)
	}
}
