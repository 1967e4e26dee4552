package budget

import (
	"strings"
	"sync"
	"unicode"
)

// wordTok is a Tokenizer whose counts can be checked by eye: one token a
// word. A token is a word with the white space before it; white space at the
// end of a text is a token of its own. Decode(Encode(s)) == s for any valid
// UTF-8 s.
type wordTok struct {
	mu     sync.Mutex
	ids    map[string]int
	pieces []string
}

func newWordTok() *wordTok { return &wordTok{ids: map[string]int{}} }

func (w *wordTok) Name() string { return "words" }

func (w *wordTok) Count(s string) int { return len(splitWords(s)) }

func (w *wordTok) Encode(s string) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, p := range splitWords(s) {
		id, ok := w.ids[p]
		if !ok {
			id = len(w.pieces)
			w.ids[p] = id
			w.pieces = append(w.pieces, p)
		}
		out = append(out, id)
	}
	return out
}

func (w *wordTok) Decode(toks []int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(w.pieces[t])
	}
	return b.String()
}

// splitWords cuts s into pieces of leading white space plus a word.
func splitWords(s string) []string {
	var out []string
	start, inWord := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && inWord {
			out = append(out, s[start:i])
			start, inWord = i, false
		} else if !space {
			inWord = true
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// byteTok is a Tokenizer with one token a byte, so cuts can split a
// multi-byte character: it exercises the UTF-8 back-off.
type byteTok struct{}

func (byteTok) Name() string       { return "bytes" }
func (byteTok) Count(s string) int { return len(s) }
func (byteTok) Encode(s string) []int {
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = int(s[i])
	}
	return out
}
func (byteTok) Decode(toks []int) string {
	b := make([]byte, len(toks))
	for i, t := range toks {
		b[i] = byte(t)
	}
	return string(b)
}

// wordCounter counts words but cannot cut text: not a Tokenizer.
type wordCounter struct{}

func (wordCounter) Name() string       { return "word-counter" }
func (wordCounter) Count(s string) int { return len(splitWords(s)) }

var (
	_ Tokenizer = (*wordTok)(nil)
	_ Tokenizer = byteTok{}
	_ Counter   = wordCounter{}
)

// words returns n distinct words joined by spaces: n tokens for wordTok.
func words(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prefix)
		b.WriteString(itoa(i))
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func keptIDs(r Result) []string {
	out := make([]string, len(r.Kept))
	for i, k := range r.Kept {
		out[i] = k.ID
	}
	return out
}

func deferredIDs(r Result) []string {
	out := make([]string, len(r.Deferred))
	for i, d := range r.Deferred {
		out[i] = d.ID
	}
	return out
}
