package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/lorekeep/lore"
	"slices"
	"strings"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// ---- operations shared by the MCP tools and the HTTP API ----
//
// Each returns the answer as compact JSON text that fits MaxOutput: lists
// keep what fits, most relevant first, and name the rest in a "deferred"
// note; a long body is paged.

// recordArgs is a record to store (put_record, POST /v1/records).
type recordArgs struct {
	NS      string            `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	ID      string            `json:"id" jsonschema:"record id: 1-256 bytes of printable text"`
	Kind    string            `json:"kind,omitempty" jsonschema:"kind: memory, fact, person, scene, ..."`
	Title   string            `json:"title,omitempty" jsonschema:"title"`
	Body    string            `json:"body,omitempty" jsonschema:"the text of the record"`
	Summary string            `json:"summary,omitempty" jsonschema:"short form: the facts and ids that can stand in for the body when a packet is short of room"`
	Tags    []string          `json:"tags,omitempty" jsonschema:"tags"`
	Aliases []string          `json:"aliases,omitempty" jsonschema:"other names of the record (Sefa for Sefa Dunmore): a packet focus that says one brings the record in"`
	Keys    []string          `json:"keys,omitempty" jsonschema:"lorebook-style trigger words: a packet focus that says one brings the record in"`
	Meta    map[string]string `json:"meta,omitempty" jsonschema:"string metadata (date, due, status, valid_from, valid_until: a date or an RFC 3339 time, or a story position, between which the record holds)"`
	Order   int64             `json:"order,omitempty" jsonschema:"position in a sequence (turn, chapter); 0 for none"`
	Pinned  bool              `json:"pinned,omitempty" jsonschema:"never drop this record from a packet"`
	// Supersedes names the record this one replaces (Lore.Supersede).
	Supersedes string `json:"supersedes,omitempty" jsonschema:"id of the record this one replaces (a newer fact of the same thing): it stays, with its history, no longer holding from this record's valid_from (default now)"`
}

// getArgs names a record to read (get_record, GET /v1/records/{ns}/{id}).
type getArgs struct {
	NS      string `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	ID      string `json:"id" jsonschema:"record id"`
	Version int    `json:"version,omitempty" jsonschema:"an older kept version; 0 for the current one"`
	Offset  int    `json:"offset,omitempty" jsonschema:"byte offset into the body, to page through a body longer than one answer"`
}

// searchArgs is a full-text search (search, POST /v1/search).
type searchArgs struct {
	NS    string   `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	Query string   `json:"query" jsonschema:"words to search for (BM25 over title, summary and body)"`
	Kinds []string `json:"kinds,omitempty" jsonschema:"keep only these kinds"`
	Tags  []string `json:"tags,omitempty" jsonschema:"keep only records with these tags"`
	Limit int      `json:"limit,omitempty" jsonschema:"most hits to return; default 20, at most 1000"`
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
	r := store.Record{NS: ns, ID: a.ID, Kind: a.Kind, Title: a.Title, Body: a.Body, Summary: a.Summary,
		Tags: a.Tags, Aliases: a.Aliases, Keys: a.Keys, Meta: a.Meta, Order: a.Order, Pinned: a.Pinned}
	var res store.PutResult
	if err := s.write(ctx, func(l *lore.Lore) (err error) {
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
	r.Tokens = nil
	r.BodyBytes = len(whole)
	rest := whole[a.Offset:]
	text, _, err := s.fitPrefix(len(rest), s.opts.MaxOutput, func(n int) (string, error) {
		n = cutUTF8(rest, n)
		p := recordPage{Record: r, BodyFrom: a.Offset}
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
	if strings.TrimSpace(a.Query) == "" {
		return "", fmt.Errorf("query %q: %w: give one or more words to search for", a.Query, store.ErrInvalid)
	}
	switch {
	case a.Limit == 0:
		a.Limit = 20
	case a.Limit < 0 || a.Limit > 1000:
		return "", fmt.Errorf("limit %d: %w: want 1 to 1000", a.Limit, store.ErrInvalid)
	}
	var hits []lore.Hit
	err = s.read(ctx, func(l *lore.Lore) (err error) {
		hits, err = l.Search(ctx, index.Query{NS: ns, Text: a.Query, Kinds: a.Kinds, Tags: a.Tags, Limit: a.Limit})
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
	err = s.write(ctx, func(l *lore.Lore) (err error) {
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
	if err := s.write(ctx, func(l *lore.Lore) error { return l.Unlink(ctx, ns, a.From, a.Rel, a.To) }); err != nil {
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
	if err := s.write(ctx, func(l *lore.Lore) error { return l.Delete(ctx, ns, a.ID, !a.KeepLinks) }); err != nil {
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

// packetArgs asks for a Context Packet (build_packet, POST /v1/packet).
type packetArgs struct {
	NS    string   `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	Query string   `json:"query,omitempty" jsonschema:"what the packet is for, searched in full text"`
	Focus []string `json:"focus,omitempty" jsonschema:"ids of the records the decision is about (the subject, the active scene)"`
	// Budget is a token count (8000) or a budget string ("8k", "1.5k",
	// or a scope name like "scene").
	Budget        any      `json:"budget,omitempty" jsonschema:"token budget: a number, or a string such as 8k or a scope name (scene, chapter); default 8000, never above the server's ceiling"`
	Scope         string   `json:"scope,omitempty" jsonschema:"a scope name (scene 8000, chapter 20000, ...) used when budget is not given"`
	Profile       string   `json:"profile,omitempty" jsonschema:"rank table: agent (default here) or novel"`
	Task          string   `json:"task,omitempty" jsonschema:"draft, revise, plan or audit"`
	When          []string `json:"when,omitempty" jsonschema:"conditions that hold: power, info-control, thematic"`
	Hops          int      `json:"hops,omitempty" jsonschema:"graph walk from the focus: 1 (default) or 2"`
	MentionsDepth int      `json:"mentions_depth,omitempty" jsonschema:"how far names bring records in: 1 (default), what the focus names; 2, also what their text names"`
	ScanQuery     bool     `json:"scan_query,omitempty" jsonschema:"also bring in the records whose names, aliases or keys the query says"`
	AsOf          int64    `json:"as_of,omitempty" jsonschema:"story position: records whose meta.from/meta.until exclude it are not loaded"`
	At            string   `json:"at,omitempty" jsonschema:"the time the packet is for (a date or an RFC 3339 time; default now): records whose meta.valid_from/valid_until exclude it are not loaded, and superseded ones are named"`
	Kinds         []string `json:"kinds,omitempty" jsonschema:"keep only these kinds (focus records always stay)"`
	ExcludeKinds  []string `json:"exclude_kinds,omitempty" jsonschema:"leave out these kinds"`
	Format        string   `json:"format,omitempty" jsonschema:"md (default), xml or json"`
}

