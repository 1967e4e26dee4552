package lore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeMCP serves the Model Context Protocol on in and out (stdin and
// stdout for `lore serve --mcp`) until the client hangs up or ctx ends.
func ServeMCP(ctx context.Context, dir string, opts *ServeOptions, in io.Reader, out io.Writer) error {
	s, err := NewServer(dir, opts)
	if err != nil {
		return err
	}
	return s.ServeMCP(ctx, in, out)
}

// ServeMCP serves the Model Context Protocol on in and out until the
// client hangs up or ctx ends.
func (s *Server) ServeMCP(ctx context.Context, in io.Reader, out io.Writer) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	return s.MCP().Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// MCP returns a new MCP server carrying Lore's tools (put_record,
// get_record, search, link, unlink, neighbors, forget, build_packet,
// list_namespaces, stats) and the tools of the reference MCP memory server
// (create_entities, create_relations, add_observations, delete_entities,
// delete_observations, delete_relations, read_graph, search_nodes,
// open_nodes). Connect it to any transport.
func (s *Server) MCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "lore", Title: "Lore context store", Version: "1"}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("Lore keeps records linked into a graph and answers within a token ceiling of %d tokens per result. "+
			"Results that would be larger carry a \"deferred\" note naming what was left out and the call that fetches it.", s.opts.MaxOutput),
	})
	s.addMemoryTools(srv)
	s.addLoreTools(srv)
	return srv
}

// Tool annotations, by effect.
func readOnlyTool(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
}

func additiveTool(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
}

func destructiveTool(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: new(true), IdempotentHint: true, OpenWorldHint: new(false)}
}

