package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/lorekeep/lore"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// Server defaults.
const (
	// DefaultMaxOutput is the token ceiling of one tool result or HTTP
	// answer (`lore serve --max-output`).
	DefaultMaxOutput = 20000
	// MinMaxOutput is the smallest ceiling a server accepts: below it the
	// deferral notes alone would not fit.
	MinMaxOutput = 500
	// DefaultMemoryNS is the namespace the server works in when it is not
	// started with a fixed one (`--ns`).
	DefaultMemoryNS = "memory"
	// DefaultHTTPAddr is where `lore serve --http` listens by default.
	DefaultHTTPAddr = "127.0.0.1:7077"
	// DefaultMaxBodyBytes bounds an HTTP request body.
	DefaultMaxBodyBytes = 16 << 20
	// DefaultServeLockTimeout bounds the wait for another process's lock
	// on each request.
	DefaultServeLockTimeout = 5 * time.Second
)

// Server errors; test them with errors.Is.
var (
	// ErrOutOfScope: a request named a namespace other than the one the
	// server was started with (--ns).
	ErrOutOfScope = errors.New("namespace out of this server's scope")
	// ErrNeedToken: the HTTP server was asked to listen off loopback
	// without a bearer token.
	ErrNeedToken = errors.New("a bearer token is required to listen off loopback")
	// ErrOptions: a Options value cannot be used.
	ErrOptions = errors.New("invalid server option")
)

// Options configures a Server. The zero value (or nil) means defaults.
type Options struct {
	// NS fixes the one namespace the server may touch; requests naming
	// another are refused with ErrOutOfScope. Empty means any namespace,
	// with DefaultMemoryNS for requests that name none.
	NS string
	// MaxOutput is the token ceiling of every tool result and HTTP answer,
	// counted with Encoding; default DefaultMaxOutput.
	MaxOutput int
	// Encoding counts MaxOutput; default "o200k_base".
	Encoding string
	// LockTimeout bounds each request's wait for another process's lock;
	// default DefaultServeLockTimeout.
	LockTimeout time.Duration
	// Token is the HTTP bearer token; required to listen off loopback.
	Token string
	// MaxBodyBytes bounds an HTTP request body; default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ReadTimeout, WriteTimeout and IdleTimeout bound an HTTP request's
	// reading, its answer, and an idle kept-alive connection; defaults
	// DefaultReadTimeout, DefaultWriteTimeout, DefaultIdleTimeout.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns caps the HTTP requests handled at once (each takes a slot
	// once its body has arrived), and connections at connsPerSlot times
	// as many; default DefaultMaxConns.
	MaxConns int
	// Now replaces time.Now for the store's timestamps (tests).
	Now func() time.Time
	// Idle is how long a bbolt store stays open after the last request
	// (hold.go); default DefaultIdle. Negative: every request opens the
	// store and closes it (no hold).
	Idle time.Duration
	// Lease is the longest a bbolt store stays open at one stretch, before
	// it is closed for a moment so that any waiting process gets in;
	// default DefaultLease.
	Lease time.Duration
}

// Server answers MCP tool calls and HTTP requests on one store directory.
//
// It keeps the store open across requests (read-only until a write
// comes, then writable) and gives it back whenever another process waits
// for it, when idle, and at the end of each lease (hold.go): bbolt holds
// a file lock for as long as a handle is open, which would otherwise
// lock every other process (every other MCP client's server, the CLI)
// out. A request that must open the store waits at most LockTimeout for
// another process. Within one process, requests are ordered by a
// readers-writer lock, so readers run side by side and a waiting writer
// is not starved by them.
//
// A Server is safe for concurrent use.
type Server struct {
	dir     string
	opts    Options
	counter budget.Counter
	// mu orders requests: reads and writeOne share it, write takes it
	// alone; wmu orders writeOne among themselves.
	mu  sync.RWMutex
	wmu sync.Mutex
	// shared is the one open of an etcd store, kept for the server's
	// life: etcd has no file lock to give back between requests, and the
	// open's watch keeps the local index current.
	shared *lore.Lore
	// hold is a bbolt store's open kept across requests (hold.go); nil
	// with a negative Options.Idle.
	hold *hold
}

