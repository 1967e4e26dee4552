package budget

import (
	"fmt"
	"unicode/utf8"
)

// marker closes a truncated text and says how many tokens were cut. It is
// counted in the item's cost.
func marker(cut int) string { return fmt.Sprintf("\n[... %d tokens cut]", cut) }

// truncate cuts it.Text so the item costs at most room tokens: a prefix of
// the text ending at a token boundary, valid UTF-8, followed by the marker.
// The item's overhead (Tokens beyond the count of its text: a heading, a
// citation) is kept whole. It keeps at least minKeep(it) tokens of text, or
// returns a reason why it cannot, in words.
func (f *fitter) truncate(it *Item, room int) (cut, string) {
	if f.tok == nil {
		name := "<nil>"
		if f.req.Counter != nil {
			name = f.req.Counter.Name()
		}
		return cut{}, fmt.Sprintf("counter %q cannot cut text at a token boundary", name)
	}
	if it.Text == "" {
		return cut{}, "it has no text to cut"
	}
	minKeep := minKeep(it)
	toks := f.tok.Encode(it.Text)
	n := len(toks)
	overhead := max(0, it.Tokens-n)
	// First guess: the room less the overhead and the marker; then walk
	// down, since tokens do not add up exactly across the join.
	k := min(room-overhead-f.tok.Count(marker(n)), n-1)
	for k >= minKeep {
		prefix := f.tok.Decode(toks[:k])
		if !utf8.ValidString(prefix) {
			// The cut split a character across tokens: back off a token.
			k--
			continue
		}
		text := prefix + marker(n-k)
		c := overhead + f.tok.Count(text)
		if c <= room {
			return cut{text: text, cost: c, cut: n - k}, ""
		}
		k -= max(1, c-room)
	}
	return cut{}, fmt.Sprintf("cutting it to %d tokens would keep less than its minimum of %d tokens of text", room, minKeep)
}

// minKeep is the fewest tokens of text a truncation of it may keep.
func minKeep(it *Item) int {
	if it.MinTokens > 0 {
		return it.MinTokens
	}
	return DefaultMinTokens
}
