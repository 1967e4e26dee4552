package packet

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A packet does not depend on which token counts the store had cached:
// a store that counts at write time, and one that counts what a build
// needs (and caches it, so that its next build of the same request finds
// some counts cached), give the same bytes. The depth of the hits a
// budget takes once went by the cached counts where there were any, and
// by bytes where not, so the deferral notes (and the deep records) of a
// store's first packet differed from its second.
func TestPacketSameWhateverCountsAreCached(t *testing.T) {
	var texts []string
	for i := range 240 {
		// Digits and symbols count more tokens a byte than prose: the
		// two sizes of a record part.
		texts = append(texts, fmt.Sprintf("Turn %d about the harbour lantern: %s %s", i,
			fxProse(uint64(i), 10+i%40), strings.Repeat("0x7f3a-91c2/", 6)))
	}
	recs, links := fxTurns("chat", "t%d", texts, "Ana", "Ben")
	counted := fxOpen(t, recs, links, true)
	// 10,000: by bytes the hits that hold the budget are many more than
	// by their counts (the first depth of hits that holds it differs).
	for _, budget := range []int{1000, 10000} {
		lazy := fxOpen(t, recs, links, false)
		req := Request{NS: "chat", Query: "harbour lantern", Budget: budget, Profile: "agent"}
		_, first := fxBuild(t, lazy, req)
		_, second := fxBuild(t, lazy, req)
		_, atWrite := fxBuild(t, counted, req)
		if !bytes.Equal(first, second) {
			t.Errorf("budget %d: the store's second packet differs from its first:\n%s\n---\n%s", budget, first, second)
		}
		if !bytes.Equal(first, atWrite) {
			t.Errorf("budget %d: the packet of a store that counted at write time differs:\n%s\n---\n%s", budget, first, atWrite)
		}
	}
}
