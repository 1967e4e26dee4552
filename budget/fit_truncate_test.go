package budget

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// truncTexts mix scripts, so that cuts can fall inside multi-byte
// characters for the byte tokenizer and the real encodings.
var truncTexts = []string{
	"The quick brown fox jumps over the lazy dog. " + strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 8),
	"Mara stood at the gate of Velmoor; the ash fell like snow. «Où est la clé ?» demanda-t-elle. Ärger über Öl, naïve café.",
	"日本語のテキストは、トークンの境界が文字の途中に来ることがあります。東京、大阪、京都。",
	"emoji 🙂🙃🧪🧬👩‍👩‍👧‍👦 and flags 🇫🇷🇯🇵 between words 🔥 fire",
	"func Fit(req Request) (Result, error) {\n\tif req.Limit < 0 {\n\t\treturn Result{}, errors.New(\"negative\")\n\t}\n}\n",
}

// truncateRoundTrip fits one truncatable item into every room from its
// minimum up and checks each cut: a prefix at a token boundary, valid
// UTF-8, the marker, at most the room, and at least the minimum kept.
func truncateRoundTrip(t *testing.T, tok Tokenizer, text string, step int) {
	t.Helper()
	n := len(tok.Encode(text))
	it := Item{ID: "t", Tokens: n + 3, Action: Truncate, Text: text, MinTokens: 2}
	cuts := 0
	for room := 1; room < it.Tokens; room += step {
		r, err := Fit(Request{Items: []Item{it}, Limit: room, Counter: tok})
		if err != nil {
			t.Fatalf("room %d: %v", room, err)
		}
		if r.Used > room {
			t.Fatalf("room %d: used %d", room, r.Used)
		}
		if len(r.Kept) == 0 {
			if len(r.Deferred) != 1 || r.Deferred[0].Rule != RuleMinimum {
				t.Fatalf("room %d: deferred %+v, want the minimum rule", room, r.Deferred)
			}
			continue
		}
		k := r.Kept[0]
		checkTruncation(t, tok, it, k)
		if !utf8.ValidString(k.Text) {
			t.Fatalf("room %d: invalid UTF-8 %q", room, k.Text)
		}
		cuts++
	}
	if cuts == 0 && n > 20 {
		t.Errorf("%s: no room gave a cut of %q", tok.Name(), text)
	}
}

func TestTruncateRoundTripWords(t *testing.T) {
	for _, text := range truncTexts {
		truncateRoundTrip(t, newWordTok(), text, 1)
	}
}

// One token a byte: most cuts fall inside a character and must back off.
func TestTruncateRoundTripBytes(t *testing.T) {
	for _, text := range truncTexts {
		truncateRoundTrip(t, byteTok{}, text, 1)
	}
}

// The real encodings, where one character can span several tokens.
func TestTruncateRoundTripReal(t *testing.T) {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		c, err := NewCounter(name)
		if err != nil {
			t.Fatal(err)
		}
		tok, ok := c.(Tokenizer)
		if !ok {
			t.Fatalf("%s: counter is not a Tokenizer", name)
		}
		for _, text := range truncTexts {
			truncateRoundTrip(t, tok, text, 1)
		}
	}
}

// The marker is counted: a cut never costs more than the room, and the
// counts of the kept text and marker match the Tokenizer's own count.
func TestTruncateMarkerCounted(t *testing.T) {
	c, err := NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("word ", 200)
	n := c.Count(text)
	items := []Item{
		{ID: "head", Rank: 1, Tokens: 50},
		{ID: "body", Rank: 2, Tokens: n, Action: Truncate, Text: text},
	}
	r, err := Fit(Request{Items: items, Limit: 150, Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	k := r.Kept[1]
	if !k.Truncated || k.Tokens != c.Count(k.Text) || k.Tokens > 100 || r.Used > 150 {
		t.Errorf("body %d tokens (count %d), used %d; want a cut counted exactly, at most 100", k.Tokens, c.Count(k.Text), r.Used)
	}
	if !strings.HasSuffix(k.Text, marker(k.Cut)) || k.Cut < n-100 {
		t.Errorf("text ends %q, cut %d of %d", k.Text[max(0, len(k.Text)-30):], k.Cut, n)
	}
}