// textResult renders v as compact JSON in one text block. Callers bound
// what they pass; this checks the ceiling once more so that no result,
// whatever its path, leaves the server over it.
func (s *Server) textResult(v any) (*mcp.CallToolResult, any, error) {
	text, err := marshal(v)
	if err != nil {
		return nil, nil, err
	}
	if n := s.count(text); n > s.opts.MaxOutput {
		return nil, nil, fmt.Errorf("result of %d tokens is over the %d-token ceiling (--max-output); ask for less (fewer names, a smaller limit)", n, s.opts.MaxOutput)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

func marshal(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// ---- the reference memory server's tools ----

// entity is a node of the memory-server graph: a record whose id is the
// name, whose kind is the entity type and whose body lines are the
// observations.
type entity struct {
	Name         string   `json:"name" jsonschema:"the entity's unique name (stored as the record id)"`
	EntityType   string   `json:"entityType" jsonschema:"the entity's type, e.g. person or project (stored as the record kind)"`
	Observations []string `json:"observations" jsonschema:"facts about the entity, one short line each"`
}

// relation is a directed edge of the memory-server graph: a link.
type relation struct {
	From         string `json:"from" jsonschema:"name of the entity where the relation starts"`
	To           string `json:"to" jsonschema:"name of the entity where the relation ends"`
	RelationType string `json:"relationType" jsonschema:"the relation, in active voice (works_at, knows)"`
}

// observationSet names observations of one entity.
type observationSet struct {
	EntityName string   `json:"entityName" jsonschema:"the entity the observations belong to"`
	Contents   []string `json:"contents" jsonschema:"observations to add, one short line each"`
}

// observationDeletion names observations to remove from one entity.
type observationDeletion struct {
	EntityName   string   `json:"entityName" jsonschema:"the entity the observations belong to"`
	Observations []string `json:"observations" jsonschema:"observations to delete (exact text)"`
}

type createEntitiesArgs struct {
	Entities []entity `json:"entities" jsonschema:"entities to create; names that exist already are skipped"`
}

type createRelationsArgs struct {
	Relations []relation `json:"relations" jsonschema:"relations to create; duplicates are skipped"`
}

type addObservationsArgs struct {
	Observations []observationSet `json:"observations" jsonschema:"observations to add, per entity; every entity must exist"`
}

type deleteEntitiesArgs struct {
	EntityNames []string `json:"entityNames" jsonschema:"names of the entities to delete, with their relations"`
}

type deleteObservationsArgs struct {
	Deletions []observationDeletion `json:"deletions" jsonschema:"observations to delete, per entity"`
}

type deleteRelationsArgs struct {
	Relations []relation `json:"relations" jsonschema:"relations to delete"`
}

type searchNodesArgs struct {
	Query string `json:"query" jsonschema:"words to find in entity names, types and observations"`
}

type openNodesArgs struct {
	Names []string `json:"names" jsonschema:"names of the entities to return"`
}

// graphResult is the answer of read_graph, search_nodes and open_nodes.
type graphResult struct {
	Entities  []entity       `json:"entities"`
	Relations []relation     `json:"relations"`
	Deferred  *graphDeferral `json:"deferred,omitempty"`
}

// graphDeferral is the deferral note of a graph answer that hit the ceiling.
type graphDeferral struct {
	// Entities and Relations count what was left out.
	Entities  int `json:"entities"`
	Relations int `json:"relations"`
	// Tokens is what the left-out part would have cost (its pieces
	// counted one by one).
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
	// Names are the left-out entities, most relevant first; More counts
	// those not listed.
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

func (s *Server) addMemoryTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "create_entities", Annotations: additiveTool("Create entities"),
		Description: "Create multiple new entities in the knowledge graph. Entities whose name exists already are skipped (use add_observations to extend them). Returns the entities created."},
		guard(s.createEntities))
	mcp.AddTool(srv, &mcp.Tool{Name: "create_relations", Annotations: additiveTool("Create relations"),
		Description: "Create multiple new relations between entities. Relations should be in active voice. Duplicates are skipped. Returns the relations created."},
		guard(s.createRelations))
	mcp.AddTool(srv, &mcp.Tool{Name: "add_observations", Annotations: additiveTool("Add observations"),
		Description: "Add new observations to existing entities. Fails, adding nothing, if an entity does not exist. Returns the observations added per entity."},
		guard(s.addObservations))
	mcp.AddTool(srv, &mcp.Tool{Name: "delete_entities", Annotations: destructiveTool("Delete entities"),
		Description: "Delete multiple entities and their relations. Names that do not exist are ignored."},
		guard(s.deleteEntities))
	mcp.AddTool(srv, &mcp.Tool{Name: "delete_observations", Annotations: destructiveTool("Delete observations"),
		Description: "Delete specific observations from entities. Observations or entities that do not exist are ignored."},
		guard(s.deleteObservations))
	mcp.AddTool(srv, &mcp.Tool{Name: "delete_relations", Annotations: destructiveTool("Delete relations"),
		Description: "Delete multiple relations. Relations that do not exist are ignored."},
		guard(s.deleteRelations))
	mcp.AddTool(srv, &mcp.Tool{Name: "read_graph", Annotations: readOnlyTool("Read the graph"),
		Description: fmt.Sprintf("Read the knowledge graph: entities (most recently updated first) and the relations between them. The answer stays under %d tokens; what does not fit is named in \"deferred\" (fetch it with open_nodes).", s.opts.MaxOutput)},
		guard(s.readGraph))
	mcp.AddTool(srv, &mcp.Tool{Name: "search_nodes", Annotations: readOnlyTool("Search entities"),
		Description: "Search entities by name, type and observation text; best matches first, with the relations between the matches. What does not fit the token ceiling is named in \"deferred\"."},
		guard(s.searchNodes))
	mcp.AddTool(srv, &mcp.Tool{Name: "open_nodes", Annotations: readOnlyTool("Open entities"),
		Description: "Return the named entities and the relations between them. Names that do not exist are skipped."},
		guard(s.openNodes))
}

func toEntity(r store.Record) entity {
	obs := observations(r.Body)
	if obs == nil {
		obs = []string{}
	}
	return entity{Name: r.ID, EntityType: r.Kind, Observations: obs}
}

func toRelation(l store.Link) relation {
	return relation{From: l.From, To: l.To, RelationType: l.Rel}
}

func (s *Server) createEntities(ctx context.Context, _ *mcp.CallToolRequest, in createEntitiesArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range in.Entities {
		if err := store.ValidID(e.Name); err != nil {
			return nil, nil, fmt.Errorf("entity name %q: %w", e.Name, err)
		}
		for _, o := range e.Observations {
			if err := checkObservation(e.Name, o); err != nil {
				return nil, nil, err
			}
		}
	}
	var created []entity
	err = s.write(ctx, func(l *Lore) error {
		seen := map[string]bool{}
		var recs []store.Record
		for _, e := range in.Entities {
			if seen[e.Name] {
				continue
			}
			seen[e.Name] = true
			_, err := l.st.Head(ns, e.Name)
			if err == nil {
				continue // the reference server ignores existing names
			}
			if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			obs := dedupeKeepOrder(e.Observations)
			recs = append(recs, store.Record{NS: ns, ID: e.Name, Kind: e.EntityType, Body: strings.Join(obs, "\n")})
			created = append(created, entity{Name: e.Name, EntityType: e.EntityType, Observations: nonNil(obs)})
		}
		if len(recs) == 0 {
			return nil
		}
		_, err := l.PutMany(ctx, recs, nil)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.echo("entities", len(created), func(n int) any { return created[:n] }, "all were created; read them with open_nodes")
}

func (s *Server) createRelations(ctx context.Context, _ *mcp.CallToolRequest, in createRelationsArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	var created []relation
	err = s.write(ctx, func(l *Lore) error {
		seen := map[relation]bool{}
		var links []store.Link
		for _, r := range in.Relations {
			if seen[r] {
				continue
			}
			seen[r] = true
			exists, err := linkExists(l, ns, r)
			if err != nil {
				return err
			}
			if exists {
				continue
			}
			links = append(links, store.Link{NS: ns, From: r.From, Rel: r.RelationType, To: r.To})
			created = append(created, r)
		}
		if len(links) == 0 {
			return nil
		}
		_, err := l.PutMany(ctx, nil, links)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.echo("relations", len(created), func(n int) any { return created[:n] }, "all were created; read them with open_nodes on their entities")
}

// linkExists reports whether the relation is stored already.
func linkExists(l *Lore, ns string, r relation) (bool, error) {
	if err := store.ValidID(r.From); err != nil {
		return false, fmt.Errorf("relation from %q: %w", r.From, err)
	}
	links, err := l.st.Links(ns, r.From, store.Out)
	if err != nil {
		return false, err
	}
	for _, lk := range links {
		if lk.Rel == r.RelationType && lk.To == r.To {
			return true, nil
		}
	}
	return false, nil
}

type addedObservations struct {
	EntityName        string   `json:"entityName"`
	AddedObservations []string `json:"addedObservations"`
}

func (s *Server) addObservations(ctx context.Context, _ *mcp.CallToolRequest, in addObservationsArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	for _, o := range in.Observations {
		for _, c := range o.Contents {
			if err := checkObservation(o.EntityName, c); err != nil {
				return nil, nil, err
			}
		}
	}
	var results []addedObservations
	err = s.write(ctx, func(l *Lore) error {
		recs := map[string]*store.Record{}
		var order []string
		for _, o := range in.Observations {
			rec, ok := recs[o.EntityName]
			if !ok {
				r, err := l.st.Get(ns, o.EntityName)
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("entity %q: %w in namespace %q: create it with create_entities first (nothing was added)", o.EntityName, store.ErrNotFound, ns)
				}
				if err != nil {
					return err
				}
				rec = &r
				recs[o.EntityName] = rec
				order = append(order, o.EntityName)
			}
			have := observations(rec.Body)
			var added []string
			for _, c := range o.Contents {
				if !slices.Contains(have, c) {
					have = append(have, c)
					added = append(added, c)
				}
			}
			rec.Body = strings.Join(have, "\n")
			results = append(results, addedObservations{EntityName: o.EntityName, AddedObservations: nonNil(added)})
		}
		puts := make([]store.Record, 0, len(order))
		for _, name := range order {
			puts = append(puts, *recs[name])
		}
		if len(puts) == 0 {
			return nil
		}
		_, err := l.PutMany(ctx, puts, nil)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.echo("results", len(results), func(n int) any { return results[:n] }, "all were added; read them with open_nodes")
}

func (s *Server) deleteEntities(ctx context.Context, _ *mcp.CallToolRequest, in deleteEntitiesArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	deleted := 0
	err = s.write(ctx, func(l *Lore) error {
		for _, name := range dedupeKeepOrder(in.EntityNames) {
			if store.ValidID(name) != nil {
				continue // cannot exist
			}
			err := l.Delete(ctx, ns, name, true)
			if errors.Is(err, store.ErrNotFound) {
				// No record, but relations may still name it: the
				// reference server removes those too.
				if err := unlinkAll(ctx, l, ns, name); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return err
			}
			deleted++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return s.textResult(map[string]any{"deleted": deleted, "message": "Entities deleted successfully"})
}

// unlinkAll removes every link of id in both directions.
func unlinkAll(ctx context.Context, l *Lore, ns, id string) error {
	links, err := l.st.Links(ns, id, store.Both)
	if err != nil {
		return err
	}
	for _, lk := range links {
		if err := l.Unlink(ctx, ns, lk.From, lk.Rel, lk.To); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return nil
}

func (s *Server) deleteObservations(ctx context.Context, _ *mcp.CallToolRequest, in deleteObservationsArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	removed := 0
	err = s.write(ctx, func(l *Lore) error {
		recs := map[string]*store.Record{}
		var order []string
		for _, d := range in.Deletions {
			rec, ok := recs[d.EntityName]
			if !ok {
				if store.ValidID(d.EntityName) != nil {
					continue
				}
				r, err := l.st.Get(ns, d.EntityName)
				if errors.Is(err, store.ErrNotFound) {
					continue // the reference server ignores it
				}
				if err != nil {
					return err
				}
				rec = &r
				recs[d.EntityName] = rec
				order = append(order, d.EntityName)
			}
			have := observations(rec.Body)
			kept := slices.DeleteFunc(have, func(o string) bool { return slices.Contains(d.Observations, o) })
			removed += len(observations(rec.Body)) - len(kept)
			rec.Body = strings.Join(kept, "\n")
		}
		var puts []store.Record
		for _, name := range order {
			puts = append(puts, *recs[name])
		}
		if len(puts) == 0 {
			return nil
		}
		_, err := l.PutMany(ctx, puts, nil)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return s.textResult(map[string]any{"deleted": removed, "message": "Observations deleted successfully"})
}

func (s *Server) deleteRelations(ctx context.Context, _ *mcp.CallToolRequest, in deleteRelationsArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	removed := 0
	err = s.write(ctx, func(l *Lore) error {
		for _, r := range in.Relations {
			if store.ValidID(r.From) != nil || store.ValidID(r.To) != nil {
				continue
			}
			err := l.Unlink(ctx, ns, r.From, r.RelationType, r.To)
			if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
				continue
			}
			if err != nil {
				return err
			}
			removed++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return s.textResult(map[string]any{"deleted": removed, "message": "Relations deleted successfully"})
}

// graph is a namespace's entities and relations as read for one answer.
type graph struct {
	entities  []store.Record // with bodies
	relations []store.Link
}

func loadGraph(l *Lore, ns string) (graph, error) {
	var g graph
	err := l.st.ForEach(ns, func(r store.Record) error {
		g.entities = append(g.entities, r)
		return nil
	})
	if err != nil {
		return g, err
	}
	err = l.st.ForEachLink(ns, func(lk store.Link) error {
		g.relations = append(g.relations, lk)
		return nil
	})
	return g, err
}

func (s *Server) readGraph(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	var g graph
	if err := s.read(ctx, func(l *Lore) (err error) { g, err = loadGraph(l, ns); return err }); err != nil {
		return nil, nil, err
	}
	// Most relevant first: pinned, then most recently updated, then name.
	slices.SortStableFunc(g.entities, func(a, b store.Record) int {
		if a.Pinned != b.Pinned {
			if a.Pinned {
				return -1
			}
			return 1
		}
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	text, err := s.fitGraph(g.entities, g.relations, "fetch them with open_nodes {\"names\": [...]} a few at a time, or narrow down with search_nodes")
	if err != nil {
		return nil, nil, err
	}
	return textContent(text), nil, nil
}

func (s *Server) searchNodes(ctx context.Context, _ *mcp.CallToolRequest, in searchNodesArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	var g graph
	var hits []index.Hit
	err = s.read(ctx, func(l *Lore) (err error) {
		g, err = loadGraph(l, ns)
		if err != nil {
			return err
		}
		if strings.TrimSpace(in.Query) != "" && l.ix != nil {
			hits, err = l.ix.Search(ctx, index.Query{NS: ns, Text: in.Query, Limit: len(g.entities) + 1})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Full-text hits first (BM25 order), then entities whose name, type
	// or observations contain the query (the reference server's
	// substring match), by name.
	byID := make(map[string]store.Record, len(g.entities))
	for _, r := range g.entities {
		byID[r.ID] = r
	}
	var found []store.Record
	seen := map[string]bool{}
	// An entity named by the query comes first.
	for _, r := range g.entities {
		if strings.EqualFold(r.ID, strings.TrimSpace(in.Query)) {
			seen[r.ID] = true
			found = append(found, r)
		}
	}
	for _, h := range hits {
		if r, ok := byID[h.ID]; ok && !seen[h.ID] {
			seen[h.ID] = true
			found = append(found, r)
		}
	}
	q := strings.ToLower(in.Query)
	for _, r := range g.entities { // sorted by id
		if seen[r.ID] {
			continue
		}
		if strings.Contains(strings.ToLower(r.ID), q) || strings.Contains(strings.ToLower(r.Kind), q) || strings.Contains(strings.ToLower(r.Body), q) {
			found = append(found, r)
		}
	}
	text, err := s.fitGraph(found, g.relations, "fetch them with open_nodes {\"names\": [...]}, or search again with more specific words")
	if err != nil {
		return nil, nil, err
	}
	return textContent(text), nil, nil
}

func (s *Server) openNodes(ctx context.Context, _ *mcp.CallToolRequest, in openNodesArgs) (*mcp.CallToolResult, any, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, nil, err
	}
	names := dedupeKeepOrder(in.Names)
	var recs []store.Record
	var links []store.Link
	err = s.read(ctx, func(l *Lore) error {
		for _, name := range names {
			if store.ValidID(name) != nil {
				continue
			}
			r, err := l.st.Get(ns, name)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			recs = append(recs, r)
			out, err := l.st.Links(ns, name, store.Out)
			if err != nil {
				return err
			}
			links = append(links, out...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	text, err := s.fitGraph(recs, links, "ask open_nodes again for the names left, a few at a time")
	if err != nil {
		return nil, nil, err
	}
	return textContent(text), nil, nil
}

// guard caps the message of a tool's error, so an error quoting a huge
// value cannot break the output ceiling.
func guard[In any](h mcp.ToolHandlerFor[In, any]) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		return res, out, capError(err)
	}
}

func textContent(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// fitGraph renders the entities (most relevant first) with the relations
// whose both ends are among those shown, keeping as many entities as fit
// the ceiling; the rest are named in a deferral note. One entity alone
// over the ceiling is shown with as many of its observations as fit.
func (s *Server) fitGraph(recs []store.Record, links []store.Link, fetch string) (string, error) {
	ents := make([]entity, len(recs))
	cost := make([]int, len(recs))
	for i, r := range recs {
		ents[i] = toEntity(r)
		j, err := marshal(ents[i])
		if err != nil {
			return "", err
		}
		cost[i] = s.count(j)
	}
	rels := make([]relation, len(links))
	relCost := make([]int, len(links))
	for i, lk := range links {
		rels[i] = toRelation(lk)
		j, err := marshal(rels[i])
		if err != nil {
			return "", err
		}
		relCost[i] = s.count(j)
	}
	names := make([]string, len(ents))
	nameSet := make(map[string]bool, len(ents))
	for i, e := range ents {
		names[i] = e.Name
		nameSet[e.Name] = true
	}
	limit := s.opts.MaxOutput
	nameBudget := limit / 10
	reason := fmt.Sprintf("over the %d-token output ceiling (--max-output)", limit)
	render := func(shown []entity, n int, trunc *truncation) (string, error) {
		in := make(map[string]bool, n)
		for _, e := range shown {
			in[e.Name] = true
		}
		out := graphResult{Entities: nonNil(shown), Relations: []relation{}}
		leftRels, leftTokens := 0, 0
		for i, r := range rels {
			if in[r.From] && in[r.To] {
				out.Relations = append(out.Relations, r)
			} else if nameSet[r.From] || nameSet[r.To] {
				leftRels++
				leftTokens += relCost[i]
			}
		}
		if n < len(ents) || trunc != nil {
			for _, c := range cost[n:] {
				leftTokens += c
			}
			listed, more := s.nameList(names[n:], nameBudget)
			out.Deferred = &graphDeferral{Entities: len(ents) - n, Relations: leftRels, Tokens: leftTokens,
				Reason: reason, Names: nonNil(listed), More: more, Fetch: fetch, Truncated: trunc}
			if more > 0 {
				out.Deferred.Fetch += fmt.Sprintf(" (%d more names are not listed: narrow down with search_nodes)", more)
			}
		}
		return marshal(out)
	}
	text, n, err := s.fitPrefix(len(ents), limit, func(n int) (string, error) { return render(ents[:n], n, nil) })
	if err != nil || n > 0 || len(ents) == 0 {
		return text, err
	}
	// The first entity alone is over the ceiling: show part of it.
	first := ents[0]
	total := len(first.Observations)
	text, _, err = s.fitPrefix(total, limit, func(k int) (string, error) {
		e := first
		e.Observations = nonNil(first.Observations[:k])
		return render([]entity{e}, 1, &truncation{Name: first.Name, Shown: k, Of: total,
			Fetch: fmt.Sprintf("get_record {\"id\": %q} pages through the whole body with offset", first.Name)})
	})
	return text, err
}

// echo renders the list answer of a write (what was created or added),
// keeping what fits the ceiling and counting the rest.
func (s *Server) echo(key string, total int, prefix func(n int) any, left string) (*mcp.CallToolResult, any, error) {
	text, _, err := s.fitPrefix(total, s.opts.MaxOutput, func(n int) (string, error) {
		items, err := marshal(nonNilAny(prefix(n)))
		if err != nil {
			return "", err
		}
		out := `{"` + key + `":` + items
		if n < total {
			note, err := marshal(struct {
				Count  int    `json:"count"`
				Reason string `json:"reason"`
				Note   string `json:"note"`
			}{total - n, fmt.Sprintf("over the %d-token output ceiling (--max-output)", s.opts.MaxOutput), left})
			if err != nil {
				return "", err
			}
			out += `,"deferred":` + note
		}
		return out + "}", nil
	})
	if err != nil {
		return nil, nil, err
	}
	return textContent(text), nil, nil
}

func nonNilAny(v any) any {
	switch x := v.(type) {
	case []entity:
		return nonNil(x)
	case []relation:
		return nonNil(x)
	case []addedObservations:
		return nonNil(x)
	}
	return v
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func dedupeKeepOrder(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// cutUTF8 shortens n to a rune boundary of s.
func cutUTF8(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// ---- Lore's own tools ----

// jsonTool adapts an operation answering JSON text to a tool handler.
func jsonTool[In any](op func(context.Context, In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		text, err := op(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return textContent(text), nil, nil
	}
}

func (s *Server) addLoreTools(srv *mcp.Server) {
	ceiling := fmt.Sprintf(" Answers stay under %d tokens; what does not fit is named in \"deferred\".", s.opts.MaxOutput)
	mcp.AddTool(srv, &mcp.Tool{Name: "put_record", Annotations: destructiveTool("Store a record"),
		Description: "Store a record (a memory, fact, note...) under an id. An existing record with that id is replaced: its previous version is kept in history, and identical content changes nothing (status \"unchanged\")."},
		guard(jsonTool(s.opPut)))
	mcp.AddTool(srv, &mcp.Tool{Name: "get_record", Annotations: readOnlyTool("Read a record"),
		Description: "Read one record with its body. A body longer than one answer is paged: the answer then carries \"next\" with the offset to ask for."},
		guard(jsonTool(s.opGet)))
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Annotations: readOnlyTool("Search records"),
		Description: "Full-text search (BM25) of one namespace: ids, kinds, titles and scores, best first." + ceiling},
		guard(jsonTool(s.opSearch)))
	mcp.AddTool(srv, &mcp.Tool{Name: "link", Annotations: additiveTool("Link two records"),
		Description: "Link two records with a named relation (from -rel-> to). The target may not exist yet. Linking again only updates the weight."},
		guard(jsonTool(s.opLink)))
	mcp.AddTool(srv, &mcp.Tool{Name: "unlink", Annotations: destructiveTool("Remove a link"),
		Description: "Remove the link from -rel-> to."},
		guard(jsonTool(s.opUnlink)))
	mcp.AddTool(srv, &mcp.Tool{Name: "neighbors", Annotations: readOnlyTool("Walk the graph"),
		Description: "The records linked to a record, within 1 or 2 hops, both directions, with the link that reached each." + ceiling},
		guard(jsonTool(s.opNeighbors)))
	mcp.AddTool(srv, &mcp.Tool{Name: "forget", Annotations: destructiveTool("Forget a record"),
		Description: "Delete a record and (unless keep_links) its links."},
		guard(jsonTool(s.opForget)))
	mcp.AddTool(srv, &mcp.Tool{Name: "build_packet", Annotations: readOnlyTool("Build a Context Packet"),
		Description: "Build a Context Packet: the records that matter for a query or focus, ranked, fitted into a token budget, with a deferral note (and a get_record call) for everything left out. Returns the packet and its report."},
		guard(s.buildPacketTool))
	mcp.AddTool(srv, &mcp.Tool{Name: "list_namespaces", Annotations: readOnlyTool("List namespaces"),
		Description: "The namespaces that hold records (only the server's own when it was started with --ns)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			text, err := s.opNamespaces(ctx)
			if err != nil {
				return nil, nil, err
			}
			return textContent(text), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "stats", Annotations: readOnlyTool("Store statistics"),
		Description: "Counts of records, links and versions of a namespace, by kind."},
		guard(jsonTool(s.opStats)))
}

// buildPacketTool answers with two text blocks: the packet, then its
// report.
func (s *Server) buildPacketTool(ctx context.Context, _ *mcp.CallToolRequest, in packetArgs) (*mcp.CallToolResult, any, error) {
	ans, err := s.opPacket(ctx, in, func(a *PacketAnswer) (int, error) { return s.count(a.Packet) + s.count(a.Report), nil })
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ans.Packet}, &mcp.TextContent{Text: ans.Report}}}, nil, nil
}
