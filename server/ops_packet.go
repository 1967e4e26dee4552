package server

// The operations on packets that both servers answer: build_packet and
// POST /v1/packet, why and POST /v1/why.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// packetArgs asks for a Context Packet (build_packet, POST /v1/packet).
type packetArgs struct {
	NS    string `json:"ns,omitempty" jsonschema:"namespace; default: the server's namespace"`
	Query string `json:"query,omitempty" jsonschema:"what the packet is for, searched in full text"`
	// QueryVector fuses a ranking by the records' vectors with the words'.
	QueryVector []float32 `json:"query_vector,omitempty" jsonschema:"the query's embedding, from the model that embedded the records: hits by words and by vector, fused"`
	Focus       []string  `json:"focus,omitempty" jsonschema:"ids of the records the decision is about (the subject, the active scene)"`
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
	req := packet.Request{NS: ns, Query: a.Query, QueryVector: a.QueryVector, Focus: a.Focus, Scope: a.Scope, Profile: a.Profile, Task: a.Task,
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
