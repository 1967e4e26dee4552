package server

import (
	"context"
	"fmt"
	"github.com/lorekeep/lore"
	"slices"
	"strings"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// ---- operations shared by the MCP tools and the HTTP API ----
//
// Each returns the answer as compact JSON text that fits MaxOutput: lists
// keep what fits, most relevant first, and name the rest in a "deferred"
// note; a long body is paged.

// recordArgs is a record to store (put_record, POST /v1/records).
type recordArgs struct {
	store.Content
	// Supersedes names the record this one replaces (Lore.Supersede).
	Supersedes string `json:"supersedes,omitempty" jsonschema:"id of the record this one replaces (a newer fact of the same thing): it stays, with its history, no longer holding from this record's valid_from (default now)"`
}

// getArgs names a record to read (get_record, GET /v1/records/{ns}/{id}).
type getArgs struct {
	NS      string `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	ID      string `json:"id" jsonschema:"record id"`
	Version int    `json:"version,omitempty" jsonschema:"an older kept version; 0 for the current one"`
	Offset  int    `json:"offset,omitempty" jsonschema:"byte offset into the body, to page through a body longer than one answer"`
	// WithVector answers the record's vector; by default only its
	// dimension (vector_dims), as a model rarely wants the numbers.
	WithVector bool `json:"with_vector,omitempty" jsonschema:"answer the record's vector too; by default only its dimension"`
}

// searchArgs is a full-text search (search, POST /v1/search).
type searchArgs struct {
	NS    string   `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	Query string   `json:"query,omitempty" jsonschema:"words to search for (BM25 over title, summary and body)"`
	Kinds []string `json:"kinds,omitempty" jsonschema:"keep only these kinds"`
	Tags  []string `json:"tags,omitempty" jsonschema:"keep only records with these tags"`
	Limit int      `json:"limit,omitempty" jsonschema:"most hits to return; default 20, at most 1000"`
	// QueryVector fuses a ranking by the records' vectors with the words'.
	QueryVector []float32 `json:"query_vector,omitempty" jsonschema:"the query's embedding, from the model that embedded the records: hits by words and by vector, fused (query may then be empty)"`
}

// linkArgs is a link to add or remove (link, unlink, POST /v1/links).
type linkArgs struct {
	NS     string  `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	From   string  `json:"from" jsonschema:"id of the record the link starts from"`
	Rel    string  `json:"rel" jsonschema:"the relation: appears_in, knows, depends_on, ..."`
	To     string  `json:"to" jsonschema:"id of the record the link points to (it may not exist yet)"`
	Weight float64 `json:"weight,omitempty" jsonschema:"optional weight"`
}

// neighborsArgs asks for the graph around a record (neighbors).
type neighborsArgs struct {
	NS   string   `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	ID   string   `json:"id" jsonschema:"record id"`
	Hops int      `json:"hops,omitempty" jsonschema:"1 (default) or 2"`
	Rels []string `json:"rels,omitempty" jsonschema:"follow only these relations"`
}

// forgetArgs names a record to delete (forget, DELETE /v1/records/...).
type forgetArgs struct {
	NS string `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	ID string `json:"id" jsonschema:"record id"`
	// KeepLinks keeps the record's links (they dangle until it comes back).
	KeepLinks bool `json:"keep_links,omitempty" jsonschema:"keep the record's links; by default they are removed with it"`
}

// nsArgs names a namespace (stats).
type nsArgs struct {
	NS string `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
}

// deferral is the note closing a list answer that hit the ceiling.
type deferral struct {
	Count  int      `json:"count"`
	Tokens int      `json:"tokens"`
	Reason string   `json:"reason"`
	IDs    []string `json:"ids"`
	More   int      `json:"more,omitempty"`
	Fetch  string   `json:"fetch"`
}

// fitList renders {key: items[:n], ...extra} for the largest n that fits,
// with a deferral note naming the ids left out.
func fitList[T any](s *Server, key string, items []T, id func(T) string, fetch string, extra map[string]any) (string, error) {
	cost := make([]int, len(items))
	ids := make([]string, len(items))
	for i, it := range items {
		j, err := marshal(it)
		if err != nil {
			return "", err
		}
		cost[i] = s.count(j)
		ids[i] = id(it)
	}
	limit := s.opts.MaxOutput
	text, _, err := s.fitPrefix(len(items), limit, func(n int) (string, error) {
		out := make(map[string]any, len(extra)+2)
		for k, v := range extra {
			out[k] = v
		}
		out[key] = nonNil(items[:n])
		if n < len(items) {
			tokens := 0
			for _, c := range cost[n:] {
				tokens += c
			}
			listed, more := s.nameList(ids[n:], limit/10)
			out["deferred"] = deferral{Count: len(items) - n, Tokens: tokens,
				Reason: fmt.Sprintf("over the %d-token output ceiling (--max-output)", limit),
				IDs:    nonNil(listed), More: more, Fetch: fetch}
		}
		return marshal(out)
	})
	return text, err
}

func (s *Server) opPut(ctx context.Context, a recordArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	r := a.Content.Record()
	r.NS = ns
	var res store.PutResult
	if err := s.writeOne(ctx, func(l *lore.Lore) (err error) {
		if a.Supersedes != "" {
			res, err = l.Supersede(ctx, r, a.Supersedes)
		} else {
			res, err = l.Put(ctx, r)
		}
		return err
	}); err != nil {
		return "", err
	}
	return marshal(res)
}

// recordPage is a record as answered: its body, or the page of it that
// fits, with the offset of the next page.
type recordPage struct {
	store.Record
	// BodyFrom is the byte offset of Body within the whole body.
	BodyFrom int `json:"body_from,omitempty"`
	// VectorDims is the dimension of the record's vector, when it has one.
	VectorDims int `json:"vector_dims,omitempty"`
	// Next is set when the body goes on: the call that reads on.
	Next *nextPage `json:"next,omitempty"`
}

type nextPage struct {
	Offset int    `json:"offset"`
	Left   int    `json:"bytes_left"`
	Fetch  string `json:"fetch"`
}

func (s *Server) opGet(ctx context.Context, a getArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	var r store.Record
	err = s.read(ctx, func(l *lore.Lore) (err error) {
		if a.Version > 0 {
			r, err = l.GetVersion(ns, a.ID, a.Version)
		} else {
			r, err = l.Get(ns, a.ID)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	if a.Offset < 0 || a.Offset > len(r.Body) {
		return "", fmt.Errorf("offset %d: %w: the body of %q has %d bytes; want 0 to %d", a.Offset, store.ErrInvalid, a.ID, len(r.Body), len(r.Body))
	}
	whole := r.Body
	dims := len(r.Vector)
	if !a.WithVector {
		r.Vector = nil
	}
	r.Tokens = nil
	r.BodyBytes = len(whole)
	rest := whole[a.Offset:]
	text, _, err := s.fitPrefix(len(rest), s.opts.MaxOutput, func(n int) (string, error) {
		n = cutUTF8(rest, n)
		p := recordPage{Record: r, BodyFrom: a.Offset, VectorDims: dims}
		p.Body = rest[:n]
		if n < len(rest) {
			next := a.Offset + n
			p.Next = &nextPage{Offset: next, Left: len(rest) - n,
				Fetch: fmt.Sprintf("get_record {\"ns\": %q, \"id\": %q, \"offset\": %d} (HTTP: ?offset=%d)", ns, a.ID, next, next)}
		}
		return marshal(p)
	})
	return text, err
}

func (s *Server) opSearch(ctx context.Context, a searchArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Query) == "" && a.QueryVector == nil {
		return "", fmt.Errorf("query %q: %w: give one or more words to search for, or a query_vector", a.Query, store.ErrInvalid)
	}
	switch {
	case a.Limit == 0:
		a.Limit = 20
	case a.Limit < 0 || a.Limit > 1000:
		return "", fmt.Errorf("limit %d: %w: want 1 to 1000", a.Limit, store.ErrInvalid)
	}
	var hits []lore.Hit
	err = s.read(ctx, func(l *lore.Lore) (err error) {
		hits, err = l.Search(ctx, index.Query{NS: ns, Text: a.Query, Vector: a.QueryVector, Kinds: a.Kinds, Tags: a.Tags, Limit: a.Limit})
		return err
	})
	if err != nil {
		return "", err
	}
	return fitList(s, "hits", hits, func(h lore.Hit) string { return h.ID },
		"get_record {\"id\": ...} reads one; search with more specific words or a smaller limit", map[string]any{"ns": ns})
}

func (s *Server) opLink(ctx context.Context, a linkArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	var changed bool
	err = s.writeOne(ctx, func(l *lore.Lore) (err error) {
		changed, err = l.Link(ctx, store.Link{NS: ns, From: a.From, Rel: a.Rel, To: a.To, Weight: a.Weight})
		return err
	})
	if err != nil {
		return "", err
	}
	return marshal(map[string]any{"ns": ns, "from": a.From, "rel": a.Rel, "to": a.To, "changed": changed})
}

func (s *Server) opUnlink(ctx context.Context, a linkArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	if err := s.writeOne(ctx, func(l *lore.Lore) error { return l.Unlink(ctx, ns, a.From, a.Rel, a.To) }); err != nil {
		return "", err
	}
	return marshal(map[string]any{"ns": ns, "from": a.From, "rel": a.Rel, "to": a.To, "removed": true})
}

// listArgs page through a namespace's records (the web page's list).
type listArgs struct {
	NS    string
	Kind  string
	After string
	Limit int
}

// listItem is one record of a list page: its head, no body.
type listItem struct {
	ID    string `json:"id"`
	Kind  string `json:"kind,omitempty"`
	Title string `json:"title,omitempty"`
}

// maxListPage is the most records one list page holds.
const maxListPage = 100

// opList answers one page of a namespace's records, sorted by id, with
// the cursor of the next page ("next", empty at the end). A page whose
// answer would pass the output ceiling is made smaller: the cursor says
// where it stopped.
func (s *Server) opList(ctx context.Context, a listArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	limit := a.Limit
	if limit <= 0 || limit > maxListPage {
		limit = maxListPage
	}
	for {
		var heads []store.Record
		var next string
		err := s.read(ctx, func(l *lore.Lore) (err error) {
			heads, next, err = l.List(store.ListOptions{NS: ns, Kind: a.Kind, After: a.After, Limit: limit})
			return err
		})
		if err != nil {
			return "", err
		}
		items := make([]listItem, len(heads))
		for i, h := range heads {
			items[i] = listItem{ID: h.ID, Kind: h.Kind, Title: h.Title}
		}
		text, err := marshal(map[string]any{"ns": ns, "records": items, "next": next})
		if err != nil || limit == 1 || s.count(text) <= s.opts.MaxOutput {
			return text, err
		}
		limit /= 2
	}
}

func (s *Server) opNeighbors(ctx context.Context, a neighborsArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	if a.Hops == 0 {
		a.Hops = 1
	}
	var nb []store.Neighbor
	err = s.read(ctx, func(l *lore.Lore) (err error) {
		nb, err = l.Neighbors(ns, a.ID, a.Hops, a.Rels)
		if err != nil || len(nb) > 0 {
			return err
		}
		// A link may name a record that does not exist yet; an id with
		// neither record nor links is most likely a typo.
		_, err = l.Store().Head(ns, a.ID)
		return err
	})
	if err != nil {
		return "", err
	}
	return fitList(s, "neighbors", nb, func(n store.Neighbor) string { return n.ID },
		"get_record {\"id\": ...} reads one; neighbors with hops 1 or a rels filter gives fewer", map[string]any{"ns": ns, "id": a.ID})
}

func (s *Server) opForget(ctx context.Context, a forgetArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	if err := s.writeOne(ctx, func(l *lore.Lore) error { return l.Delete(ctx, ns, a.ID, !a.KeepLinks) }); err != nil {
		return "", err
	}
	return marshal(map[string]any{"ns": ns, "id": a.ID, "forgotten": true, "links_removed": !a.KeepLinks})
}

func (s *Server) opNamespaces(ctx context.Context) (string, error) {
	var nss []string
	err := s.read(ctx, func(l *lore.Lore) (err error) { nss, err = l.Namespaces(); return err })
	if err != nil {
		return "", err
	}
	if s.opts.NS != "" {
		// A scoped server does not reveal the other namespaces.
		nss = slices.DeleteFunc(nss, func(ns string) bool { return ns != s.opts.NS })
	}
	slices.Sort(nss)
	return fitList(s, "namespaces", nss, func(ns string) string { return ns }, "stats {\"ns\": ...} describes one", nil)
}

func (s *Server) opStats(ctx context.Context, a nsArgs) (string, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	var st store.Stats
	if err := s.read(ctx, func(l *lore.Lore) (err error) { st, err = l.Stats(ns); return err }); err != nil {
		return "", err
	}
	if s.opts.NS != "" {
		// last_seq and file_bytes count every namespace's writes, so a
		// scoped server leaves them out, as it leaves out the others'
		// names.
		return marshal(scopedStats{Records: st.Records, Links: st.Links, Versions: st.Versions,
			Namespaces: st.Namespaces, Kinds: st.Kinds})
	}
	return marshal(st)
}

// scopedStats is store.Stats without what describes the whole store.
type scopedStats struct {
	Records    int            `json:"records"`
	Links      int            `json:"links"`
	Versions   int            `json:"versions"`
	Namespaces map[string]int `json:"namespaces"`
	Kinds      map[string]int `json:"kinds"`
}

// maxErrorBytes bounds an error message sent to a client: errors quote
// the bad value, which may be a whole body.
const maxErrorBytes = 2000

// cappedError keeps an error's identity (errors.Is still sees through
// it) with its message cut to maxErrorBytes.
type cappedError struct{ err error }

func (e cappedError) Error() string {
	msg := e.err.Error()
	if len(msg) <= maxErrorBytes {
		return msg
	}
	cut := cutUTF8(msg, maxErrorBytes)
	return msg[:cut] + fmt.Sprintf("... (%d more bytes of error message cut)", len(msg)-cut)
}

func (e cappedError) Unwrap() error { return e.err }

// capError caps err's message; nil stays nil.
func capError(err error) error {
	if err == nil || len(err.Error()) <= maxErrorBytes {
		return err
	}
	return cappedError{err}
}
