package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The output schemas of Lore's own tools: objects whose main properties
// are named, open to more (answers that hit the ceiling add "deferred").
var loreOutputSchemas = map[string]string{
	"put_record":      `{"type":"object","properties":{"ns":{"type":"string"},"id":{"type":"string"},"status":{"type":"string"},"version":{"type":"integer"},"seq":{"type":"integer"}},"required":["ns","id","status"]}`,
	"get_record":      `{"type":"object","properties":{"ns":{"type":"string"},"id":{"type":"string"},"kind":{"type":"string"},"title":{"type":"string"},"body":{"type":"string"},"version":{"type":"integer"},"next":{"type":"object"}},"required":["ns","id"]}`,
	"search":          `{"type":"object","properties":{"ns":{"type":"string"},"hits":{"type":"array","items":{"type":"object"}},"deferred":{"type":"object"}},"required":["hits"]}`,
	"link":            `{"type":"object","properties":{"ns":{"type":"string"},"from":{"type":"string"},"rel":{"type":"string"},"to":{"type":"string"},"changed":{"type":"boolean"}},"required":["from","rel","to","changed"]}`,
	"unlink":          `{"type":"object","properties":{"ns":{"type":"string"},"from":{"type":"string"},"rel":{"type":"string"},"to":{"type":"string"},"removed":{"type":"boolean"}},"required":["from","rel","to","removed"]}`,
	"neighbors":       `{"type":"object","properties":{"ns":{"type":"string"},"id":{"type":"string"},"neighbors":{"type":"array","items":{"type":"object"}},"deferred":{"type":"object"}},"required":["neighbors"]}`,
	"forget":          `{"type":"object","properties":{"ns":{"type":"string"},"id":{"type":"string"},"forgotten":{"type":"boolean"},"links_removed":{"type":"boolean"}},"required":["id","forgotten"]}`,
	"build_packet":    `{"type":"object","properties":{"ns":{"type":"string"},"budget":{"type":"integer"},"tokens":{"type":"integer"},"hash":{"type":"string"},"packet":{"type":"string"},"report":{"type":"string"},"records":{"type":"array","items":{"type":"object"}},"deferred":{"type":"array","items":{"type":"object"}},"warnings":{"type":"array","items":{"type":"string"}}},"required":["packet","report","budget","tokens"]}`,
	"why":             `{"type":"object","properties":{"ns":{"type":"string"},"id":{"type":"string"},"status":{"type":"string"},"budget":{"type":"integer"},"rank":{"type":"integer"},"form":{"type":"string"},"rule":{"type":"string"},"reason":{"type":"string"},"comes_in_at":{"type":"integer"},"whole_at":{"type":"integer"},"command":{"type":"string"},"request":{"type":"object"}},"required":["ns","id","status","budget"]}`,
	"list_namespaces": `{"type":"object","properties":{"namespaces":{"type":"array","items":{"type":"string"}},"deferred":{"type":"object"}},"required":["namespaces"]}`,
	"stats":           `{"type":"object","properties":{"ns":{"type":"string"}}}`,
}

// loreTool is a tool of Lore's own, with its output schema.
func loreTool(name, desc string, ann *mcp.ToolAnnotations) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, Annotations: ann, OutputSchema: json.RawMessage(loreOutputSchemas[name])}
}

// jsonTool adapts an operation answering JSON text to a tool handler: the
// text is the text block and, as it is, the structured content.
func jsonTool[In any](op func(context.Context, In) (string, error)) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		text, err := op(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		return textContent(text), json.RawMessage(text), nil
	}
}

func (s *Server) addLoreTools(srv *mcp.Server) {
	ceiling := fmt.Sprintf(" Answers stay under %d tokens; what does not fit is named in \"deferred\".", s.opts.MaxOutput)
	mcp.AddTool(srv, loreTool("put_record", "Store a record (a memory, fact, note...) under an id. An existing record with that id is replaced: its previous version is kept in history, and identical content changes nothing (status \"unchanged\").",
		destructiveTool("Store a record")), notifying(srv, guard(jsonTool(s.opPut))))
	mcp.AddTool(srv, loreTool("get_record", "Read one record with its body. A body longer than one answer is paged: the answer then carries \"next\" with the offset to ask for.",
		readOnlyTool("Read a record")), guard(jsonTool(s.opGet)))
	mcp.AddTool(srv, loreTool("search", "Full-text search (BM25) of one namespace: ids, kinds, titles and scores, best first."+ceiling,
		readOnlyTool("Search records")), guard(jsonTool(s.opSearch)))
	mcp.AddTool(srv, loreTool("link", "Link two records with a named relation (from -rel-> to). The target may not exist yet. Linking again only updates the weight.",
		additiveTool("Link two records")), notifying(srv, guard(jsonTool(s.opLink))))
	mcp.AddTool(srv, loreTool("unlink", "Remove the link from -rel-> to.",
		destructiveTool("Remove a link")), notifying(srv, guard(jsonTool(s.opUnlink))))
	mcp.AddTool(srv, loreTool("neighbors", "The records linked to a record, within 1 or 2 hops, both directions, with the link that reached each."+ceiling,
		readOnlyTool("Walk the graph")), guard(jsonTool(s.opNeighbors)))
	mcp.AddTool(srv, loreTool("forget", "Delete a record and (unless keep_links) its links.",
		destructiveTool("Forget a record")), notifying(srv, guard(jsonTool(s.opForget))))
	mcp.AddTool(srv, loreTool("build_packet", "Build a Context Packet: the records that matter for a query or focus, ranked, fitted into a token budget, with a deferral note (and a get_record call) for everything left out. Returns the packet and its report.",
		readOnlyTool("Build a Context Packet")), guard(s.buildPacketTool))
	mcp.AddTool(srv, loreTool("why", "Say where one record stands in the packet that build_packet's arguments make: in (form, rank, the rule that brought it), or what kept it out (the budget, a condition, a kind filter, story time, the namespace wall, or nothing reaching it) and the least budget or change to the request that brings it in, checked by building it.",
		readOnlyTool("Explain a record's place in a packet")), guard(jsonTool(s.opWhy)))
	mcp.AddTool(srv, loreTool("list_namespaces", "The namespaces that hold records (only the server's own when it was started with --ns).",
		readOnlyTool("List namespaces")), guard(jsonTool(func(ctx context.Context, _ struct{}) (string, error) { return s.opNamespaces(ctx) })))
	mcp.AddTool(srv, loreTool("stats", "Counts of records, links and versions of a namespace, by kind.",
		readOnlyTool("Store statistics")), guard(jsonTool(s.opStats)))
}

// buildPacketTool answers with two text blocks, the packet then its
// report, and the whole answer as structured content.
func (s *Server) buildPacketTool(ctx context.Context, _ *mcp.CallToolRequest, in packetArgs) (*mcp.CallToolResult, any, error) {
	ans, err := s.opPacket(ctx, in, func(a *PacketAnswer) (int, error) { return s.count(a.Packet) + s.count(a.Report), nil })
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ans.Packet}, &mcp.TextContent{Text: ans.Report}}}, ans, nil
}
