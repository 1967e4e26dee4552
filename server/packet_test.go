package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/lorekeep/lore/server"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// hostileFocusStore is a store whose scene "hub" in ns "novel" has 300
// characters appearing in it: protected canon (rank 2) of about 4,000
// tokens.
func hostileFocusStore(t *testing.T) string {
	t.Helper()
	dir := srvStore(t)
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	recs := []store.Record{{NS: "novel", ID: "hub", Kind: "scene", Order: 1, Body: "The hub scene, where everyone is."}}
	var links []store.Link
	for i := range 300 {
		id := fmt.Sprintf("c-%03d", i)
		recs = append(recs, store.Record{NS: "novel", ID: id, Kind: "character", Body: fmt.Sprintf("Character %d keeps a short note about the hub.", i)})
		links = append(links, store.Link{NS: "novel", From: id, Rel: "appears_in", To: "hub"})
	}
	if _, err := l.PutMany(context.Background(), recs, links); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hostileBudgets are the budgets the servers are tried at: below the
// frame, below the protected set, and above it.
var hostileBudgets = []int{1, 300, 2000, 8000, 20000}

// hostileRequest asks for a packet focused on the hub at budget b.
func hostileRequest(format string, b int) map[string]any {
	return map[string]any{"ns": "novel", "focus": []string{"hub"}, "profile": "novel", "budget": b, "format": format}
}

// packetAttempt is one server's answer to hostileRequest: a refusal and
// its text, or a packet. Neither means the call reported its own failure.
type packetAttempt struct {
	refused bool
	reason  string // "422 ..." or "tool error ..."
	ans     *server.PacketAnswer
}

// checkHostileFocus asks build at every budget and in every format; each
// answer must be a packet within its budget (counted whole, not empty) or a
// refusal naming why, and both must occur.
func checkHostileFocus(t *testing.T, build func(format string, b int) packetAttempt) {
	t.Helper()
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	refused, built := 0, 0
	for _, format := range []string{"md", "xml", "json"} {
		for _, b := range hostileBudgets {
			switch a := build(format, b); {
			case a.refused:
				refused++
				if !strings.Contains(a.reason, "cannot be met") {
					t.Errorf("%s at %d: %s; want the reason", format, b, a.reason)
				}
			case a.ans != nil:
				built++
				if n := counter.Count(a.ans.Packet); n > b || a.ans.Tokens > b || a.ans.Packet == "" {
					t.Errorf("%s at %d: packet counts %d (states %d), over the budget or empty", format, b, n, a.ans.Tokens)
				}
			}
		}
	}
	if refused == 0 || built == 0 {
		t.Errorf("%d refused, %d built: want both", refused, built)
	}
}

// TestHTTPPacketHostileFocus: at every budget and in every format the
// answer is a packet within its budget (counted whole) or a 422 naming
// why: never a packet over its budget, never a frame without its records.
func TestHTTPPacketHostileFocus(t *testing.T) {
	url := httpServer(t, hostileFocusStore(t), &server.Options{MaxOutput: 30000})
	checkHostileFocus(t, func(format string, b int) packetAttempt {
		status, body := do(t, "POST", url+"/v1/packet", "", hostileRequest(format, b))
		switch status {
		case 422:
			return packetAttempt{refused: true, reason: "422 " + body}
		case 200:
			var ans server.PacketAnswer
			if err := json.Unmarshal([]byte(body), &ans); err != nil {
				t.Fatal(err)
			}
			return packetAttempt{ans: &ans}
		}
		t.Errorf("%s at %d: status %d %s", format, b, status, body)
		return packetAttempt{}
	})
}

// TestMCPPacketHostileFocus: build_packet answers the same way: a packet
// within its budget, or a tool error (isError) naming why.
func TestMCPPacketHostileFocus(t *testing.T) {
	cs := mcpClient(t, hostileFocusStore(t), &server.Options{MaxOutput: 30000})
	checkHostileFocus(t, func(format string, b int) packetAttempt {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "build_packet", Arguments: hostileRequest(format, b)})
		if err != nil {
			t.Fatalf("%s at %d: protocol error: %v", format, b, err)
		}
		if res.IsError {
			return packetAttempt{refused: true, reason: fmt.Sprintf("tool error %q", res.Content[0].(*mcp.TextContent).Text)}
		}
		var ans server.PacketAnswer
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &ans); err != nil {
			t.Fatal(err)
		}
		return packetAttempt{ans: &ans}
	})
}
