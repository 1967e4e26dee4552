package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reference memory server's nine tools, in process.

type kgEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

type kgRelation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

type kgDeferred struct {
	Entities  int      `json:"entities"`
	Relations int      `json:"relations"`
	Tokens    int      `json:"tokens"`
	Reason    string   `json:"reason"`
	Names     []string `json:"names"`
	More      int      `json:"more"`
	Fetch     string   `json:"fetch"`
	Truncated *struct {
		Name      string `json:"name"`
		Shown, Of int
	} `json:"truncated"`
}

type kgGraph struct {
	Entities  []kgEntity   `json:"entities"`
	Relations []kgRelation `json:"relations"`
	Deferred  *kgDeferred  `json:"deferred"`
}

func textsOf(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

func (g kgGraph) names() []string {
	var out []string
	for _, e := range g.Entities {
		out = append(out, e.Name)
	}
	return out
}

func TestMCPEntitySchema(t *testing.T) {
	cs := mcpClient(t, srvStore(t), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "create_entities" {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties struct {
				Entities struct {
					Items struct {
						Required   []string                   `json:"required"`
						Properties map[string]json.RawMessage `json:"properties"`
					} `json:"items"`
				} `json:"entities"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		req := s.Properties.Entities.Items.Required
		slices.Sort(req)
		if want := []string{"entityType", "name", "observations"}; !slices.Equal(req, want) {
			t.Errorf("entity required %v, want %v (schema %s)", req, want, b)
		}
		return
	}
	t.Fatal("no create_entities tool")
}

func TestMCPMemoryTools(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, nil)

	var created struct{ Entities []kgEntity }
	texts := call(t, cs, "create_entities", map[string]any{"entities": []map[string]any{}})
	if len(texts) != 1 || texts[0] != "[]" {
		t.Errorf("create_entities of nothing: text %q, want a bare empty array as the reference", texts)
	}
	callJSON(t, cs, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "alice", "entityType": "person", "observations": []string{"likes green tea", "works remotely"}},
		{"name": "acme", "entityType": "organization", "observations": []string{"makes anvils"}},
	}}, &created)
	if got := len(created.Entities); got != 2 {
		t.Fatalf("created %d entities, want 2: %+v", got, created)
	}
	// Existing names are skipped, as by the reference server.
	callJSON(t, cs, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "alice", "entityType": "robot", "observations": []string{"beeps"}},
		{"name": "bob", "entityType": "person", "observations": []string{}},
	}}, &created)
	if got := created.Entities; len(got) != 1 || got[0].Name != "bob" {
		t.Errorf("second create: %+v, want only bob", got)
	}

	var rels struct{ Relations []kgRelation }
	callJSON(t, cs, "create_relations", map[string]any{"relations": []map[string]string{
		{"from": "alice", "to": "acme", "relationType": "works_at"},
		{"from": "bob", "to": "alice", "relationType": "knows"},
	}}, &rels)
	if len(rels.Relations) != 2 {
		t.Errorf("created relations %+v, want 2", rels.Relations)
	}
	callJSON(t, cs, "create_relations", map[string]any{"relations": []map[string]string{
		{"from": "alice", "to": "acme", "relationType": "works_at"},
	}}, &rels)
	if len(rels.Relations) != 0 {
		t.Errorf("duplicate relation created again: %+v", rels.Relations)
	}

	var added struct {
		Results []struct {
			EntityName        string   `json:"entityName"`
			AddedObservations []string `json:"addedObservations"`
		}
	}
	callJSON(t, cs, "add_observations", map[string]any{"observations": []map[string]any{
		{"entityName": "alice", "contents": []string{"likes green tea", "speaks Spanish"}},
	}}, &added)
	if len(added.Results) != 1 || !slices.Equal(added.Results[0].AddedObservations, []string{"speaks Spanish"}) {
		t.Errorf("add_observations: %+v, want only the new observation", added)
	}
	// A missing entity fails the whole call, adding nothing.
	_, err := callErr(t, cs, "add_observations", map[string]any{"observations": []map[string]any{
		{"entityName": "bob", "contents": []string{"plays chess"}},
		{"entityName": "nobody", "contents": []string{"x"}},
	}})
	if err == nil || err.Error() != "Entity with name nobody not found" {
		t.Errorf("add_observations to a missing entity: err %v, want the reference's \"Entity with name nobody not found\"", err)
	}

	var g kgGraph
	callJSON(t, cs, "open_nodes", map[string]any{"names": []string{"bob", "alice", "ghost"}}, &g)
	if got := g.names(); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Errorf("open_nodes names %v, want [alice bob] (graph order, as the reference)", got)
	}
	if len(g.Entities) == 2 && len(g.Entities[1].Observations) != 0 {
		t.Errorf("bob has observations %v after a failed add, want none", g.Entities[1].Observations)
	}
	if len(g.Entities) == 2 && !slices.Equal(g.Entities[0].Observations, []string{"likes green tea", "works remotely", "speaks Spanish"}) {
		t.Errorf("alice observations %v", g.Entities[0].Observations)
	}
	if len(g.Relations) != 2 {
		t.Errorf("open_nodes relations %+v, want both touching alice or bob (acme not opened)", g.Relations)
	}

	callJSON(t, cs, "search_nodes", map[string]any{"query": "tea"}, &g)
	if got := g.names(); !slices.Equal(got, []string{"alice"}) {
		t.Errorf("search_nodes tea: %v, want [alice]", got)
	}
	callJSON(t, cs, "search_nodes", map[string]any{"query": "ORGANIZ"}, &g) // substring of a type
	if got := g.names(); !slices.Equal(got, []string{"acme"}) {
		t.Errorf("search_nodes ORGANIZ: %v, want [acme]", got)
	}

	call(t, cs, "delete_observations", map[string]any{"deletions": []map[string]any{
		{"entityName": "alice", "observations": []string{"works remotely", "never said"}},
		{"entityName": "ghost", "observations": []string{"x"}},
	}})
	call(t, cs, "delete_relations", map[string]any{"relations": []map[string]string{
		{"from": "bob", "to": "alice", "relationType": "knows"},
		{"from": "bob", "to": "alice", "relationType": "never"},
	}})
	callJSON(t, cs, "read_graph", map[string]any{}, &g)
	if len(g.Entities) != 3 || len(g.Relations) != 1 || g.Deferred != nil {
		t.Errorf("read_graph: %+v, want 3 entities, 1 relation, nothing deferred", g)
	}
	for _, e := range g.Entities {
		if e.Name == "alice" && slices.Contains(e.Observations, "works remotely") {
			t.Errorf("deleted observation still there: %v", e.Observations)
		}
	}

	// delete_entities cascades to relations; missing names are ignored.
	call(t, cs, "delete_entities", map[string]any{"entityNames": []string{"acme", "ghost"}})
	callJSON(t, cs, "read_graph", map[string]any{}, &g)
	if got := g.names(); slices.Contains(got, "acme") || len(g.Relations) != 0 {
		t.Errorf("after delete_entities acme: entities %v relations %+v, want acme and its relation gone", got, g.Relations)
	}
	srvCheck(t, dir)
}

func TestMCPMemoryToolErrors(t *testing.T) {
	cs := mcpClient(t, srvStore(t), nil)
	tests := []struct {
		tool string
		args any
		want string // in the error text
	}{
		{"create_entities", map[string]any{}, "entities"},
		{"create_entities", map[string]any{"entities": []map[string]any{{"name": "x"}}}, "entityType"},
		{"create_relations", map[string]any{"relations": "alice"}, "relations"},
		{"search_nodes", map[string]any{"query": 7}, "query"},
		{"open_nodes", map[string]any{}, "names"},
		{"get_record", map[string]any{"id": "nope"}, "not found"},
		{"get_record", map[string]any{"id": "x", "ns": "Bad NS"}, "Bad NS"},
		{"search", map[string]any{"query": " "}, "query"},
		{"search", map[string]any{"query": "x", "limit": 5000}, "5000"},
		{"neighbors", map[string]any{"id": "nope"}, "not found"},
		{"forget", map[string]any{"id": "nope"}, "not found"},
		{"put_record", map[string]any{"id": "x", "order": "first"}, "order"},
		{"delete_entities", map[string]any{"entityNames": "x"}, "entityNames"},
		{"delete_observations", map[string]any{"deletions": []map[string]any{{"entityName": "x"}}}, "observations"},
		{"delete_relations", map[string]any{}, "relations"},
		{"link", map[string]any{"from": "a", "rel": "", "to": "b"}, "relation"},
		{"unlink", map[string]any{"from": "a", "rel": "r", "to": "b"}, "not found"},
		{"stats", map[string]any{"ns": "Bad NS"}, "Bad NS"},
		{"build_packet", map[string]any{"budget": "lots"}, "lots"},
		{"build_packet", map[string]any{"format": "pdf"}, "pdf"},
		{"build_packet", map[string]any{"focus": []string{"nope"}}, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := callErr(t, cs, tc.tool, tc.args)
			if err == nil {
				t.Fatalf("%s %v: no error, want one mentioning %q", tc.tool, tc.args, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %v: error %q, want it to mention %q", tc.tool, tc.args, err, tc.want)
			}
		})
	}
}

// An error quoting a huge bad value stays small.
