package server

import (
	"cmp"
	"context"
	"github.com/lorekeep/lore"
	"slices"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// graph is a namespace's entities and relations as read for one answer,
// in the reference server's order: entities and relations as they were
// created (see sortGraph).
type graph struct {
	entities  []entity
	relations []relation
}

func loadGraph(l *lore.Lore, ns string) (graph, error) {
	var recs []store.Record
	err := l.Store().ForEach(ns, func(r store.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return graph{}, err
	}
	var links []store.Link
	err = l.Store().ForEachLink(ns, func(lk store.Link) error {
		links = append(links, lk)
		return nil
	})
	if err != nil {
		return graph{}, err
	}
	return sortGraph(recs, links), nil
}

// sortGraph orders the records by creation (time, then position within
// the create_entities call, then id) and the links by the time they were
// made (store.Link.Made, increasing in the order of a create_relations
// call); links made before the store kept that time (Made 0) come first,
// in the store's key order.
func sortGraph(recs []store.Record, links []store.Link) graph {
	slices.SortStableFunc(recs, func(a, b store.Record) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(metaInt(a, metaPos), metaInt(b, metaPos)), cmp.Compare(a.ID, b.ID))
	})
	g := graph{entities: make([]entity, len(recs)), relations: make([]relation, len(links))}
	for i, r := range recs {
		g.entities[i] = entity{Name: unescapedName(r.ID), EntityType: unescapedName(r.Kind), Observations: decodeObservations(r.Body)}
	}
	slices.SortStableFunc(links, func(a, b store.Link) int { return cmp.Compare(a.Made, b.Made) })
	for i, lk := range links {
		g.relations[i] = relation{From: unescapedName(lk.From), To: unescapedName(lk.To), RelationType: unescapedName(lk.Rel)}
	}
	return g
}

func metaInt(r store.Record, key string) int {
	n, _ := strconv.Atoi(r.Meta[key])
	return n
}

// touching keeps the relations with an end among names.
func touching(rels []relation, names map[string]bool) []relation {
	out := []relation{}
	for _, r := range rels {
		if names[r.From] || names[r.To] {
			out = append(out, r)
		}
	}
	return out
}

func nameSet(ents []entity) map[string]bool {
	set := make(map[string]bool, len(ents))
	for _, e := range ents {
		set[e.Name] = true
	}
	return set
}

func (s *Server) loadNS(ctx context.Context) (graph, error) {
	ns, err := s.namespace("")
	if err != nil {
		return graph{}, err
	}
	var g graph
	err = s.read(ctx, func(l *lore.Lore) (err error) { g, err = loadGraph(l, ns); return err })
	return g, err
}

func (s *Server) readGraph(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, graphOut, error) {
	g, err := s.loadNS(ctx)
	if err != nil {
		return nil, graphOut{}, err
	}
	return s.graphAnswer(g.entities, g.relations, "fetch them with open_nodes {\"names\": [...]} a few at a time, or narrow down with search_nodes")
}

func (s *Server) searchNodes(ctx context.Context, _ *mcp.CallToolRequest, in searchNodesArgs) (*mcp.CallToolResult, graphOut, error) {
	g, err := s.loadNS(ctx)
	if err != nil {
		return nil, graphOut{}, err
	}
	// The reference server's match: the query in the name, the type or
	// an observation, case-insensitively.
	q := strings.ToLower(in.Query)
	found := []entity{}
	for _, e := range g.entities {
		if strings.Contains(strings.ToLower(e.Name), q) || strings.Contains(strings.ToLower(e.EntityType), q) ||
			slices.ContainsFunc(e.Observations, func(o string) bool { return strings.Contains(strings.ToLower(o), q) }) {
			found = append(found, e)
		}
	}
	return s.graphAnswer(found, touching(g.relations, nameSet(found)), "fetch them with open_nodes {\"names\": [...]}, or search again with more specific words")
}

func (s *Server) openNodes(ctx context.Context, _ *mcp.CallToolRequest, in openNodesArgs) (*mcp.CallToolResult, graphOut, error) {
	g, err := s.loadNS(ctx)
	if err != nil {
		return nil, graphOut{}, err
	}
	want := make(map[string]bool, len(in.Names))
	for _, n := range in.Names {
		want[n] = true
	}
	found := []entity{}
	for _, e := range g.entities { // in graph order, as the reference
		if want[e.Name] {
			found = append(found, e)
		}
	}
	return s.graphAnswer(found, touching(g.relations, nameSet(found)), "ask open_nodes again for the names left, a few at a time")
}

func (s *Server) graphAnswer(ents []entity, rels []relation, fetch string) (*mcp.CallToolResult, graphOut, error) {
	out, text, note, d, err := s.fitGraph(ents, rels, fetch)
	if err != nil {
		return nil, graphOut{}, err
	}
	res := textContent(text)
	if d != nil {
		res.Content = append(res.Content, &mcp.TextContent{Text: note})
		res.Meta = mcp.Meta{metaDeferred: d}
	}
	return res, out, nil
}
