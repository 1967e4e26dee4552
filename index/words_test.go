package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// wordPieces are what the differential tests build text from: every ASCII
// word-break class, white space of each kind, and non-ASCII letters,
// marks, quotes, digits, spaces and scripts segment types apart.
var wordPieces = []string{
	"a", "Z", "q", "7", "0", "_", ":", ".", "'", ",", ";", "\"", "-", "!", "#", "\x00", "\x7f",
	" ", "\t", "\n", "\r", "\r\n", "\v", "\f",
	"é", "\u0301", "\u00ad", "\u2019", "\u2018", "\u00b7", "\u00a0", "\u2028", "\u0085", "\u3000",
	"日本", "カタカナ", "ひら", "한국", "٣", "\u05d0", "\U0001F600", "\U0001F1EB\U0001F1F7", "\u200d",
}

// wantSameTokens fails unless wordTokenizer and bleve's unicode tokenizer
// give the same tokens for text.
func wantSameTokens(t *testing.T, text string) {
	t.Helper()
	want := unicode.NewUnicodeTokenizer().Tokenize([]byte(text))
	got := wordTokenizer{}.Tokenize([]byte(text))
	if a, b := tokenString(got), tokenString(want); a != b {
		t.Fatalf("tokens of %q:\n got  %s\n want %s (bleve's unicode tokenizer)", text, a, b)
	}
}

func tokenString(ts analysis.TokenStream) string {
	var b strings.Builder
	for _, tok := range ts {
		fmt.Fprintf(&b, "[%q %d-%d p%d t%d k%v] ", tok.Term, tok.Start, tok.End, tok.Position, tok.Type, tok.KeyWord)
	}
	return b.String()
}

func TestWordTokenizerMatchesUnicode(t *testing.T) {
	for _, text := range []string{
		"", " ", "a", "_", "__", "1", "_1_", "a_1", "1_a",
		"can't won't o'clock 'quoted' rock'n'roll",
		"a.b a.b. .a a..b 1.5 1.5. 1..5 a.1 1.a a1.2 1a.b",
		"1,000,000 1,a a,b 1;2 a;b 12:30 a:b a::b",
		"e-mail user@example.com http://x.org/a_b?c=d#e",
		"Mr. Smith's dog, (the one) -- 3.14! \"quote\" [x]",
		"tab\tnew\nline\r\ncr\rvt\vff\f end",
		"naïve café’s “smart” quotes — dash", "日本語のテキスト", "한국어 text ٣٤ mixed",
		"a\u0301b c\u00adt d\u200de", "x\u2019y 1\u2019000 \U0001F600 \U0001F1EB\U0001F1F7",
		"bad \xff utf-8 after", "\xc3", "ok \xe2\x80 cut",
	} {
		wantSameTokens(t, text)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(wordPieces[rng.IntN(len(wordPieces))])
		}
		wantSameTokens(t, b.String())
	}
}

// FuzzWordTokenizer: every input, read as a string of word pieces (most
// fuzzed bytes are not UTF-8, which only tests the fallback), tokenizes
// as bleve's unicode tokenizer tokenizes it; the raw bytes do too.
func FuzzWordTokenizer(f *testing.F) {
	f.Add([]byte("can't 1,000.5 a.b. _x_ caf\xc3\xa9\xe2\x80\x99s"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, data []byte) {
		var b strings.Builder
		for _, c := range data {
			b.WriteString(wordPieces[int(c)%len(wordPieces)])
		}
		wantSameTokens(t, b.String())
		wantSameTokens(t, string(data))
	})
}

// BenchmarkTokenize: wordTokenizer beside bleve's unicode tokenizer, on
// ASCII prose and on prose with curly quotes (which goes to segment a
// stretch at a time).
func BenchmarkTokenize(b *testing.B) {
	ascii := strings.Repeat("The keeper's lamp, lit at 6:45 each night, burned 1,200 hours a year; "+
		"nobody in the village (not even Mr. Hale) knew why. ", 40)
	curly := strings.ReplaceAll(ascii, "'", "\u2019")
	for _, text := range []struct{ name, s string }{{"ascii", ascii}, {"curly", curly}} {
		for _, tk := range []struct {
			name string
			t    analysis.Tokenizer
		}{{"unicode", unicode.NewUnicodeTokenizer()}, {"words", wordTokenizer{}}} {
			b.Run(text.name+"/"+tk.name, func(b *testing.B) {
				in := []byte(text.s)
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					tk.t.Tokenize(in)
				}
			})
		}
	}
}
