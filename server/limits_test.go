package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/lorekeep/lore/server"
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
func limitedServer(t *testing.T, opts *server.Options) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, dir, opts)
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
	addr := limitedServer(t, &server.Options{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
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

// Clients that send slowly, or not at all, hold no request slot: with
// 300 connections open that sent half a header or one byte of a body
// (the read timeout a minute away), and with --max-conns 4 and four slow
// bodies, a normal request is answered at once. The old server made it
// wait for the slow ones' read timeout. The test's own deadline (20 s) is
// far from both: it fails on a server that waits, not on a slow machine.
func TestHTTPSlowClientsHoldNoSlot(t *testing.T) {
	for _, c := range []struct {
		name       string
		opts       server.Options
		bodies     int
		headerOnly int
	}{
		{"300 slow connections", server.Options{ReadTimeout: time.Minute}, 150, 150},
		{"max-conns 4, four slow bodies", server.Options{MaxConns: 4, ReadTimeout: time.Minute}, 4, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := limitedServer(t, &c.opts)
			for range c.bodies {
				slowPut(t, addr)
			}
			for range c.headerOnly {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				fmt.Fprintf(conn, "GET /v1/namespaces HTTP/1.1\r\nHo")
			}
			start := time.Now()
			answered := make(chan error, 1)
			go func() {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					answered <- err
					return
				}
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(20 * time.Second))
				fmt.Fprintf(conn, "GET /v1/namespaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err == nil && resp.StatusCode != 200 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
				answered <- err
			}()
			if err := <-answered; err != nil {
				t.Fatalf("a normal request beside %d slow clients: %v; want 200 before the slow ones are cut", c.bodies+c.headerOnly, err)
			}
			t.Logf("answered in %v beside %d slow clients", time.Since(start).Round(time.Millisecond), c.bodies+c.headerOnly)
		})
	}
}

// A crowded server cuts slow connections short: past half its connection
// cap, a body that does not come is cut within seconds, not at the read
// timeout (a minute here; cutOff waits 20 s).
func TestHTTPCrowdedCutsSlowBodies(t *testing.T) {
	// One slot: 16 connections; 12 slow ones fill three quarters.
	addr := limitedServer(t, &server.Options{MaxConns: 1, ReadTimeout: time.Minute})
	var slow []net.Conn
	for range 12 {
		slow = append(slow, slowPut(t, addr))
	}
	// The server sets a request's deadline once its headers are read;
	// the last connection's come when all 12 are open (the listener
	// accepts in order), so its deadline is cut to a few seconds.
	if err := cutOff(slow[len(slow)-1]); err != nil {
		t.Errorf("a slow body on a crowded server: %v; want it cut well before the read timeout", err)
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
		if _, err := server.New(dir, &server.Options{Token: tok}); !errors.Is(err, server.ErrOptions) {
			t.Errorf("token %q: %v; want ErrOptions", tok, err)
		}
	}
	url := httpServer(t, dir, &server.Options{Token: " s3cret\n"})
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
