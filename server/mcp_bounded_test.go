package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/lorekeep/lore/server"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// Bounded answers: every tool result under --max-output.

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
	bigGraph(t, dir, server.DefaultMemoryNS, 2000)
	const ceiling = server.DefaultMaxOutput
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
	cs := mcpClient(t, dir, &server.Options{MaxOutput: ceiling})
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
	bigGraph(t, dir, server.DefaultMemoryNS, 300)
	const ceiling = 3000
	cs := mcpClient(t, dir, &server.Options{MaxOutput: ceiling})
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
