package server

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answers of the memory tools that would pass the ceiling keep the
// reference's shape: structuredContent and the first text block hold what
// fits, a second text block says what was left out and how to fetch it,
// and the result's _meta carries the same as data under metaDeferred (the
// reference's output schemas allow no extra property).

// metaDeferred is the _meta key of a deferral note.
const metaDeferred = "lore/deferred"

// metaRefused is the _meta key listing the items of a batch Lore refused.
const metaRefused = "lore/refused"

// graphDeferral is the deferral note of a graph answer that hit the ceiling.
type graphDeferral struct {
	// Entities and Relations count what was left out.
	Entities  int `json:"entities"`
	Relations int `json:"relations"`
	// Tokens is what the left-out part would have cost (its pieces
	// counted one by one).
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
	// Names are the left-out entities, in order; More counts those not
	// listed.
	Names []string `json:"names"`
	More  int      `json:"more,omitempty"`
	Fetch string   `json:"fetch"`
	// Truncated is set when one entity alone was over the ceiling and is
	// shown with part of its observations.
	Truncated *truncation `json:"truncated,omitempty"`
}

type truncation struct {
	Name  string `json:"name"`
	Shown int    `json:"shown"`
	Of    int    `json:"of"`
	Fetch string `json:"fetch"`
}

func (s *Server) reason() string {
	return fmt.Sprintf("over the %d-token output ceiling (--max-output)", s.opts.MaxOutput)
}

// graphNote is the text block of a graph deferral.
func graphNote(d *graphDeferral) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Lore: this answer was cut, %s. Left out: %d entities and %d relations (about %d tokens)", d.Reason, d.Entities, d.Relations, d.Tokens)
	if len(d.Names) > 0 {
		q, _ := marshal(d.Names)
		fmt.Fprintf(&b, "; entities left out: %s", q)
		if d.More > 0 {
			fmt.Fprintf(&b, " and %d more", d.More)
		}
	}
	if t := d.Truncated; t != nil {
		fmt.Fprintf(&b, ". Entity %q is shown with %d of its %d observations: %s", t.Name, t.Shown, t.Of, t.Fetch)
	}
	fmt.Fprintf(&b, ". To fetch the rest: %s.", d.Fetch)
	return b.String()
}

// fitGraph keeps the longest prefix of ents whose text and note fit the
// ceiling: with every relation of rels when nothing is cut, else with
// those touching an entity shown. One entity alone over the ceiling is shown with
// as many of its observations as fit.
func (s *Server) fitGraph(ents []entity, rels []relation, fetch string) (graphOut, string, string, *graphDeferral, error) {
	cost := make([]int, len(ents))
	names := make([]string, len(ents))
	for i, e := range ents {
		j, err := marshal(e)
		if err != nil {
			return graphOut{}, "", "", nil, err
		}
		cost[i], names[i] = s.count(j), e.Name
	}
	relCost := func(r relation) int { j, _ := marshal(r); return s.count(j) }
	limit := s.opts.MaxOutput
	var out graphOut
	var note string
	var d *graphDeferral
	render := func(shown []entity, n int, trunc *truncation) (string, error) {
		out, note, d = graphOut{Entities: nonNil(shown), Relations: rels}, "", nil
		if n == len(ents) && trunc == nil {
			return jsJSON(out)
		}
		out.Relations = touching(rels, nameSet(shown))
		d = &graphDeferral{Entities: len(ents) - n, Relations: len(rels) - len(out.Relations), Reason: s.reason(), Fetch: fetch, Truncated: trunc}
		for _, c := range cost[n:] {
			d.Tokens += c
		}
		kept := nameSet(shown)
		for _, r := range rels {
			if !kept[r.From] && !kept[r.To] {
				d.Tokens += relCost(r)
			}
		}
		d.Names, d.More = s.nameList(names[n:], limit/10)
		d.Names = nonNil(d.Names)
		note = graphNote(d)
		text, err := jsJSON(out)
		return text + "\n" + note, err
	}
	rels = nonNil(rels)
	_, n, err := s.fitPrefix(len(ents), limit, func(n int) (string, error) { return render(ents[:n], n, nil) })
	if err != nil {
		return graphOut{}, "", "", nil, err
	}
	if n > 0 || len(ents) == 0 {
		text, err := render(ents[:n], n, nil) // sets out, note and d for n
		return out, firstBlock(text, note), note, d, err
	}
	// The first entity alone is over the ceiling: show part of it.
	first := ents[0]
	total := len(first.Observations)
	trunc := func(k int) *truncation {
		return &truncation{Name: first.Name, Shown: k, Of: total,
			Fetch: fmt.Sprintf("get_record {\"id\": %q} pages through the whole body with offset", first.Name)}
	}
	part := func(k int) []entity {
		e := first
		e.Observations = nonNil(first.Observations[:k])
		return []entity{e}
	}
	_, k, err := s.fitPrefix(total, limit, func(k int) (string, error) { return render(part(k), 1, trunc(k)) })
	if err != nil {
		return graphOut{}, "", "", nil, err
	}
	text, err := render(part(k), 1, trunc(k))
	return out, firstBlock(text, note), note, d, err
}

// firstBlock strips the note from a rendering counted whole.
func firstBlock(text, note string) string {
	if note == "" {
		return text
	}
	return strings.TrimSuffix(text, "\n"+note)
}

// echoDeferral is the deferral note of a write's echo that hit the ceiling.
type echoDeferral struct {
	Count  int    `json:"count"`
	Reason string `json:"reason"`
	Note   string `json:"note"`
}

// fitEcho renders the list answer of a write (what was created or added)
// as the reference does, a bare JSON array, keeping the prefix that fits
// the ceiling; refused items are named in a text block and in _meta.
func fitEcho[T any](s *Server, items []T, refused []refusal, left string) ([]T, *mcp.CallToolResult, error) {
	items = nonNil(items)
	refNote := refusalNote(refused)
	var note string
	render := func(n int) (string, error) {
		text, err := jsJSON(items[:n])
		note = ""
		if n < len(items) {
			note = fmt.Sprintf("Lore: this answer was cut, %s: %d more item(s) are not shown; %s.", s.reason(), len(items)-n, left)
		}
		for _, extra := range []string{note, refNote} {
			if extra != "" {
				text += "\n" + extra
			}
		}
		return text, err
	}
	_, n, err := s.fitPrefix(len(items), s.opts.MaxOutput, render)
	if err != nil {
		return nil, nil, err
	}
	text, err := jsJSON(items[:n])
	if err != nil {
		return nil, nil, err
	}
	res := textContent(text)
	meta := mcp.Meta{}
	if n < len(items) {
		_, _ = render(n)
		res.Content = append(res.Content, &mcp.TextContent{Text: note})
		meta[metaDeferred] = echoDeferral{Count: len(items) - n, Reason: s.reason(), Note: left}
	}
	if refNote != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: refNote})
		meta[metaRefused] = refused
	}
	if len(meta) > 0 {
		res.Meta = meta
	}
	return items[:n], res, nil
}
