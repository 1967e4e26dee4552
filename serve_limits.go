package lore

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Defaults of the HTTP server's limits (ServeOptions).
const (
	// DefaultReadTimeout bounds reading one request, headers and body: a
	// client that sends its body slowly is cut off.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds one request from the end of its headers
	// to the end of its answer.
	DefaultWriteTimeout = 2 * time.Minute
	// DefaultIdleTimeout closes a kept-alive connection with no request.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConns caps the connections served at once; more wait in
	// the kernel's accept queue, costing the server nothing.
	DefaultMaxConns = 256
	// readHeaderTimeout bounds reading one request's headers.
	readHeaderTimeout = 10 * time.Second
)

// httpLimits fills in and checks the HTTP limits of o.
func (o *ServeOptions) httpLimits() error {
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"read timeout", &o.ReadTimeout, DefaultReadTimeout},
		{"write timeout", &o.WriteTimeout, DefaultWriteTimeout},
		{"idle timeout", &o.IdleTimeout, DefaultIdleTimeout},
	} {
		switch {
		case *d.v == 0:
			*d.v = d.def
		case *d.v < 0:
			return fmt.Errorf("%s %v: %w: want a positive duration (default %v)", d.name, *d.v, ErrServeOptions, d.def)
		}
	}
	switch {
	case o.MaxConns == 0:
		o.MaxConns = DefaultMaxConns
	case o.MaxConns < 0:
		return fmt.Errorf("max connections %d: %w: want a positive number (default %d)", o.MaxConns, ErrServeOptions, DefaultMaxConns)
	}
	if o.Token != "" {
		o.Token = strings.TrimSpace(o.Token)
		if o.Token == "" || strings.ContainsAny(o.Token, " \t\r\n") {
			return fmt.Errorf("token: %w: it is blank or holds white space; want one word, e.g. from `openssl rand -hex 32`", ErrServeOptions)
		}
	}
	return nil
}

// newHTTPServer is the http.Server of ServeListener, with the limits set.
func (s *Server) newHTTPServer(ctx context.Context) *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: min(readHeaderTimeout, s.opts.ReadTimeout),
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		// Requests keep a context of their own: shutting down lets them
		// finish rather than cancelling them.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
}

// limitListener accepts at most n connections at a time: Accept waits
// for one to close before it takes the next.
type limitListener struct {
	net.Listener
	sem  chan struct{}
	done chan struct{}
	once sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, when closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// auth requires the bearer token when the server has one. The scheme is
// matched without regard to case (RFC 9110), the token exactly.
func (s *Server) auth(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	want := []byte(s.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := strings.TrimSpace(r.Header.Get("Authorization"))
		scheme, got, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lore"`)
			msg := "missing bearer token: send \"Authorization: Bearer TOKEN\""
			if h != "" {
				msg = "wrong bearer token"
			}
			httpError(w, http.StatusUnauthorized, errors.New(msg))
			return
		}
		next.ServeHTTP(w, r)
	})
}
