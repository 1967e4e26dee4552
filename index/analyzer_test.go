package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
)

// stemWords are words the porter stemmer changes in different ways, with
// cases, possessives and stop words: the filters after the tokenizer.
var stemWords = []string{
	"running", "runs", "ran", "ponies", "caresses", "relational", "conditional", "hopefully",
	"generalizations", "The", "keeper's", "Lamps", "LIGHTHOUSE", "harbours", "a", "and", "sky",
	"naïve", "cafés", "Ærøskøbing", "agreed", "feed", "happy", "it’s", "1,200", "_x_", "x.y.z",
	// lower case lengthens the first (36 bytes, a term of 54) and shortens
	// the others (a Kelvin sign, 3 bytes, is "k"; "İ", 2 bytes, is "i")
	"ȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺȺ", "\u212AELVIN", "İstanbul",
}

// analyzerText is up to 30 random pieces: a word-break piece one time in
// three, else one of stemWords and a mark after it.
func analyzerText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(30) {
		if rng.IntN(3) == 0 {
			b.WriteString(wordPieces[rng.IntN(len(wordPieces))])
		} else {
			b.WriteString(stemWords[rng.IntN(len(stemWords))])
			b.WriteByte(" ,.\n"[rng.IntN(4)])
		}
	}
	return b.String()
}

// TestFastAnalyzerMatchesEn: the analyzer documents and queries go
// through gives the tokens of bleve's own "en" analyzer, term, offsets,
// position and type, on generated text, from several goroutines (run
// with -race).
func TestFastAnalyzerMatchesEn(t *testing.T) {
	m := mapping.NewIndexMapping()
	want := m.AnalyzerNamed(en.AnalyzerName)
	fast, ok := fastAnalyzer(want.(*analysis.DefaultAnalyzer)).(*cachedAnalyzer)
	if !ok {
		t.Fatalf("fastAnalyzer gives %T, want *cachedAnalyzer", fast)
	}
	if _, ok := fast.tokenizer.(wordTokenizer); !ok {
		t.Fatalf("fastAnalyzer's tokenizer is %T, want wordTokenizer", fast.tokenizer)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range 3000 {
				text := []byte(analyzerText(rng))
				// bleve's lower case filter writes into the text it is given
				if got, want := tokenString(fast.Analyze(text)), tokenString(want.Analyze(bytes.Clone(text))); got != want {
					t.Errorf("tokens of %q:\n got  %s\n want %s (bleve's en analyzer)", text, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkAnalyze: the analyzer Lore's documents and queries go through
// beside bleve's "en" analyzer, on ASCII prose.
func BenchmarkAnalyze(b *testing.B) {
	text := []byte(strings.Repeat("The keeper's lamps, lit at 6:45 each night, burned 1,200 hours a year; "+
		"nobody in the village (not even Mr. Hale) knew why the harbours were darkening. ", 40))
	en := mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)
	for _, a := range []struct {
		name string
		a    analysis.Analyzer
	}{{"en", en}, {"fast", fastAnalyzer(en.(*analysis.DefaultAnalyzer))}} {
		b.Run(a.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				a.a.Analyze(text)
			}
		})
	}
}

// TestCachedAnalyzerEvicting: with two slots every word keeps replacing
// another in the term cache, and the tokens are still the "en"
// analyzer's; filed under a namespace they are its terms with the
// namespace before them, and no two streams share a term's bytes.
func TestCachedAnalyzerEvicting(t *testing.T) {
	want := mapping.NewIndexMapping().AnalyzerNamed(en.AnalyzerName)
	fast := fastAnalyzer(want.(*analysis.DefaultAnalyzer)).(*cachedAnalyzer)
	fast.terms.withSlots(2)
	rng := rand.New(rand.NewPCG(3, 9))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(stemWords[rng.IntN(len(stemWords))])
			b.WriteString(wordPieces[rng.IntN(len(wordPieces))])
			b.WriteByte(' ')
		}
		text := []byte(b.String())
		wantTS := want.Analyze(bytes.Clone(text)) // bleve lower-cases in place
		if got, w := tokenString(fast.Analyze(text)), tokenString(wantTS); got != w {
			t.Fatalf("tokens of %q:\n got  %s\n want %s (bleve's en analyzer)", text, got, w)
		}
		fileUnder("ns1", wantTS)
		filed := nsAnalyzer{ns: "ns1", an: fast}.Analyze(text)
		if got, w := tokenString(filed), tokenString(wantTS); got != w {
			t.Fatalf("tokens of %q filed under ns1:\n got  %s\n want %s", text, got, w)
		}
		for _, tok := range filed {
			clear(tok.Term) // a later stream must not see this
		}
	}
}

// eachTermString lists the terms EachTerm gives for text, each copied
// (a term is valid only during its call).
func eachTermString(text string) string {
	var b strings.Builder
	EachTerm(text, func(term []byte) { fmt.Fprintf(&b, "%q ", term) })
	return b.String()
}

// termsString lists the terms Terms gives for text.
func termsString(text string) string {
	var b strings.Builder
	for _, t := range Terms(text) {
		fmt.Fprintf(&b, "%q ", t.Term)
	}
	return b.String()
}

// TestEachTermMatchesTerms: EachTerm gives the terms Terms gives, in the
// same order, on the stemmer's words, every word-break piece, and text
// that is not UTF-8 (the fallback).
func TestEachTermMatchesTerms(t *testing.T) {
	texts := []string{"", " ", "The keeper's lamps", "caf\xc3\xa9 \xff lamps", strings.Join(stemWords, " ")}
	rng := rand.New(rand.NewPCG(3, 9))
	for range 2000 {
		texts = append(texts, analyzerText(rng))
	}
	for _, text := range texts {
		if got, want := eachTermString(text), termsString(text); got != want {
			t.Fatalf("terms of %q:\n EachTerm %s\n Terms    %s", text, got, want)
		}
	}
}

// FuzzEachTerm: on any input, EachTerm gives the terms Terms gives.
func FuzzEachTerm(f *testing.F) {
	f.Add("The keeper's lamps, lit at 6:45, burned 1,200 hours")
	f.Add("caf\xc3\xa9\xe2\x80\x99s \xff naïve")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := eachTermString(text), termsString(text); got != want {
			t.Fatalf("terms of %q:\n EachTerm %s\n Terms    %s", text, got, want)
		}
	})
}
