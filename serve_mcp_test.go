package lore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// srvStore makes an empty store and returns its directory.
func srvStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// srvCheck opens the store and fails the test on any problem `lore check`
// would report.
func srvCheck(t *testing.T, dir string) {
	t.Helper()
	l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	probs, err := l.Check()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		if !p.Warning() { // a dangling link is legal
			t.Errorf("check: %s/%s: %s", p.NS, p.ID, p.What)
		}
	}
}

// mcpClient serves dir with opts over an in-memory transport and returns
// a connected client session.
func mcpClient(t *testing.T, dir string, opts *lore.ServeOptions) *mcp.ClientSession {
	t.Helper()
	s, err := lore.NewServer(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return cs
}

// call calls a tool and returns its text blocks; a tool error fails the
// test.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) []string {
	t.Helper()
	texts, err := callErr(t, cs, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return texts
}

// callErr calls a tool and returns its text blocks, or its tool error.
func callErr(t *testing.T, cs *mcp.ClientSession, name string, args any) ([]string, error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", name, c)
		}
		texts = append(texts, tc.Text)
	}
	if res.IsError {
		return nil, errors.New(strings.Join(texts, "\n"))
	}
	return texts, nil
}

// callJSON calls a tool and decodes its structured content into out,
// then the deferral note of its _meta ("lore/deferred") as "deferred".
func callJSON(t *testing.T, cs *mcp.ClientSession, name string, args, out any) {
	t.Helper()
	callResult(t, cs, name, args, out)
}

// callResult is callJSON returning the result.
func callResult(t *testing.T, cs *mcp.ClientSession, name string, args, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%s %v: %v %+v", name, args, err, res)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("%s: no structured content (%v)", name, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content does not decode: %v\n%s", name, err, b)
	}
	if d, ok := res.Meta["lore/deferred"]; ok {
		b, _ := json.Marshal(map[string]any{"deferred": d})
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: _meta deferral does not decode: %v\n%s", name, err, b)
		}
	}
	return res
}

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