// PacketAnswer is a built packet as the server answers it.
type PacketAnswer struct {
	NS     string `json:"ns"`
	Budget int    `json:"budget"`
	Tokens int    `json:"tokens"`
	Hash   string `json:"hash"`
	// Packet is the rendered packet; its deferral notes close it.
	Packet string `json:"packet"`
	// Report is the summary: packed, deferred (with the tokens each would
	// have cost), warnings.
	Report string `json:"report"`
	// Records are the packet's records, most important first, without
	// their text: what a client draws (the web page's budget bar)
	// without parsing the packet. Left out, like the notes, when the
	// answer would not fit its ceiling.
	Records  []PacketRecord `json:"records,omitempty"`
	Deferred []packet.Note  `json:"deferred"`
	// DeferredInPacket counts notes left out of Deferred to keep the
	// answer under the ceiling: they are in the packet's own notes.
	DeferredInPacket int      `json:"deferred_in_packet,omitempty"`
	Warnings         []string `json:"warnings,omitempty"`
}

// whyArgs ask where one record stands in the packet of a request.
type whyArgs struct {
	packetArgs
	ID string `json:"id" jsonschema:"the record to explain"`
}

// opWhy says where record a.ID stands in the packet a.packetArgs builds
// (Lore.Why). A server scoped to one namespace does not say which other
// namespaces hold the id: to its clients they do not exist.
func (s *Server) opWhy(ctx context.Context, a whyArgs) (string, error) {
	if err := required([2]string{"id", a.ID}); err != nil {
		return "", err
	}
	ns, err := s.namespace(a.NS)
	if err != nil {
		return "", err
	}
	var v *packet.Verdict
	err = s.read(ctx, func(l *lore.Lore) error {
		req, _, err := s.packetRequest(l, ns, a.packetArgs)
		if err != nil {
			return err
		}
		// No budget above what this server builds is worth offering.
		v, err = l.WhyUpTo(ctx, req, a.ID, s.opts.MaxOutput-s.packetReserve())
		return err
	})
	if err != nil {
		return "", err
	}
	if s.opts.NS != "" && v.Status == packet.StatusOtherNamespace {
		v.Status, v.Namespaces, v.Fetch = packet.StatusMissing, nil, ""
		v.Reason = fmt.Sprintf("no record %q in namespace %s", v.ID, v.NS)
	}
	return marshal(v)
}

// PacketRecord is one record of a packet answer: packet.Entry without
// its text.
type PacketRecord struct {
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Rank   int    `json:"rank"`
	Form   string `json:"form"`
	Tokens int    `json:"tokens"`
	Why    string `json:"why"`
	// Contradicts flags what the record contradicts (packet.Entry).
	Contradicts []string `json:"contradicts,omitempty"`
}

// packetRecords lists p's records for an answer.
func packetRecords(p *packet.Packet) []PacketRecord {
	out := make([]PacketRecord, len(p.Records))
	for i, e := range p.Records {
		out[i] = PacketRecord{ID: e.ID, Kind: e.Kind, Rank: e.Rank, Form: e.Form, Tokens: e.Tokens, Why: e.Why, Contradicts: e.Contradicts}
	}
	return out
}

