package budget

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The library is the reference of the differential tests: its
// EncodeOrdinary runs the encodings' real regular expressions (regexp2)
// and the reference merge, and is fast on short inputs.
var (
	libOnce sync.Once
	libEnc  map[string]*tiktoken.Tiktoken
	libErr  error
)

func library(t testing.TB, name string) *tiktoken.Tiktoken {
	t.Helper()
	libOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		libEnc = map[string]*tiktoken.Tiktoken{}
		for _, n := range []string{"cl100k_base", "o200k_base"} {
			e, err := tiktoken.GetEncoding(n)
			if err != nil {
				libErr = err
				return
			}
			libEnc[n] = e
		}
	})
	if libErr != nil {
		t.Fatal(libErr)
	}
	return libEnc[name]
}

// knownLibraryDifference reports inputs where the library's regexp2 and
// OpenAI's engine disagree, so the library is no reference: regexp2 does
// not fold U+017F (long s) to 's' in (?i:'s), the reference does.
func knownLibraryDifference(s string) bool {
	return longSFolds && strings.Contains(s, "'ſ")
}

// diffLibrary compares Encode and Count with the library's EncodeOrdinary
// on valid UTF-8 input.
func diffLibrary(t *testing.T, s string) {
	t.Helper()
	if knownLibraryDifference(s) {
		return
	}
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(t, enc)
		want := library(t, enc).EncodeOrdinary(s)
		got := c.Encode(s)
		if !equalInts(got, want) {
			t.Errorf("%s: Encode(%q)\n got %v\nwant %v (library)", enc, s, got, want)
			continue
		}
		if n := c.Count(s); n != len(want) {
			t.Errorf("%s: Count(%q) = %d, want %d (library)", enc, s, n, len(want))
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// alphabet mixes the characters the split patterns treat differently:
// each class of letter, marks, digits of several scripts, every kind of
// whitespace, apostrophes and contraction letters, punctuation, '/',
// symbols and emoji, CJK, and text that looks like special tokens.
var alphabet = []string{
	"a", "b", "e", "s", "t", "d", "m", "l", "r", "v", "S", "T", "D", "L", "R", "E", "V", "M", "Z",
	"é", "É", "ǅ", "ß", "ſ", "ʰ", "ª", "中", "文", "あ", "ア", "한", "ب", "ש", "д", "Д", "α", "Ω", "क", "ि", "ก", "ั",
	"\u0301", "\u0308", "\u20dd", "\u0903",
	"0", "1", "7", "٣", "५", "Ⅻ", "½", "²",
	" ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n", "\u00a0", "\u3000", "\u2028", "\u0085", "\u000b", "\u000c", "\u200b", "\ufeff",
	"'", "'", "'s", "'S", "'re", "'LL", "'ve", "'d", "'m", "'t", "'x", "’",
	".", ",", "!", "?", "-", "_", "=", "==", "/", "//", "\\", "(", ")", "{", "}", "[", "]", "<", ">", "|", "#", "$", "%", "&", "*", "+", ":", ";", "\"", "`", "~", "^", "@",
	"😀", "👍🏽", "€", "©", "\x00", "\x01", "\x7f",
	"<|endoftext|>", "<|fim_prefix|>", "the", " the", "The", " and", "ing", "tion", "hello", "Hello", "HELLO", "don't", "I'm", "WE'RE", "123456", "3.14",
}

func randomText(r *rand.Rand, maxParts int) string {
	var b strings.Builder
	for n := r.IntN(maxParts) + 1; n > 0; n-- {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestDifferentialRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for range n {
		diffLibrary(t, randomText(r, 24))
		if t.Failed() {
			return
		}
	}
	// Long pieces, merged by the heap (the library is quadratic: keep
	// them short enough).
	for range n / 50 {
		diffLibrary(t, longPiece(r, 25+r.IntN(1500)))
		if t.Failed() {
			return
		}
	}
}

func FuzzEncodeMatchesLibrary(f *testing.F) {
	for _, s := range []string{"", "hello world", "  \n\n  x", "don't STOP'S", "中文'S", "a\u0301b", "x = y // z\r\n/", "😀😀 !!", "<|endoftext|>", "\xff\xfe", "hi \xf0\x9f\x98 ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			s = s[:512] // the library is quadratic in piece length
		}
		diffLibrary(t, sanitize(s))
	})
}
