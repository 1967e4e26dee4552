package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Defaults of the HTTP server's limits (Options).
const (
	// DefaultReadTimeout bounds reading one request, headers and body: a
	// client that sends its body slowly is cut off.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds one request from the end of its headers
	// to the end of its answer.
	DefaultWriteTimeout = 2 * time.Minute
	// DefaultIdleTimeout closes a kept-alive connection with no request.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxConns caps the requests handled at once. A request takes
	// its slot only once its headers and its whole body have arrived, so
	// a client that sends slowly, or not at all, holds no slot another
	// client needs; connections are capped at connsPerSlot times as
	// many, and past half that cap each one's read deadline shrinks.
	DefaultMaxConns = 256
	// readHeaderTimeout bounds reading one request's headers.
	readHeaderTimeout = 10 * time.Second
	// connsPerSlot is how many open connections a request slot allows:
	// most of them idle, or slow to send.
	connsPerSlot = 16
	// crowdedRead is the shortest read deadline a crowded listener gives
	// (limitConn.SetReadDeadline): a second for the next bytes of a
	// request.
	crowdedRead = time.Second
)

// httpLimits fills in and checks the HTTP limits of o.
func (o *Options) httpLimits() error {
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
			return fmt.Errorf("%s %v: %w: want a positive duration (default %v)", d.name, *d.v, ErrOptions, d.def)
		}
	}
	switch {
	case o.MaxConns == 0:
		o.MaxConns = DefaultMaxConns
	case o.MaxConns < 0:
		return fmt.Errorf("max connections %d: %w: want a positive number (default %d)", o.MaxConns, ErrOptions, DefaultMaxConns)
	}
	if o.Token != "" {
		o.Token = strings.TrimSpace(o.Token)
		if o.Token == "" || strings.ContainsAny(o.Token, " \t\r\n") {
			return fmt.Errorf("token: %w: it is blank or holds white space; want one word, e.g. from `openssl rand -hex 32`", ErrOptions)
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
// for one to close before it takes the next. Past half of n, each
// connection's read deadlines are cut short (limitConn), the more so the
// fuller it is, so that connections that send nothing give their place
// to those that do.
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
	return &limitConn{Conn: c, l: l, release: func() { <-l.sem }}, nil
}

// readWithin is the longest read deadline a connection gets now: none
// (0) while at most half of the connections are open, then shrinking
// from readHeaderTimeout to crowdedRead as the rest fill.
func (l *limitListener) readWithin() time.Duration {
	open, n := len(l.sem), cap(l.sem)
	if 2*open <= n {
		return 0
	}
	free := float64(n-open) / float64(n-n/2) // 1 at half full, 0 when full
	return max(crowdedRead, time.Duration(free*float64(readHeaderTimeout)))
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back once, when closed, and cuts the read
// deadlines the HTTP server sets to what its listener allows now.
type limitConn struct {
	net.Conn
	l       *limitListener
	once    sync.Once
	release func()
}

func (c *limitConn) SetReadDeadline(t time.Time) error {
	if d := c.l.readWithin(); d > 0 {
		if short := time.Now().Add(d); t.IsZero() || t.After(short) {
			t = short
		}
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *limitConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// admit gives a request one of the server's MaxConns slots once its
// whole body has arrived (read here, up to MaxBodyBytes, and handed on
// from memory): a client that sends its body slowly holds a goroutine
// and a connection, never a slot another client needs.
func (s *Server) admit(next http.Handler) http.Handler {
	slots := make(chan struct{}, s.opts.MaxConns)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					httpError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("%w: body over %d bytes", errBadRequest, mbe.Limit))
					return
				}
				httpError(w, http.StatusBadRequest, fmt.Errorf("%w: the body did not arrive whole: %v", errBadRequest, err))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		case <-r.Context().Done():
			return
		}
		next.ServeHTTP(w, r)
	})
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