// packetReserve is the part of MaxOutput kept for the report beside the
// packet.
func (s *Server) packetReserve() int { return max(200, s.opts.MaxOutput/10) }

// opPacket builds a packet whose answer, as size measures it (the MCP
// blocks, or the HTTP JSON), fits MaxOutput: first whole, then with the
// report's per-record lines and the JSON notes left to the packet's own
// deferral section, then with a smaller budget.
func (s *Server) opPacket(ctx context.Context, a packetArgs, size func(*PacketAnswer) (int, error)) (*PacketAnswer, error) {
	ns, err := s.namespace(a.NS)
	if err != nil {
		return nil, err
	}
	var ans *PacketAnswer
	err = s.read(ctx, func(l *lore.Lore) error {
		req, warn, err := s.packetRequest(l, ns, a)
		if err != nil {
			return err
		}
		for range 4 {
			p, err := l.Packet(ctx, req)
			var split *packet.SplitError
			if errors.As(err, &split) {
				return fmt.Errorf("%w\n%s", err, split.Report())
			}
			if err != nil {
				return err
			}
			text, err := p.Render(req.Format)
			if err != nil {
				return err
			}
			ans = &PacketAnswer{NS: ns, Budget: p.Budget, Tokens: p.Tokens, Hash: p.Hash, Packet: string(text),
				Records: packetRecords(p), Deferred: nonNil(p.Deferred), Warnings: append(slices.Clip(warn), p.Warnings...)}
			var extra strings.Builder
			if len(p.Deferred) > 0 {
				extra.WriteString("Fetch a deferred record with get_record {\"id\": ...} (MCP) or GET /v1/records/" + ns + "/ID (HTTP).\n")
			}
			for _, w := range warn {
				extra.WriteString("Warning: " + w + "\n")
			}
			ans.Report = p.Report() + extra.String()
			n, err := size(ans)
			if err != nil || n <= s.opts.MaxOutput {
				return err
			}
			// The report and the notes list every deferred record; the
			// packet closes with the same notes, so the short form says
			// enough.
			head, _, _ := strings.Cut(p.Report(), ":\n")
			ans.Report = head + " (the deferral notes close the packet)\n" + extra.String()
			ans.Deferred, ans.DeferredInPacket, ans.Records = []packet.Note{}, len(p.Deferred), nil
			if n, err = size(ans); err != nil || n <= s.opts.MaxOutput {
				return err
			}
			req.Budget -= n - s.opts.MaxOutput + 50
			if req.Budget <= 0 {
				break
			}
		}
		return fmt.Errorf("packet: %w: it does not fit the %d-token output ceiling with its notes and report; raise the server's --max-output, or narrow the request (fewer focus records, --hops 1, a kind filter)", ErrOptions, s.opts.MaxOutput)
	})
	return ans, err
}

// packetRequest turns the arguments into a packet.Request, resolving the
// budget against the store's scopes and capping it below the ceiling.
func (s *Server) packetRequest(l *lore.Lore, ns string, a packetArgs) (packet.Request, []string, error) {
	req := packet.Request{NS: ns, Query: a.Query, Focus: a.Focus, Scope: a.Scope, Profile: a.Profile, Task: a.Task,
		When: a.When, Hops: a.Hops, MentionsDepth: a.MentionsDepth, ScanQuery: a.ScanQuery, AsOf: a.AsOf, At: a.At, Kinds: a.Kinds, ExcludeKinds: a.ExcludeKinds, Format: a.Format,
		Counter: l.Counter()}
	if req.Profile == "" && l.Config().Packet.DefaultProfile == "" {
		req.Profile = "agent"
	}
	var b string
	switch v := a.Budget.(type) {
	case nil:
	case string:
		b = v
	case float64:
		if v != float64(int(v)) {
			return req, nil, fmt.Errorf("budget %v: %w: want a whole number of tokens", v, store.ErrInvalid)
		}
		b = fmt.Sprint(int(v))
	default:
		return req, nil, fmt.Errorf("budget %v: %w: want a number or a string such as 8k", v, store.ErrInvalid)
	}
	capped := s.opts.MaxOutput - s.packetReserve()
	var warn []string
	if b == "" && a.Scope == "" {
		req.Budget = min(8000, capped)
	} else {
		rb, err := l.ResolveBudget(lore.BudgetSpec{Budget: b, Scope: a.Scope})
		if err != nil {
			return req, nil, err
		}
		req.Budget = rb.Tokens
		if rb.Tokens > capped {
			req.Budget = capped
			warn = append(warn, fmt.Sprintf("budget %s lowered to %d tokens: this server's answers stay under %d tokens (--max-output)", cmp.Or(b, a.Scope), capped, s.opts.MaxOutput))
		}
	}
	return req, warn, nil
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
