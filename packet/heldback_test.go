package packet

import (
	"fmt"
	"strings"
	"testing"
)

// A record the growing fill leaves out though it fits the room left is
// "held back", not "over budget": the fill takes records in order and
// ends at the first that does not fit, so that a larger budget keeps
// them all. Every note of such a packet says which.
func TestHeldBackNotes(t *testing.T) {
	var texts []string
	for i := range 40 {
		if i%4 == 0 {
			// Replies of about 110 tokens that match the question well.
			texts = append(texts, fmt.Sprintf("Reply %d about the harbour ferry timetable: ", i)+strings.Repeat("the ferry leaves the harbour at dawn and returns at dusk with the tide, ", 7))
		} else {
			texts = append(texts, fmt.Sprintf("Turn %d: the ferry was late again today.", i))
		}
	}
	recs, links := fxTurns("chat", "t%d", texts, "Ana", "Ben")
	env := fxOpen(t, recs, links, true)
	held := 0
	for _, budget := range []int{250, 300, 350, 400, 500} {
		p, _ := fxBuild(t, env, Request{NS: "chat", Query: "when does the harbour ferry leave", Budget: budget, Profile: "agent"})
		room := budget - p.Tokens
		for _, n := range p.Deferred {
			if n.Reason == heldBackReason {
				held++
				if _, in := findEntry(p, n.ID); in {
					t.Errorf("budget %d: %s is in the packet and held back", budget, n.ID)
				}
			}
			if n.Reason == "dropped: over budget" && n.Tokens <= room {
				t.Errorf("budget %d: %s of %d tokens is \"over budget\" in a packet with %d tokens left\n%s", budget, n.ID, n.Tokens, room, describe(p))
			}
		}
	}
	if held == 0 {
		t.Fatal("no packet held a record back: the fixture no longer tests the note")
	}
}
