package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/web"
)

// ShutdownTimeout bounds how long a shutting-down HTTP server waits for
// requests in flight.
const ShutdownTimeout = 10 * time.Second

// ListenHTTP serves the JSON API on addr (host:port) until ctx ends, then
// shuts down gracefully: it stops accepting, lets every request in flight
// finish (an acknowledged write is committed before its answer is sent)
// and returns. Listening off loopback requires Options.Token.
func (s *Server) ListenHTTP(ctx context.Context, addr string, ready func(net.Addr)) error {
	if err := s.checkBind(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	return s.ServeListener(ctx, ln)
}

// checkBind refuses a non-loopback address without a token.
func (s *Server) checkBind(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w: want host:port, e.g. %s", addr, ErrOptions, DefaultHTTPAddr)
	}
	if s.opts.Token != "" || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("address %q is not loopback: %w (give --token or set LORE_TOKEN; clients then send \"Authorization: Bearer TOKEN\")", addr, ErrNeedToken)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeListener serves the JSON API on ln until ctx ends, then shuts down
// gracefully (see ListenHTTP). ln is closed on return.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && s.opts.Token == "" {
		ln.Close()
		return fmt.Errorf("address %s is not loopback: %w (give --token or set LORE_TOKEN)", tcp, ErrNeedToken)
	}
	srv := s.newHTTPServer(ctx)
	ln = newLimitListener(ln, connsPerSlot*s.opts.MaxConns)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// Handler returns the JSON API:
//
//	POST   /v1/records              put a record (recordArgs)
//	GET    /v1/records/{ns}         list a page of heads (?kind=K, ?after=ID, ?limit=N)
//	GET    /v1/records/{ns}/{id}    read one (?version=N, ?offset=N)
//	DELETE /v1/records/{ns}/{id}    forget it (?keep_links=true)
//	POST   /v1/links                link (linkArgs)
//	DELETE /v1/links                unlink (linkArgs)
//	GET    /v1/neighbors/{ns}/{id}  the graph around it (?hops=2, ?rel=R)
//	POST   /v1/search               full-text search (searchArgs)
//	POST   /v1/packet               a Context Packet (packetArgs)
//	POST   /v1/why                  where a record stands in a packet (whyArgs)
//	GET    /v1/stats                counts (?ns=NS)
//	GET    /v1/namespaces           the namespaces
//	GET    /                        the web page (package web): its files hold
//	                                no data and need no token; its calls do
//
// A namespace with a "/" is written %2F in a path; an id may hold "/".
// Errors are {"error": "..."} with 400 (bad input), 401 (no or wrong
// token), 403 (namespace out of scope), 404, 413 (body too large), 422
// (the budget cannot be met), 503 (the store stayed locked).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/records", s.httpPut)
	mux.HandleFunc("GET /v1/records/{ns}", s.httpList)
	mux.HandleFunc("GET /v1/records/{ns}/{id...}", s.httpGet)
	mux.HandleFunc("DELETE /v1/records/{ns}/{id...}", s.httpForget)
	mux.HandleFunc("POST /v1/links", s.httpLink)
	mux.HandleFunc("DELETE /v1/links", s.httpUnlink)
	mux.HandleFunc("GET /v1/neighbors/{ns}/{id...}", s.httpNeighbors)
	mux.HandleFunc("POST /v1/search", s.httpSearch)
	mux.HandleFunc("POST /v1/packet", s.httpPacket)
	mux.HandleFunc("POST /v1/why", s.httpWhy)
	mux.HandleFunc("GET /v1/stats", s.httpStats)
	mux.HandleFunc("GET /v1/namespaces", s.httpNamespaces)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// The catch-all shadows the mux's own 405, so tell a wrong
		// method on a known endpoint apart from an unknown path here.
		for _, prefix := range []string{"/v1/records", "/v1/links", "/v1/neighbors/", "/v1/search", "/v1/packet", "/v1/why", "/v1/stats", "/v1/namespaces"} {
			if r.URL.Path == prefix || strings.HasPrefix(r.URL.Path, strings.TrimSuffix(prefix, "/")+"/") {
				httpError(w, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: method not allowed on this endpoint (see docs/SERVER.md for the API)", r.Method, r.URL.Path))
				return
			}
		}
		httpError(w, http.StatusNotFound, fmt.Errorf("%s %s: no such endpoint (see docs/SERVER.md for the API)", r.Method, r.URL.Path))
	})
	// The page at / holds no data: its files are served to anyone, and
	// every call it makes goes through the API's auth.
	outer := http.NewServeMux()
	page := web.Handler()
	outer.Handle("GET /{$}", page)
	outer.Handle("GET "+web.Prefix, page)
	outer.Handle("/", s.auth(s.admit(mux)))
	return outer
}

