package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeMCP serves the Model Context Protocol on in and out (stdin and
// stdout for `lore serve --mcp`) until the client hangs up or ctx ends.
func ServeMCP(ctx context.Context, dir string, opts *Options, in io.Reader, out io.Writer) error {
	s, err := New(dir, opts)
	if err != nil {
		return err
	}
	return s.ServeMCP(ctx, in, out)
}

// ServeMCP serves the Model Context Protocol on in and out until the
// client hangs up or ctx ends. A malformed frame gets a JSON-RPC error
// and the server goes on (see lineTransport).
func (s *Server) ServeMCP(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.MCP().Run(ctx, &lineTransport{in: in, out: out})
}

// memoryGraphURI is the reference server's resource: the whole graph.
const memoryGraphURI = "memory://knowledge-graph"

// MCP returns a new MCP server carrying Lore's tools (put_record,
// get_record, search, link, unlink, neighbors, forget, build_packet,
// list_namespaces, stats), the tools of the reference MCP memory server
// (create_entities, create_relations, add_observations, delete_entities,
// delete_observations, delete_relations, read_graph, search_nodes,
// open_nodes) and its resource memory://knowledge-graph, which clients
// may subscribe to. Connect it to any transport.
func (s *Server) MCP() *mcp.Server {
	accept := func(context.Context, *mcp.SubscribeRequest) error { return nil }
	srv := mcp.NewServer(&mcp.Implementation{Name: "lore", Title: "Lore context store", Version: "1"}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("Lore keeps records linked into a graph and answers within a token ceiling of %d tokens per result. "+
			"Results that would be larger name what was left out and the call that fetches it.", s.opts.MaxOutput),
		SubscribeHandler:   accept,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	s.addMemoryTools(srv)
	s.addLoreTools(srv)
	srv.AddResource(&mcp.Resource{Name: "knowledge-graph", Title: "Knowledge Graph", URI: memoryGraphURI,
		Description: "The full knowledge graph with all entities and relations", MIMEType: "application/json"},
		s.readGraphResource)
	return srv
}

// readGraphResource answers memory://knowledge-graph as read_graph, bounded
// the same way; a deferral note goes in the result's _meta, so that the
// text stays JSON.
func (s *Server) readGraphResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	g, err := s.loadNS(ctx)
	if err != nil {
		return nil, err
	}
	_, text, note, d, err := s.fitGraph(g.entities, g.relations, "fetch them with open_nodes {\"names\": [...]} a few at a time, or narrow down with search_nodes")
	if err != nil {
		return nil, err
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: text}}}
	if d != nil {
		res.Meta = mcp.Meta{metaDeferred: d, "lore/note": note}
	}
	return res, nil
}

// notifying wraps a write tool: after a call that succeeds, subscribers
// of memory://knowledge-graph are told it changed (as the reference
// server does after each of its writes).
func notifying[In, Out any](srv *mcp.Server, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if err == nil && (res == nil || !res.IsError) {
			_ = srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: memoryGraphURI})
		}
		return res, out, err
	}
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

// guard caps the message of a tool's error, so an error quoting a huge
// value cannot break the output ceiling.
func guard[In, Out any](h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		return res, out, capError(err)
	}
}

func textContent(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
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
