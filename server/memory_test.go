package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/lorekeep/lore/server"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Observations and names the reference accepts read back byte for byte
// (a name that cannot be a record id is kept escaped); an item Lore
// cannot store at all (a name over 256 bytes) is refused alone, named,
// and the rest goes ahead.
func TestMCPMemoryFaithfulValues(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, nil)
	obs := []string{"two\nlines", "", "  padded  ", "crlf\r\nend\n", "- looks like an item", "dup", "dup", "sep\u2028ar"}
	var created struct{ Entities []kgEntity }
	res := callResult(t, cs, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "x", "entityType": "t", "observations": obs},
		{"name": " padded name ", "entityType": "t", "observations": []string{}},
		{"name": strings.Repeat("n", 300), "entityType": "t", "observations": []string{}},
	}}, &created)
	if len(created.Entities) != 2 || created.Entities[0].Name != "x" || created.Entities[1].Name != " padded name " {
		t.Errorf("created %+v, want x and \" padded name \"", created.Entities)
	}
	refused, _ := res.Meta["lore/refused"].([]any)
	if texts := textsOf(res); len(refused) != 1 || len(texts) != 2 || !strings.Contains(texts[1], "the name is 300 bytes long (301 as Lore keeps it): a Lore record id holds at most 256 bytes") {
		t.Errorf("refusals %v, texts %q: want the long name refused, saying why", res.Meta, texts)
	}
	if texts := textsOf(res); !strings.HasPrefix(texts[0], "[\n  {\n    \"name\": \"x\",") || !strings.Contains(texts[0], "sep\u2028ar") {
		t.Errorf("text %q: want a bare array, indented as JSON.stringify(v, null, 2)", texts[0])
	}
	var g kgGraph
	callJSON(t, cs, "open_nodes", map[string]any{"names": []string{"x"}}, &g)
	if len(g.Entities) != 1 || !slices.Equal(g.Entities[0].Observations, obs) {
		t.Errorf("observations read back %q, want %q", g.Entities, obs)
	}
	// Names, types and relation types of any text, kept escaped.
	odd := []string{"", " padded name ", "line\nbreak", "~tilde", "100%", "%20", "\u00a0nbsp\u00a0", "tab\tinside"}
	var ents []map[string]any
	for _, n := range odd[2:] {
		ents = append(ents, map[string]any{"name": n, "entityType": " " + n, "observations": []string{n}})
	}
	callJSON(t, cs, "create_entities", map[string]any{"entities": append(ents, map[string]any{"name": "", "entityType": "", "observations": []string{}})}, &created)
	var rels []map[string]string
	for i := range odd {
		rels = append(rels, map[string]string{"from": odd[i], "to": odd[(i+1)%len(odd)], "relationType": odd[(i+2)%len(odd)] + "r"})
	}
	callJSON(t, cs, "create_relations", map[string]any{"relations": rels}, &g)
	callJSON(t, cs, "open_nodes", map[string]any{"names": odd}, &g)
	if got := g.names(); !slices.Equal(got, []string{" padded name ", "line\nbreak", "~tilde", "100%", "%20", "\u00a0nbsp\u00a0", "tab\tinside", ""}) {
		t.Errorf("open_nodes of odd names gave %q", got)
	}
	for _, e := range g.Entities[1:7] {
		if e.EntityType != " "+e.Name || !slices.Equal(e.Observations, []string{e.Name}) {
			t.Errorf("entity %q read back as type %q, observations %q", e.Name, e.EntityType, e.Observations)
		}
	}
	if len(g.Relations) != len(odd) {
		t.Fatalf("relations %+v, want %d", g.Relations, len(odd))
	}
	for i, r := range g.Relations {
		if want := (kgRelation{From: odd[i], To: odd[(i+1)%len(odd)], RelationType: odd[(i+2)%len(odd)] + "r"}); r != want {
			t.Errorf("relation %d read back %+v, want %+v", i, r, want)
		}
	}
	var gone struct{ Success bool }
	callJSON(t, cs, "delete_entities", map[string]any{"entityNames": odd}, &gone)
	// Relations to missing entities are kept and shown; check passes.
	callJSON(t, cs, "create_relations", map[string]any{"relations": []map[string]string{
		{"from": "x", "to": "ghost", "relationType": "knows"}, {"from": "phantom", "to": "nobody", "relationType": "r"}}}, &g)
	callJSON(t, cs, "read_graph", map[string]any{}, &g)
	if len(g.Relations) != 2 {
		t.Errorf("read_graph relations %+v, want both dangling ones", g.Relations)
	}
	var del struct {
		Success bool
		Message string
	}
	res = callResult(t, cs, "delete_entities", map[string]any{"entityNames": []string{"phantom"}}, &del)
	if !del.Success || del.Message != "Entities deleted successfully" || textsOf(res)[0] != del.Message {
		t.Errorf("delete_entities: %+v %q, want the reference's sentence", del, textsOf(res))
	}
	srvCheck(t, dir)
}

