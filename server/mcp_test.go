package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lorekeep/lore/server"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
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

// newServer makes a server of dir that is closed when the test ends,
// before the test's temporary folder is removed: a server keeps the store
// open between requests, and a store still open (its index writing) when
// the folder goes leaves the folder not empty. Close is safe to call again.
func newServer(t *testing.T, dir string, opts *server.Options) *server.Server {
	t.Helper()
	s, err := server.New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close the server: %v", err)
		}
	})
	return s
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
func mcpClient(t *testing.T, dir string, opts *server.Options) *mcp.ClientSession {
	t.Helper()
	s := newServer(t, dir, opts)
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
		if err := s.Close(); err != nil {
			t.Errorf("close server: %v", err)
		}
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
		"search":              {true, false, nil}, // query or query_vector: the tool says which is missing
		"link":                {false, false, []string{"from", "rel", "to"}},
		"unlink":              {false, true, []string{"from", "rel", "to"}},
		"neighbors":           {true, false, []string{"id"}},
		"forget":              {false, true, []string{"id"}},
		"build_packet":        {true, false, nil},
		"why":                 {true, false, []string{"id"}},
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
func TestMCPErrorCapped(t *testing.T) {
	cs := mcpClient(t, srvStore(t), &server.Options{MaxOutput: 1000})
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
	if put.NS != server.DefaultMemoryNS || put.Status != store.StatusAdded || put.Version != 1 {
		t.Errorf("put: %+v, want added v1 in %q", put, server.DefaultMemoryNS)
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
	var why packet.Verdict
	callJSON(t, cs, "why", map[string]any{"id": "pref-tea", "query": "tea", "budget": 2000}, &why)
	if why.Status != packet.StatusIn || why.NS != server.DefaultMemoryNS || why.Rule == "" {
		t.Errorf("why pref-tea: %+v, want in the packet with its rule", why)
	}
	callJSON(t, cs, "put_record", map[string]any{"id": "pref-coffee", "kind": "memory", "body": "The user now prefers coffee in the morning.", "supersedes": "pref-tea"}, &put)
	texts = call(t, cs, "build_packet", map[string]any{"query": "morning", "budget": 2000})
	if !strings.Contains(texts[0], "coffee") || strings.Contains(texts[0], "green tea") || !strings.Contains(texts[0], "by `pref-coffee`") {
		t.Errorf("build_packet after a supersede:\n%s", texts[0])
	}
	callJSON(t, cs, "why", map[string]any{"id": "no-such", "query": "tea", "budget": 2000}, &why)
	if why.Status != packet.StatusMissing {
		t.Errorf("why no-such: %+v, want missing", why)
	}

	var nss struct{ Namespaces []string }
	callJSON(t, cs, "list_namespaces", map[string]any{}, &nss)
	if !slices.Equal(nss.Namespaces, []string{server.DefaultMemoryNS}) {
		t.Errorf("namespaces %v", nss.Namespaces)
	}
	var st store.Stats
	callJSON(t, cs, "stats", map[string]any{}, &st)
	if st.Records != 3 || st.Links != 2 || st.Versions != 1 {
		t.Errorf("stats: %+v, want 3 records (pref-coffee superseding pref-tea), 2 links and pref-tea's first version kept", st)
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
	// A record of another namespace: a scoped server's why does not say
	// where it is.
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(context.Background(), store.Record{NS: "team/b", ID: "secret", Body: "hello from b"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	cs := mcpClient(t, dir, &server.Options{NS: "team/a"})
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
	var why packet.Verdict
	callJSON(t, cs, "why", map[string]any{"id": "secret", "query": "hello"}, &why)
	if why.Status != packet.StatusMissing || len(why.Namespaces) > 0 || strings.Contains(why.Reason, "team/b") {
		t.Errorf("why secret on a server scoped to team/a: %+v; want missing, with no word of team/b", why)
	}
	// The memory tools work in the server's namespace.
	call(t, cs, "create_entities", map[string]any{"entities": []map[string]any{{"name": "e", "entityType": "t", "observations": []string{"o"}}}})
	l, err = lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Get("team/a", "e"); err != nil {
		t.Errorf("entity not in team/a: %v", err)
	}
	if nss, _ := l.Namespaces(); !slices.Equal(nss, []string{"team/a", "team/b"}) {
		t.Errorf("namespaces %v, want team/a and the team/b written before", nss)
	}
}

// bigGraph stores n entities with a few observations each and a ring of
// relations, in one transaction.

// TestMCPVectors puts records with vectors over MCP, reads one back with
// and without its numbers, and finds the record only its vector matches
// in search and in a packet; bad vectors are tool errors naming them.
func TestMCPVectors(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, nil)
	var put store.PutResult
	callJSON(t, cs, "put_record", map[string]any{"id": "final", "kind": "memory", "body": "The tournament final is on Saturday.", "vector": []float32{1, 0, 0}}, &put)
	callJSON(t, cs, "put_record", map[string]any{"id": "match", "kind": "memory", "body": "We booked the big match for the weekend.", "vector": []float32{0, 1, 0}}, &put)
	callJSON(t, cs, "put_record", map[string]any{"id": "rent", "kind": "memory", "body": "Rent is due on the first.", "vector": []float32{0, 0, 1}}, &put)

	var rec struct {
		store.Record
		VectorDims int `json:"vector_dims"`
	}
	callJSON(t, cs, "get_record", map[string]any{"id": "match"}, &rec)
	if rec.VectorDims != 3 || rec.Vector != nil {
		t.Errorf("get_record: vector_dims %d, vector %v; want 3 and no numbers", rec.VectorDims, rec.Vector)
	}
	callJSON(t, cs, "get_record", map[string]any{"id": "match", "with_vector": true}, &rec)
	if !slices.Equal(rec.Vector, []float32{0, 1, 0}) {
		t.Errorf("get_record with_vector: %v", rec.Vector)
	}

	var found struct{ Hits []lore.Hit }
	callJSON(t, cs, "search", map[string]any{"query": "tournament", "query_vector": []float32{0.1, 1, 0}, "limit": 2}, &found)
	if len(found.Hits) != 2 || !slices.ContainsFunc(found.Hits, func(h lore.Hit) bool { return h.ID == "final" }) ||
		!slices.ContainsFunc(found.Hits, func(h lore.Hit) bool { return h.ID == "match" }) {
		t.Errorf("search by words and vector: %+v; want final and match", found.Hits)
	}
	text := strings.Join(call(t, cs, "build_packet", map[string]any{"query": "When is the tournament final?", "query_vector": []float32{0.1, 1, 0}, "budget": 400}), "\n")
	if !strings.Contains(text, "big match") || !strings.Contains(text, "tournament final") {
		t.Errorf("packet with a query vector lacks one of the answers:\n%s", text)
	}
	if _, err := callErr(t, cs, "put_record", map[string]any{"id": "short", "vector": []float32{1, 2}}); err == nil || !strings.Contains(err.Error(), `record "short" has a vector of 2 dimensions`) {
		t.Errorf("put of a 2-dimensional vector: %v", err)
	}
	if _, err := callErr(t, cs, "build_packet", map[string]any{"query": "x", "query_vector": []float32{0, 0, 0}}); err == nil || !strings.Contains(err.Error(), "all 3 elements are 0") {
		t.Errorf("packet with a zero query vector: %v", err)
	}
}
