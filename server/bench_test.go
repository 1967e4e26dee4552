package server_test

import (
	"context"
	"fmt"
	"github.com/lorekeep/lore/server"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The per-request open is the price of never holding the store between
// requests; these measure it (docs/SERVER.md quotes the figures).
func BenchmarkServeOpen(b *testing.B) {
	dir := srvStoreB(b)
	for _, ro := range []bool{true, false} {
		b.Run(fmt.Sprintf("readonly=%v", ro), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l, err := lore.Open(dir, &lore.Options{ReadOnly: ro})
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServeMCPCall is one whole tool call over an in-memory
// transport: open, read or write, close.
func BenchmarkServeMCPCall(b *testing.B) {
	dir := srvStoreB(b)
	s, err := server.New(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	i := 0
	for _, tc := range []struct {
		name string
		args func() map[string]any
	}{
		{"put_record", func() map[string]any {
			i++
			return map[string]any{"id": fmt.Sprint("r", i), "body": fmt.Sprint("note ", i)}
		}},
		{"get_record", func() map[string]any { return map[string]any{"id": "r1"} }},
		{"search", func() map[string]any { return map[string]any{"query": "note"} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.name, Arguments: tc.args()})
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %+v", tc.name, err, res)
				}
			}
		})
	}
}

func srvStoreB(b *testing.B) string {
	b.Helper()
	dir := b.TempDir() + "/.lore"
	if err := lore.Init(dir); err != nil {
		b.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	bigGraphB(b, l)
	return dir
}

func bigGraphB(b *testing.B, l *lore.Lore) {
	b.Helper()
	for i := range 200 {
		if _, err := l.Put(context.Background(), recordN(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func recordN(i int) store.Record {
	return store.Record{NS: server.DefaultMemoryNS, ID: fmt.Sprintf("seed-%03d", i), Kind: "memory", Body: fmt.Sprintf("seed note %d about the harbour", i)}
}

// BenchmarkServeReadGraph2000 is read_graph on a 2,000-entity graph under
// the default 20,000-token ceiling: load, rank, fit by exact counts.
func BenchmarkServeReadGraph2000(b *testing.B) {
	dir := b.TempDir() + "/.lore"
	if err := lore.Init(dir); err != nil {
		b.Fatal(err)
	}
	bigGraph(b, dir, server.DefaultMemoryNS, 2000)
	s, err := server.New(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_graph", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			b.Fatalf("read_graph: %v %+v", err, res)
		}
	}
}

// BenchmarkServeHTTPPacket is POST /v1/packet at 8k through the handler
// (no sockets), on the store in $LORE_BENCH_STORE (a lore-bench corpus:
// `lore-bench serve -keep` leaves one), so that a CPU profile shows
// where a request's time goes beside the packet itself.
func BenchmarkServeHTTPPacket(b *testing.B) {
	dir := os.Getenv("LORE_BENCH_STORE")
	if dir == "" {
		b.Skip("set LORE_BENCH_STORE to a lore-bench store (its lore folder)")
	}
	for _, idle := range []time.Duration{-1, 0} {
		b.Run(fmt.Sprintf("hold=%v", idle >= 0), func(b *testing.B) {
			s, err := server.New(dir, &server.Options{Idle: idle})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			h := s.Handler()
			words := []string{"harbour light", "river stone", "winter market", "old letter", "silver key"}
			i := 0
			for b.Loop() {
				body := fmt.Sprintf(`{"ns":"assistant","query":%q,"budget":8000}`, words[i%len(words)])
				i++
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/packet", strings.NewReader(body)))
				if rec.Code != 200 {
					b.Fatalf("%d %s", rec.Code, rec.Body.String())
				}
			}
		})
	}
}

// BenchmarkServeOpenParts splits what a request that opens the store for
// itself pays, on the store in $LORE_BENCH_STORE: lore.json, the bbolt
// open and close, the index's, the whole lore.Open and Close, and an
// agent packet at 8k right after an open against one on an open kept
// warm (the caches an open keeps: bleve's, the names by store identity).
func BenchmarkServeOpenParts(b *testing.B) {
	dir := os.Getenv("LORE_BENCH_STORE")
	if dir == "" {
		b.Skip("set LORE_BENCH_STORE to a lore-bench store (its lore folder)")
	}
	b.Run("config", func(b *testing.B) {
		for b.Loop() {
			if _, err := lore.LoadConfig(filepath.Join(dir, lore.ConfigFile)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bbolt-open-close-readonly", func(b *testing.B) {
		for b.Loop() {
			st, err := store.Open(filepath.Join(dir, lore.BoltFile), &store.Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			st.Close()
		}
	})
	b.Run("index-open-close-readonly", func(b *testing.B) {
		for b.Loop() {
			ix, err := index.Open(filepath.Join(dir, lore.IndexDir), &index.Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			ix.Close()
		}
	})
	for _, ro := range []bool{true, false} {
		b.Run(fmt.Sprintf("lore-open-close-readonly=%v", ro), func(b *testing.B) {
			for b.Loop() {
				l, err := lore.Open(dir, &lore.Options{ReadOnly: ro})
				if err != nil {
					b.Fatal(err)
				}
				l.Close()
			}
		})
	}
	words := []string{"harbour light", "river stone", "winter market", "old letter", "silver key"}
	ctx := context.Background()
	packetOf := func(b *testing.B, l *lore.Lore, i int) {
		if _, err := l.Packet(ctx, packet.Request{NS: "assistant", Query: words[i%len(words)], Budget: 8000, Profile: "agent"}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("packet-after-open", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			packetOf(b, l, i)
			i++
			b.StopTimer()
			l.Close()
			b.StartTimer()
		}
	})
	b.Run("packet-warm", func(b *testing.B) {
		l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		i := 0
		for b.Loop() {
			packetOf(b, l, i)
			i++
		}
	})
}