// The knowledge-graph resource reads as read_graph, and a subscriber
// hears of every write.
func TestMCPMemoryResource(t *testing.T) {
	s := newServer(t, srvStore(t), nil)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	updated := make(chan string, 10)
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI }})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "memory://knowledge-graph"}); err != nil {
		t.Fatal(err)
	}
	var out any
	callJSON(t, cs, "create_entities", map[string]any{"entities": []map[string]any{{"name": "a", "entityType": "t", "observations": []string{"o"}}}}, &out)
	select {
	case uri := <-updated:
		if uri != "memory://knowledge-graph" {
			t.Errorf("updated %q", uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no resources/updated notification after create_entities")
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://knowledge-graph"})
	if err != nil {
		t.Fatal(err)
	}
	var g kgGraph
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &g); err != nil || len(g.Entities) != 1 || rr.Contents[0].MIMEType != "application/json" {
		t.Errorf("resource %+v (%v), want the graph of one entity as JSON", rr.Contents[0], err)
	}
}

// A bad frame gets a JSON-RPC error and the server goes on serving.
func TestMCPBadFrames(t *testing.T) {
	s := newServer(t, srvStore(t), nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeMCP(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewReader(outR)
	send := func(line string) string {
		t.Helper()
		go func() { _, _ = io.WriteString(inW, line+"\n") }()
		got, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("after %.40q: %v", line, err)
		}
		return got
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if got := send(init); !strings.Contains(got, `"id":1`) {
		t.Fatalf("initialize: %s", got)
	}
	for _, bad := range []string{"not json", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), `{"jsonrpc":"2.0","id":2,"method":"x","params":"` + strings.Repeat("a", server.MaxMCPFrameBytes) + `"}`} {
		if got := send(bad); !strings.Contains(got, `"error"`) || !strings.Contains(got, `"id":null`) {
			t.Errorf("bad frame %.30q: answer %.200s, want a JSON-RPC error", bad, got)
		}
	}
	if got := send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); !strings.Contains(got, `"id":3`) || strings.Contains(got, "error") {
		t.Errorf("ping after bad frames: %s", got)
	}
	inW.Close()
	if err := <-done; err != nil && err != io.EOF {
		t.Logf("serve ended: %v", err)
	}
}

// A client that writes its requests and closes its end of the pipe (as
// `printf ... | lore serve --mcp` does) gets every reply, and then the
// server ends by itself.
func TestMCPAnswersEverythingBeforeEOF(t *testing.T) {
	s := newServer(t, srvStore(t), nil)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}}}
{"jsonrpc":"2.0","id":4,"method":"ping"}
`
	for run := range 20 {
		var out bytes.Buffer
		if err := s.ServeMCP(t.Context(), strings.NewReader(in), &out); err != nil && !errors.Is(err, io.EOF) {
			t.Logf("run %d: serve ended: %v", run, err)
		}
		got := out.String()
		for id := 1; id <= 4; id++ {
			if !strings.Contains(got, fmt.Sprintf(`"id":%d,"result"`, id)) {
				t.Fatalf("run %d: no result for request %d:\n%s", run, id, got)
			}
		}
	}
}