// New checks the options and the store in dir, and returns a server
// for it. It opens the store once for writing, which creates a missing
// index and catches up an index that lags the store.
func New(dir string, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.NS != "" {
		if err := store.ValidNamespace(o.NS); err != nil {
			return nil, fmt.Errorf("--ns %q: %w", o.NS, err)
		}
	}
	switch {
	case o.MaxOutput == 0:
		o.MaxOutput = DefaultMaxOutput
	case o.MaxOutput < MinMaxOutput:
		return nil, fmt.Errorf("max output %d: %w: want at least %d tokens", o.MaxOutput, ErrOptions, MinMaxOutput)
	}
	if o.Encoding == "" {
		o.Encoding = budget.DefaultEncoding
	}
	switch {
	case o.LockTimeout == 0:
		o.LockTimeout = DefaultServeLockTimeout
	case o.LockTimeout < 0:
		return nil, fmt.Errorf("lock timeout %v: %w: want a positive duration", o.LockTimeout, ErrOptions)
	}
	switch {
	case o.MaxBodyBytes == 0:
		o.MaxBodyBytes = DefaultMaxBodyBytes
	case o.MaxBodyBytes < 0:
		return nil, fmt.Errorf("max body bytes %d: %w: want a positive size", o.MaxBodyBytes, ErrOptions)
	}
	if err := o.httpLimits(); err != nil {
		return nil, err
	}
	if o.Idle == 0 {
		o.Idle = DefaultIdle
	}
	switch {
	case o.Lease == 0:
		o.Lease = DefaultLease
	case o.Lease < 0:
		return nil, fmt.Errorf("lease %v: %w: want a positive duration", o.Lease, ErrOptions)
	}
	counter, err := budget.NewCounter(o.Encoding)
	if err != nil {
		return nil, fmt.Errorf("encoding %q: %w", o.Encoding, err)
	}
	if store.IsURL(dir) {
		l, err := lore.Open(dir, &lore.Options{Now: o.Now})
		if err != nil {
			return nil, err
		}
		return &Server{dir: dir, opts: o, counter: counter, shared: l}, nil
	}
	if _, err := os.Stat(filepath.Join(dir, lore.BoltFile)); err != nil {
		return nil, fmt.Errorf("serve %q: no %s there: %w", dir, lore.BoltFile, lore.ErrNoStore)
	}
	s := &Server{dir: dir, opts: o, counter: counter}
	if o.Idle > 0 {
		s.hold = newHold(dir, o.Idle, o.Lease, s.open)
	}
	if err := s.write(context.Background(), func(*lore.Lore) error { return nil }); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// open opens the store for a request or a hold.
func (s *Server) open(readOnly bool) (*lore.Lore, error) {
	return lore.Open(s.dir, &lore.Options{ReadOnly: readOnly, LockTimeout: s.opts.LockTimeout, Now: s.opts.Now})
}

// Close releases what the server keeps open (an etcd store's one open,
// a bbolt store's hold), once the requests in it end. Requests after
// Close open the store each for itself.
func (s *Server) Close() error {
	if s.hold != nil {
		return s.hold.close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared == nil {
		return nil
	}
	err := s.shared.Close()
	s.shared = nil
	return err
}

// Dir is the store directory the server works on.
func (s *Server) Dir() string { return s.dir }

// Options returns the server's options with defaults filled in.
func (s *Server) Options() Options { return s.opts }

// read runs fn on the store open for reading (the hold, or an open of
// its own).
func (s *Server) read(ctx context.Context, fn func(*lore.Lore) error) error {
	return s.with(ctx, true, fn)
}

// write runs fn on the store open for writing (the hold, made writable,
// or an open of its own).
func (s *Server) write(ctx context.Context, fn func(*lore.Lore) error) error {
	return s.with(ctx, false, fn)
}

// writeOne is write for a request whose writes are one transaction (a
// put, a link, an unlink, a forget): with the store kept open, reads run
// beside it, since none can see half of it; writes still run one at a
// time, so a read-then-write (a supersede) sees no other write between.
func (s *Server) writeOne(ctx context.Context, fn func(*lore.Lore) error) error {
	if s.hold == nil || s.shared != nil || s.hold.isClosed() {
		// Opens of its own: a writable one must not meet the reads'.
		return s.write(ctx, fn)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.hold.with(ctx, true, fn)
}

func (s *Server) with(ctx context.Context, readOnly bool, fn func(*lore.Lore) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	if readOnly {
		s.mu.RLock()
		defer s.mu.RUnlock()
	} else {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	if s.shared != nil {
		return fn(s.shared)
	}
	if s.hold != nil {
		return s.hold.with(ctx, !readOnly, fn)
	}
	return openOnce(s.open, !readOnly, fn)
}

// namespace resolves the namespace of a request: empty means the server's
// own (--ns, else DefaultMemoryNS); another one is refused when the server
// is scoped.
func (s *Server) namespace(ns string) (string, error) {
	if ns == "" {
		if s.opts.NS != "" {
			return s.opts.NS, nil
		}
		return DefaultMemoryNS, nil
	}
	if s.opts.NS != "" && ns != s.opts.NS {
		return "", fmt.Errorf("namespace %q: %w: this server was started with --ns %s; omit ns or use %q", ns, ErrOutOfScope, s.opts.NS, s.opts.NS)
	}
	if err := store.ValidNamespace(ns); err != nil {
		return "", err
	}
	return ns, nil
}

// count counts text with the server's counter.
func (s *Server) count(text string) int { return s.counter.Count(text) }

// fitPrefix finds the largest n in [0, total] whose rendering counts at
// most limit tokens, by bisection over exact counts of the whole output
// (token counts do not add up across boundaries). render must grow with
// n; render(0) must fit, or an error says the ceiling is too small.
func (s *Server) fitPrefix(total, limit int, render func(n int) (string, error)) (string, int, error) {
	text, err := render(total)
	if err != nil {
		return "", 0, err
	}
	if s.count(text) <= limit {
		return text, total, nil
	}
	best, err := render(0)
	if err != nil {
		return "", 0, err
	}
	if n := s.count(best); n > limit {
		return "", 0, fmt.Errorf("max output %d: %w: even an empty answer with its notes takes %d tokens", limit, ErrOptions, n)
	}
	lo, hi := 0, total // render(lo) fits, render(hi) does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		t, err := render(mid)
		if err != nil {
			return "", 0, err
		}
		if s.count(t) <= limit {
			lo, best = mid, t
		} else {
			hi = mid
		}
	}
	return best, lo, nil
}

// nameList picks, from names in order, those that fit in about limit
// tokens, and says how many more there are.
func (s *Server) nameList(names []string, limit int) (listed []string, more int) {
	used := 0
	for i, n := range names {
		c := s.count(n) + 3 // quotes and comma
		if used+c > limit {
			return names[:i], len(names) - i
		}
		used += c
	}
	return names, 0
}