func httpError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"error": capError(err).Error()})
	w.Write(append(b, '\n'))
}

func httpJSON(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, text+"\n")
}

// statusOf maps an operation's error to an HTTP status.
func statusOf(err error) int {
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrOutOfScope):
		return http.StatusForbidden
	case errors.Is(err, store.ErrNotFound), errors.Is(err, packet.ErrFocusNotFound):
		return http.StatusNotFound
	case errors.Is(err, packet.ErrCannotFit), errors.Is(err, budget.ErrOverBudget):
		return http.StatusUnprocessableEntity
	case errors.Is(err, store.ErrInvalid), errors.Is(err, packet.ErrInvalidRequest), errors.Is(err, budget.ErrInvalid),
		errors.Is(err, errBadRequest), errors.Is(err, ErrOptions):
		return http.StatusBadRequest
	case errors.Is(err, store.ErrLocked), errors.Is(err, store.ErrUnavailable):
		return http.StatusServiceUnavailable
	case errors.Is(err, store.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	default:
		return http.StatusInternalServerError
	}
}

// errBadRequest marks request decoding errors.
var errBadRequest = errors.New("bad request")

// decode reads the size-limited JSON body into v, refusing unknown fields;
// its errors name the field or the byte at fault.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fmt.Errorf("request body over %d bytes: %w", s.opts.MaxBodyBytes, mbe)
	} else if err != nil {
		return fmt.Errorf("%w: reading the body: %v", errBadRequest, err)
	}
	// JSON decoding would turn invalid UTF-8 into U+FFFD; the CLI refuses
	// it, and so does the API.
	if at := invalidUTF8(raw); at >= 0 {
		return fmt.Errorf("%w: the body is not valid UTF-8 (byte %d is 0x%02x); send UTF-8 text", errBadRequest, at, raw[at])
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			var mb *http.MaxBytesError
			if errors.As(terr, &mb) {
				return mb
			}
			return fmt.Errorf("%w: body holds more than one JSON value; send one object", errBadRequest)
		}
		return nil
	}
	var (
		mb  *http.MaxBytesError
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mb):
		return fmt.Errorf("request body over %d bytes: %w", s.opts.MaxBodyBytes, mb)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: empty body; want a JSON object", errBadRequest)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: bad JSON: the body ends in the middle of a value", errBadRequest)
	case errors.As(err, &syn):
		return fmt.Errorf("%w: bad JSON at byte %d: %v", errBadRequest, syn.Offset, syn)
	case errors.As(err, &typ):
		field := store.JSONField(typ.Field)
		if field == "" {
			return fmt.Errorf("%w: body is a JSON %s; want an object", errBadRequest, typ.Value)
		}
		return fmt.Errorf("%w: field %q: got a JSON %s, want %s", errBadRequest, field, typ.Value, jsonKind(typ.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%w: field %s is not known (see docs/SERVER.md for the fields)", errBadRequest, strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		return fmt.Errorf("%w: bad JSON: %v", errBadRequest, err)
	}
}

// invalidUTF8 is the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "a whole number"
	case strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "string":
		return "a string"
	case goKind == "bool":
		return "true or false"
	case goKind == "slice":
		return "an array"
	case goKind == "map", goKind == "struct":
		return "an object"
	}
	return goKind
}

// required names the first empty required field.
func required(fields ...[2]string) error {
	for _, f := range fields {
		if f[1] == "" {
			return fmt.Errorf("%w: field %q is required", errBadRequest, f[0])
		}
	}
	return nil
}

// answer writes an operation's JSON text or its error.
func answer(w http.ResponseWriter, text string, err error) {
	if err != nil {
		httpError(w, statusOf(err), err)
		return
	}
	httpJSON(w, text)
}

// reply adapts answer to an operation's two results: reply(w)(op()).
func reply(w http.ResponseWriter) func(string, error) {
	return func(text string, err error) { answer(w, text, err) }
}

func (s *Server) httpPut(w http.ResponseWriter, r *http.Request) {
	var a recordArgs
	if err := s.decode(w, r, &a); err != nil {
		answer(w, "", err)
		return
	}
	if err := required([2]string{"id", a.ID}); err != nil {
		answer(w, "", err)
		return
	}
	reply(w)(s.opPut(r.Context(), a))
}

