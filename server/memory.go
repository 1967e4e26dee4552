package server

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lorekeep/lore"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/internal/clip"
	"github.com/lorekeep/lore/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools of the reference MCP memory server
// (@modelcontextprotocol/server-memory 2026.8.31): their names, titles,
// descriptions, input and output schemas and annotations, as that server
// lists them.
//
//go:embed memory_tools.json
var memoryToolsJSON []byte

type memoryToolDef struct {
	Name         string               `json:"name"`
	Title        string               `json:"title"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `json:"annotations"`
}

// memoryTool returns the reference server's definition of the named tool.
func memoryTool(name string) *mcp.Tool {
	var defs []memoryToolDef
	if err := json.Unmarshal(memoryToolsJSON, &defs); err != nil {
		panic(fmt.Sprintf("memory_tools.json: %v", err))
	}
	for _, d := range defs {
		if d.Name == name {
			return &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description,
				InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations}
		}
	}
	panic("memory_tools.json: no tool " + name)
}

// entity is a node of the memory-server graph: a record whose id is the
// name, whose kind is the entity type and whose body holds the
// observations (see encodeObservations).
type entity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

// relation is a directed edge of the memory-server graph: a link.
type relation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

type observationSet struct {
	EntityName string   `json:"entityName"`
	Contents   []string `json:"contents"`
}

type observationDeletion struct {
	EntityName   string   `json:"entityName"`
	Observations []string `json:"observations"`
}

type createEntitiesArgs struct {
	Entities []entity `json:"entities"`
}

type createRelationsArgs struct {
	Relations []relation `json:"relations"`
}

type addObservationsArgs struct {
	Observations []observationSet `json:"observations"`
}

type deleteEntitiesArgs struct {
	EntityNames []string `json:"entityNames"`
}

type deleteObservationsArgs struct {
	Deletions []observationDeletion `json:"deletions"`
}

type deleteRelationsArgs struct {
	Relations []relation `json:"relations"`
}

type searchNodesArgs struct {
	Query string `json:"query"`
}

type openNodesArgs struct {
	Names []string `json:"names"`
}

// The structured results, as the reference's output schemas describe them.
type (
	entitiesOut struct {
		Entities []entity `json:"entities"`
	}
	relationsOut struct {
		Relations []relation `json:"relations"`
	}
	addedObservations struct {
		EntityName        string   `json:"entityName"`
		AddedObservations []string `json:"addedObservations"`
	}
	resultsOut struct {
		Results []addedObservations `json:"results"`
	}
	deleteOut struct {
		Success bool   `json:"success"`
		Message string `json:"message"`
	}
	graphOut struct {
		Entities  []entity   `json:"entities"`
		Relations []relation `json:"relations"`
	}
)

// refusal names one item of a batch Lore cannot store; the rest of the
// batch goes ahead.
type refusal struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

// metaPos is the meta key keeping an entity's position within the
// create_entities call that made it: entities are listed by creation
// time, and one call creates them all at the same instant.
const metaPos = "memory.pos"

func (s *Server) addMemoryTools(srv *mcp.Server) {
	mcp.AddTool(srv, memoryTool("create_entities"), notifying(srv, guard(s.createEntities)))
	mcp.AddTool(srv, memoryTool("create_relations"), notifying(srv, guard(s.createRelations)))
	mcp.AddTool(srv, memoryTool("add_observations"), notifying(srv, guard(s.addObservations)))
	mcp.AddTool(srv, memoryTool("delete_entities"), notifying(srv, guard(s.deleteEntities)))
	mcp.AddTool(srv, memoryTool("delete_observations"), notifying(srv, guard(s.deleteObservations)))
	mcp.AddTool(srv, memoryTool("delete_relations"), notifying(srv, guard(s.deleteRelations)))
	mcp.AddTool(srv, memoryTool("read_graph"), guard(s.readGraph))
	mcp.AddTool(srv, memoryTool("search_nodes"), guard(s.searchNodes))
	mcp.AddTool(srv, memoryTool("open_nodes"), guard(s.openNodes))
}

// entityRecord is the record id and kind an entity is stored under (see
// memory_names.go), or why it cannot be stored.
func entityRecord(e entity) (id, kind, why string) {
	id, err := entityID(e.Name)
	if err == nil {
		kind, err = entityKind(e.EntityType)
	}
	if err != nil {
		return "", "", err.Error()
	}
	return id, kind, ""
}

// relationLink is the link a relation is stored as, or why it cannot be.
func relationLink(ns string, r relation) (store.Link, string) {
	from, err := entityID(r.From)
	var to, rel string
	if err == nil {
		to, err = entityID(r.To)
	}
	if err == nil {
		rel, err = linkRel(r.RelationType)
	}
	if err != nil {
		return store.Link{}, err.Error()
	}
	return store.Link{NS: ns, From: from, Rel: rel, To: to}, ""
}

func (s *Server) createEntities(ctx context.Context, _ *mcp.CallToolRequest, in createEntitiesArgs) (*mcp.CallToolResult, entitiesOut, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, entitiesOut{}, err
	}
	var refused []refusal
	var created []entity
	err = s.write(ctx, func(l *lore.Lore) error {
		seen := map[string]bool{}
		var recs []store.Record
		for _, e := range in.Entities {
			id, kind, why := entityRecord(e)
			if why != "" {
				refused = append(refused, refusal{Item: fmt.Sprintf("entity %q", clip.String(e.Name, 80)), Reason: why})
				continue
			}
			if seen[e.Name] {
				refused = append(refused, refusal{Item: fmt.Sprintf("entity %q", e.Name), Reason: "the name is given twice in this call; Lore keeps the first"})
				continue
			}
			seen[e.Name] = true
			if _, err := l.Store().Head(ns, id); err == nil {
				continue // the reference server skips existing names
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			e.Observations = nonNil(e.Observations)
			recs = append(recs, store.Record{NS: ns, ID: id, Kind: kind, Body: encodeObservations(e.Observations),
				Meta: map[string]string{metaPos: strconv.Itoa(len(recs))}})
			created = append(created, e)
		}
		if len(recs) == 0 {
			return nil
		}
		_, err := l.PutMany(ctx, recs, nil)
		return err
	})
	if err != nil {
		return nil, entitiesOut{}, err
	}
	shown, res, err := fitEcho(s, created, refused, "all of them were created; read them with open_nodes")
	return res, entitiesOut{Entities: shown}, err
}

func (s *Server) createRelations(ctx context.Context, _ *mcp.CallToolRequest, in createRelationsArgs) (*mcp.CallToolResult, relationsOut, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, relationsOut{}, err
	}
	var refused []refusal
	var created []relation
	err = s.write(ctx, func(l *lore.Lore) error {
		seen := map[relation]bool{}
		var links []store.Link
		for _, r := range in.Relations {
			item := fmt.Sprintf("relation %q -%s-> %q", clip.String(r.From, 80), clip.String(r.RelationType, 80), clip.String(r.To, 80))
			lk, why := relationLink(ns, r)
			if why != "" {
				refused = append(refused, refusal{Item: item, Reason: why})
				continue
			}
			if seen[r] {
				refused = append(refused, refusal{Item: item, Reason: "the relation is given twice in this call; Lore keeps one"})
				continue
			}
			seen[r] = true
			exists, err := linkExists(l, lk)
			if err != nil {
				return err
			}
			if exists {
				continue
			}
			links = append(links, lk)
			created = append(created, r)
		}
		if len(links) == 0 {
			return nil
		}
		_, err := l.PutMany(ctx, nil, links)
		return err
	})
	if err != nil {
		return nil, relationsOut{}, err
	}
	shown, res, err := fitEcho(s, created, refused, "all of them were created; read them with open_nodes on their entities")
	return res, relationsOut{Relations: shown}, err
}

// linkExists reports whether the link is stored already.
func linkExists(l *lore.Lore, want store.Link) (bool, error) {
	links, err := l.Store().Links(want.NS, want.From, store.Out)
	if err != nil {
		return false, err
	}
	for _, lk := range links {
		if lk.Rel == want.Rel && lk.To == want.To {
			return true, nil
		}
	}
	return false, nil
}

func (s *Server) addObservations(ctx context.Context, _ *mcp.CallToolRequest, in addObservationsArgs) (*mcp.CallToolResult, resultsOut, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, resultsOut{}, err
	}
	var results []addedObservations
	err = s.write(ctx, func(l *lore.Lore) error {
		recs := map[string]*store.Record{}
		var order []string
		for _, o := range in.Observations {
			rec, ok := recs[o.EntityName]
			if !ok {
				r, err := getEntity(l, ns, o.EntityName)
				if errors.Is(err, store.ErrNotFound) {
					// The reference server's words; nothing is added.
					//lint:ignore ST1005 the reference server's words, matched exactly
					return fmt.Errorf("Entity with name %s not found", o.EntityName)
				}
				if err != nil {
					return err
				}
				rec = &r
				recs[o.EntityName] = rec
				order = append(order, o.EntityName)
			}
			have := decodeObservations(rec.Body)
			added := []string{}
			for _, c := range o.Contents {
				// As the reference: checked against the observations
				// held before this item, so a repeat within it is added.
				if !contains(have, c) {
					added = append(added, c)
				}
			}
			rec.Body = encodeObservations(append(have, added...))
			results = append(results, addedObservations{EntityName: o.EntityName, AddedObservations: added})
		}
		return putRecords(ctx, l, recs, order)
	})
	if err != nil {
		return nil, resultsOut{}, err
	}
	shown, res, err := fitEcho(s, results, nil, "all of them were added; read them with open_nodes")
	return res, resultsOut{Results: shown}, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// getEntity reads the record of an entity name; a name that cannot be
// stored is not found.
func getEntity(l *lore.Lore, ns, name string) (store.Record, error) {
	id, err := entityID(name)
	if err != nil {
		return store.Record{}, store.ErrNotFound
	}
	return l.Store().Get(ns, id)
}

// putRecords stores the records of recs named in order, in one write.
func putRecords(ctx context.Context, l *lore.Lore, recs map[string]*store.Record, order []string) error {
	if len(order) == 0 {
		return nil
	}
	puts := make([]store.Record, 0, len(order))
	for _, name := range order {
		puts = append(puts, *recs[name])
	}
	_, err := l.PutMany(ctx, puts, nil)
	return err
}

func deleted(what string) (*mcp.CallToolResult, deleteOut, error) {
	msg := what + " deleted successfully"
	return textContent(msg), deleteOut{Success: true, Message: msg}, nil
}

func (s *Server) deleteEntities(ctx context.Context, _ *mcp.CallToolRequest, in deleteEntitiesArgs) (*mcp.CallToolResult, deleteOut, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, deleteOut{}, err
	}
	err = s.write(ctx, func(l *lore.Lore) error {
		for _, name := range dedupeKeepOrder(in.EntityNames) {
			id, err := entityID(name)
			if err != nil {
				continue // cannot exist
			}
			err = l.Delete(ctx, ns, id, true)
			if errors.Is(err, store.ErrNotFound) {
				// No record, but relations may still name it: the
				// reference server removes those too.
				err = unlinkAll(ctx, l, ns, id)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, deleteOut{}, err
	}
	return deleted("Entities")
}

// unlinkAll removes every link of id in both directions.
func unlinkAll(ctx context.Context, l *lore.Lore, ns, id string) error {
	links, err := l.Store().Links(ns, id, store.Both)
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

func (s *Server) deleteObservations(ctx context.Context, _ *mcp.CallToolRequest, in deleteObservationsArgs) (*mcp.CallToolResult, deleteOut, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, deleteOut{}, err
	}
	err = s.write(ctx, func(l *lore.Lore) error {
		recs := map[string]*store.Record{}
		var order []string
		for _, d := range in.Deletions {
			rec, ok := recs[d.EntityName]
			if !ok {
				r, err := getEntity(l, ns, d.EntityName)
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
			kept := []string{}
			for _, o := range decodeObservations(rec.Body) {
				if !contains(d.Observations, o) {
					kept = append(kept, o)
				}
			}
			rec.Body = encodeObservations(kept)
		}
		return putRecords(ctx, l, recs, order)
	})
	if err != nil {
		return nil, deleteOut{}, err
	}
	return deleted("Observations")
}

func (s *Server) deleteRelations(ctx context.Context, _ *mcp.CallToolRequest, in deleteRelationsArgs) (*mcp.CallToolResult, deleteOut, error) {
	ns, err := s.namespace("")
	if err != nil {
		return nil, deleteOut{}, err
	}
	err = s.write(ctx, func(l *lore.Lore) error {
		for _, r := range in.Relations {
			lk, why := relationLink(ns, r)
			if why != "" {
				continue // cannot exist
			}
			err := l.Unlink(ctx, ns, lk.From, lk.Rel, lk.To)
			if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrInvalid) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, deleteOut{}, err
	}
	return deleted("Relations")
}

// refusalNote is the text block naming the items Lore refused.
func refusalNote(refused []refusal) string {
	if len(refused) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Lore did not store %d item(s) of this call (the rest went ahead):", len(refused))
	for _, r := range refused {
		fmt.Fprintf(&b, "\n- %s: %s", r.Item, r.Reason)
	}
	return b.String()
}