func TestMCPToolsListed(t *testing.T) {
	cs := mcpClient(t, srvStore(t), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		readOnly, destructive bool
		required              []string
	}{
		"create_entities":     {false, false, []string{"entities"}},
		"create_relations":    {false, false, []string{"relations"}},
		"add_observations":    {false, false, []string{"observations"}},
		"delete_entities":     {false, true, []string{"entityNames"}},
		"delete_observations": {false, true, []string{"deletions"}},
		"delete_relations":    {false, true, []string{"relations"}},
		"read_graph":          {true, false, nil},
		"search_nodes":        {true, false, []string{"query"}},
		"open_nodes":          {true, false, []string{"names"}},
		"put_record":          {false, true, []string{"id"}},
		"get_record":          {true, false, []string{"id"}},
		"search":              {true, false, []string{"query"}},
		"link":                {false, false, []string{"from", "rel", "to"}},
		"unlink":              {false, true, []string{"from", "rel", "to"}},
		"neighbors":           {true, false, []string{"id"}},
		"forget":              {false, true, []string{"id"}},
		"build_packet":        {true, false, nil},
		"list_namespaces":     {true, false, nil},
		"stats":               {true, false, nil},
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if a.ReadOnlyHint != w.readOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, w.readOnly)
		}
		if !w.readOnly && (a.DestructiveHint == nil || *a.DestructiveHint != w.destructive) {
			t.Errorf("%s: destructiveHint %v, want %v", tool.Name, a.DestructiveHint, w.destructive)
		}
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Type       string                     `json:"type"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" {
			t.Errorf("%s: schema type %q, want object", tool.Name, s.Type)
		}
		slices.Sort(s.Required)
		if !slices.Equal(s.Required, w.required) {
			t.Errorf("%s: required %v, want %v", tool.Name, s.Required, w.required)
		}
	}
	slices.Sort(got)
	if len(got) != len(want) {
		t.Errorf("tools %v, want %d tools", got, len(want))
	}
}

// The memory server's entity schema must match the reference server's
// exactly: name, entityType and observations, all required.
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
func TestMCPErrorCapped(t *testing.T) {
	cs := mcpClient(t, srvStore(t), &lore.ServeOptions{MaxOutput: 1000})
	huge := strings.Repeat("name ", 50000)
	_, err := callErr(t, cs, "add_observations", map[string]any{"observations": []map[string]any{{"entityName": huge, "contents": []string{"x"}}}})
	if err == nil || len(err.Error()) > 2200 || !strings.Contains(err.Error(), "cut") {
		t.Errorf("error of %d bytes, want it cut near 2000", len(fmt.Sprint(err)))
	}
}

func TestMCPLoreTools(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, nil)

	var put store.PutResult
	callJSON(t, cs, "put_record", map[string]any{"id": "pref-tea", "kind": "memory", "body": "The user prefers green tea in the morning.", "tags": []string{"user"}}, &put)
	if put.NS != lore.DefaultMemoryNS || put.Status != store.StatusAdded || put.Version != 1 {
		t.Errorf("put: %+v, want added v1 in %q", put, lore.DefaultMemoryNS)
	}
	callJSON(t, cs, "put_record", map[string]any{"id": "pref-tea", "kind": "memory", "body": "The user prefers green tea in the morning.", "tags": []string{"user"}}, &put)
	if put.Status != store.StatusUnchanged {
		t.Errorf("same put again: %s, want unchanged", put.Status)
	}
	callJSON(t, cs, "put_record", map[string]any{"id": "office", "kind": "fact", "body": "The office is in Lisbon."}, &put)

	var rec struct {
		store.Record
		Next *struct{ Offset int } `json:"next"`
	}
	callJSON(t, cs, "get_record", map[string]any{"id": "pref-tea"}, &rec)
	if rec.Body != "The user prefers green tea in the morning." || rec.Kind != "memory" || rec.Next != nil {
		t.Errorf("get_record: %+v", rec)
	}

	var link struct{ Changed bool }
	callJSON(t, cs, "link", map[string]any{"from": "pref-tea", "rel": "about", "to": "office"}, &link)
	if !link.Changed {
		t.Error("first link: changed false")
	}
	var nb struct {
		Neighbors []store.Neighbor
	}
	callJSON(t, cs, "neighbors", map[string]any{"id": "office"}, &nb)
	if len(nb.Neighbors) != 1 || nb.Neighbors[0].ID != "pref-tea" || nb.Neighbors[0].Via.Rel != "about" {
		t.Errorf("neighbors of office: %+v", nb.Neighbors)
	}

	var hits struct {
		Hits []lore.Hit
	}
	callJSON(t, cs, "search", map[string]any{"query": "tea"}, &hits)
	if len(hits.Hits) != 1 || hits.Hits[0].ID != "pref-tea" {
		t.Errorf("search tea: %+v", hits.Hits)
	}

	texts := call(t, cs, "build_packet", map[string]any{"query": "tea", "budget": 2000})
	if len(texts) != 2 || !strings.Contains(texts[0], "green tea") || !strings.Contains(texts[1], "Packed:") {
		t.Errorf("build_packet: %q", texts)
	}

	var nss struct{ Namespaces []string }
	callJSON(t, cs, "list_namespaces", map[string]any{}, &nss)
	if !slices.Equal(nss.Namespaces, []string{lore.DefaultMemoryNS}) {
		t.Errorf("namespaces %v", nss.Namespaces)
	}
	var st store.Stats
	callJSON(t, cs, "stats", map[string]any{}, &st)
	if st.Records != 2 || st.Links != 1 {
		t.Errorf("stats: %+v, want 2 records 1 link", st)
	}

	call(t, cs, "unlink", map[string]any{"from": "pref-tea", "rel": "about", "to": "office"})
	call(t, cs, "forget", map[string]any{"id": "office"})
	if _, err := callErr(t, cs, "get_record", map[string]any{"id": "office"}); err == nil {
		t.Error("forgotten record still readable")
	}
	srvCheck(t, dir)
}

func TestMCPNamespaceScope(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, &lore.ServeOptions{NS: "team/a"})
	var put store.PutResult
	callJSON(t, cs, "put_record", map[string]any{"id": "x", "body": "hello"}, &put)
	if put.NS != "team/a" {
		t.Errorf("put went to %q, want team/a", put.NS)
	}
	callJSON(t, cs, "put_record", map[string]any{"ns": "team/a", "id": "y", "body": "hello"}, &put)
	for _, tool := range []string{"put_record", "get_record", "forget", "neighbors"} {
		_, err := callErr(t, cs, tool, map[string]any{"ns": "team/b", "id": "x"})
		if err == nil || !strings.Contains(err.Error(), `"team/b"`) || !strings.Contains(err.Error(), "team/a") {
			t.Errorf("%s in team/b: err %v, want a refusal naming both namespaces", tool, err)
		}
	}
	// The memory tools work in the server's namespace.
	call(t, cs, "create_entities", map[string]any{"entities": []map[string]any{{"name": "e", "entityType": "t", "observations": []string{"o"}}}})
	l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Get("team/a", "e"); err != nil {
		t.Errorf("entity not in team/a: %v", err)
	}
	if nss, _ := l.Namespaces(); !slices.Equal(nss, []string{"team/a"}) {
		t.Errorf("namespaces %v, want only team/a", nss)
	}
}

// bigGraph stores n entities with a few observations each and a ring of
// relations, in one transaction.
func bigGraph(t testing.TB, dir, ns string, n int) {
	t.Helper()
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var recs []store.Record
	var links []store.Link
	for i := range n {
		id := fmt.Sprintf("entity-%04d", i)
		body := fmt.Sprintf("observation one about %s and the harbour\nworks with entity-%04d on project %d\nlikes %s", id, (i+1)%n, i%17, []string{"tea", "coffee", "maps", "boats"}[i%4])
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "person", Body: body})
		links = append(links, store.Link{NS: ns, From: id, Rel: "knows", To: fmt.Sprintf("entity-%04d", (i+1)%n)})
	}
	if _, err := l.PutMany(context.Background(), recs, links); err != nil {
		t.Fatal(err)
	}
}

func TestMCPBoundedOutput(t *testing.T) {
	dir := srvStore(t)
	bigGraph(t, dir, lore.DefaultMemoryNS, 2000)
	const ceiling = lore.DefaultMaxOutput
	cs := mcpClient(t, dir, nil) // the default ceiling
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		all  int // entities that match
	}{
		{"read_graph", map[string]any{}, 2000},
		{"search_nodes", map[string]any{"query": "harbour"}, 2000},
		{"search_nodes", map[string]any{"query": "coffee"}, 500},
	} {
		t.Run(tc.tool+fmt.Sprint(tc.args), func(t *testing.T) {
			var g kgGraph
			res := callResult(t, cs, tc.tool, tc.args, &g)
			texts := textsOf(res)
			n := counter.Count(strings.Join(texts, "\n"))
			if n > ceiling {
				t.Fatalf("%s: %d tokens, over the ceiling %d", tc.tool, n, ceiling)
			}
			if n < ceiling*8/10 {
				t.Errorf("%s: %d tokens, want the answer to fill most of the ceiling %d", tc.tool, n, ceiling)
			}
			if len(texts) != 2 || !strings.Contains(texts[1], "Left out") {
				t.Errorf("%s: text blocks %d, want the graph and a note", tc.tool, len(texts))
			}
			if g.Deferred == nil {
				t.Fatalf("%s: no deferral note with %d of %d entities shown", tc.tool, len(g.Entities), tc.all)
			}
			if got := len(g.Entities) + g.Deferred.Entities; got != tc.all {
				t.Errorf("shown %d + deferred %d = %d, want %d", len(g.Entities), g.Deferred.Entities, got, tc.all)
			}
			if len(g.Deferred.Names)+g.Deferred.More != g.Deferred.Entities || len(g.Deferred.Names) == 0 {
				t.Errorf("deferral names %d + more %d, want %d in all", len(g.Deferred.Names), g.Deferred.More, g.Deferred.Entities)
			}
			shown := map[string]bool{}
			for _, e := range g.Entities {
				shown[e.Name] = true
			}
			for _, name := range g.Deferred.Names {
				if shown[name] {
					t.Errorf("%q both shown and deferred", name)
				}
			}
			for _, r := range g.Relations {
				if !shown[r.From] && !shown[r.To] {
					t.Errorf("relation %+v touches no entity shown", r)
				}
			}
			if !strings.Contains(g.Deferred.Fetch, "open_nodes") || g.Deferred.Tokens <= 0 {
				t.Errorf("deferral note %+v: want a token cost and the open_nodes call", g.Deferred)
			}
			// What the note names can be fetched.
			var more kgGraph
			callJSON(t, cs, "open_nodes", map[string]any{"names": g.Deferred.Names[:3]}, &more)
			if got := more.names(); !slices.Equal(got, g.Deferred.Names[:3]) {
				t.Errorf("open_nodes of deferred names: %v, want %v", got, g.Deferred.Names[:3])
			}
		})
	}
	// Substring semantics, no padding: the name, and the observation of
	// entity-0041 that names it.
	var g kgGraph
	callJSON(t, cs, "search_nodes", map[string]any{"query": "entity-0042"}, &g)
	if got := g.names(); !slices.Equal(got, []string{"entity-0041", "entity-0042"}) || g.Deferred != nil {
		t.Errorf("search_nodes entity-0042: %v (deferred %v), want [entity-0041 entity-0042]", got, g.Deferred)
	}
}

// One entity alone over the ceiling is shown in part, and a long record is
// paged by get_record.
func TestMCPBoundedHugeRecord(t *testing.T) {
	dir := srvStore(t)
	const ceiling = 1000
	cs := mcpClient(t, dir, &lore.ServeOptions{MaxOutput: ceiling})
	var obs []string
	for i := range 400 {
		obs = append(obs, fmt.Sprintf("fact number %d about the lighthouse keeper", i))
	}
	call(t, cs, "create_entities", map[string]any{"entities": []map[string]any{{"name": "keeper", "entityType": "person", "observations": obs}}})
	counter, _ := budget.NewCounter("o200k_base")

	var g kgGraph
	res := callResult(t, cs, "open_nodes", map[string]any{"names": []string{"keeper"}}, &g)
	if n := counter.Count(strings.Join(textsOf(res), "\n")); n > ceiling {
		t.Fatalf("open_nodes: %d tokens over %d", n, ceiling)
	}
	if len(g.Entities) != 1 || g.Deferred == nil || g.Deferred.Truncated == nil || g.Deferred.Truncated.Shown != len(g.Entities[0].Observations) || len(g.Entities[0].Observations) == 0 {
		t.Fatalf("huge entity: %+v", g)
	}

	var body strings.Builder
	offset := 0
	for range 100 {
		texts := call(t, cs, "get_record", map[string]any{"id": "keeper", "offset": offset})
		if n := counter.Count(texts[0]); n > ceiling {
			t.Fatalf("get_record page: %d tokens over %d", n, ceiling)
		}
		var page struct {
			Body     string `json:"body"`
			BodyFrom int    `json:"body_from"`
			Next     *struct{ Offset int }
		}
		if err := json.Unmarshal([]byte(texts[0]), &page); err != nil {
			t.Fatal(err)
		}
		if page.BodyFrom != offset {
			t.Fatalf("page from %d, asked %d", page.BodyFrom, offset)
		}
		body.WriteString(page.Body)
		if page.Next == nil {
			break
		}
		if page.Next.Offset <= offset {
			t.Fatalf("next offset %d does not advance from %d", page.Next.Offset, offset)
		}
		offset = page.Next.Offset
	}
	if got, want := body.String(), "- "+strings.Join(obs, "\n- "); got != want {
		t.Errorf("paged body (%d bytes) differs from the stored one (%d bytes)", len(got), len(want))
	}
}

func TestMCPPacketDeferral(t *testing.T) {
	dir := srvStore(t)
	bigGraph(t, dir, lore.DefaultMemoryNS, 300)
	const ceiling = 3000
	cs := mcpClient(t, dir, &lore.ServeOptions{MaxOutput: ceiling})
	counter, _ := budget.NewCounter("o200k_base")
	texts := call(t, cs, "build_packet", map[string]any{"query": "harbour coffee", "budget": "800"})
	if len(texts) != 2 {
		t.Fatalf("build_packet: %d blocks", len(texts))
	}
	if n := counter.Count(texts[0]) + counter.Count(texts[1]); n > ceiling {
		t.Errorf("packet and report %d tokens over the ceiling %d", n, ceiling)
	}
	if !strings.Contains(texts[1], "Deferred:") || !strings.Contains(texts[1], "get_record") {
		t.Errorf("report without deferral notes:\n%s", texts[1])
	}
	// A budget over the ceiling is lowered, with a warning.
	texts = call(t, cs, "build_packet", map[string]any{"query": "harbour", "budget": "100k"})
	if n := counter.Count(texts[0]) + counter.Count(texts[1]); n > ceiling {
		t.Errorf("packet and report %d tokens over the ceiling %d", n, ceiling)
	}
	if !strings.Contains(texts[1], "lowered") {
		t.Errorf("no warning that the budget was lowered:\n%s", texts[1])
	}
}