func (s *Server) httpGet(w http.ResponseWriter, r *http.Request) {
	a := getArgs{NS: r.PathValue("ns"), ID: r.PathValue("id")}
	var err error
	if a.Version, err = intParam(r, "version"); err != nil {
		answer(w, "", err)
		return
	}
	if a.Offset, err = intParam(r, "offset"); err != nil {
		answer(w, "", err)
		return
	}
	if v := r.URL.Query().Get("with_vector"); v != "" {
		if a.WithVector, err = strconv.ParseBool(v); err != nil {
			answer(w, "", fmt.Errorf("%w: with_vector=%q: want true or false", errBadRequest, v))
			return
		}
	}
	reply(w)(s.opGet(r.Context(), a))
}

func (s *Server) httpForget(w http.ResponseWriter, r *http.Request) {
	a := forgetArgs{NS: r.PathValue("ns"), ID: r.PathValue("id")}
	if v := r.URL.Query().Get("keep_links"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			answer(w, "", fmt.Errorf("%w: keep_links=%q: want true or false", errBadRequest, v))
			return
		}
		a.KeepLinks = b
	}
	reply(w)(s.opForget(r.Context(), a))
}

func (s *Server) httpLink(w http.ResponseWriter, r *http.Request) {
	var a linkArgs
	if err := s.decodeLink(w, r, &a); err != nil {
		answer(w, "", err)
		return
	}
	reply(w)(s.opLink(r.Context(), a))
}

func (s *Server) httpUnlink(w http.ResponseWriter, r *http.Request) {
	var a linkArgs
	if err := s.decodeLink(w, r, &a); err != nil {
		answer(w, "", err)
		return
	}
	reply(w)(s.opUnlink(r.Context(), a))
}

func (s *Server) decodeLink(w http.ResponseWriter, r *http.Request, a *linkArgs) error {
	if err := s.decode(w, r, a); err != nil {
		return err
	}
	return required([2]string{"from", a.From}, [2]string{"rel", a.Rel}, [2]string{"to", a.To})
}

func (s *Server) httpNeighbors(w http.ResponseWriter, r *http.Request) {
	a := neighborsArgs{NS: r.PathValue("ns"), ID: r.PathValue("id"), Rels: r.URL.Query()["rel"]}
	var err error
	if a.Hops, err = intParam(r, "hops"); err != nil {
		answer(w, "", err)
		return
	}
	reply(w)(s.opNeighbors(r.Context(), a))
}

func (s *Server) httpSearch(w http.ResponseWriter, r *http.Request) {
	var a searchArgs
	if err := s.decode(w, r, &a); err != nil {
		answer(w, "", err)
		return
	}
	if a.QueryVector == nil {
		if err := required([2]string{"query", a.Query}); err != nil {
			answer(w, "", err)
			return
		}
	}
	reply(w)(s.opSearch(r.Context(), a))
}

func (s *Server) httpPacket(w http.ResponseWriter, r *http.Request) {
	var a packetArgs
	if err := s.decode(w, r, &a); err != nil {
		answer(w, "", err)
		return
	}
	ans, err := s.opPacket(r.Context(), a, func(a *PacketAnswer) (int, error) {
		j, err := marshal(a)
		return s.count(j), err
	})
	if err != nil {
		answer(w, "", err)
		return
	}
	reply(w)(marshal(ans))
}

func (s *Server) httpList(w http.ResponseWriter, r *http.Request) {
	limit, err := intParam(r, "limit")
	if err != nil {
		answer(w, "", err)
		return
	}
	q := r.URL.Query()
	reply(w)(s.opList(r.Context(), listArgs{NS: r.PathValue("ns"), Kind: q.Get("kind"), After: q.Get("after"), Limit: limit}))
}

func (s *Server) httpWhy(w http.ResponseWriter, r *http.Request) {
	var a whyArgs
	if err := s.decode(w, r, &a); err != nil {
		answer(w, "", err)
		return
	}
	reply(w)(s.opWhy(r.Context(), a))
}

func (s *Server) httpStats(w http.ResponseWriter, r *http.Request) {
	reply(w)(s.opStats(r.Context(), nsArgs{NS: r.URL.Query().Get("ns")}))
}

func (s *Server) httpNamespaces(w http.ResponseWriter, r *http.Request) {
	reply(w)(s.opNamespaces(r.Context()))
}

func intParam(r *http.Request, name string) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q: want a whole number", errBadRequest, name, v)
	}
	return n, nil
}
