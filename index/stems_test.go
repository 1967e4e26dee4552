package index

import (
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
// cases, possessives and stop words.
var stemWords = []string{
	"running", "runs", "ran", "ponies", "caresses", "relational", "conditional", "hopefully",
	"generalizations", "The", "keeper's", "Lamps", "LIGHTHOUSE", "harbours", "a", "and", "sky",
	"naïve", "cafés", "Ærøskøbing", "agreed", "feed", "happy", "it’s", "1,200", "_x_", "x.y.z",
}

// TestFastAnalyzerMatchesEn: the analyzer documents and queries go
// through gives the tokens of bleve's own "en" analyzer, term, offsets,
// position and type, on generated text, from several goroutines sharing
// its stem cache (run with -race).
func TestFastAnalyzerMatchesEn(t *testing.T) {
	m := mapping.NewIndexMapping()
	want := m.AnalyzerNamed(en.AnalyzerName)
	fast := fastAnalyzer(want.(*analysis.DefaultAnalyzer))
	if fmt.Sprint(fast.TokenFilters) == fmt.Sprint(want.(*analysis.DefaultAnalyzer).TokenFilters) {
		t.Fatal("fastAnalyzer left the registry's filters in place")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range 3000 {
				var b strings.Builder
				for range rng.IntN(30) {
					if rng.IntN(3) == 0 {
						b.WriteString(wordPieces[rng.IntN(len(wordPieces))])
					} else {
						b.WriteString(stemWords[rng.IntN(len(stemWords))])
						b.WriteByte(" ,.\n"[rng.IntN(4)])
					}
				}
				text := []byte(b.String())
				if got, want := tokenString(fast.Analyze(text)), tokenString(want.Analyze(text)); got != want {
					t.Errorf("tokens of %q:\n got  %s\n want %s (bleve's en analyzer)", text, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestStemCacheFull: past its size the cache stems without remembering,
// and stems stay right.
func TestStemCacheFull(t *testing.T) {
	m := mapping.NewIndexMapping()
	want := m.AnalyzerNamed(en.AnalyzerName)
	fast := fastAnalyzer(want.(*analysis.DefaultAnalyzer))
	var b strings.Builder
	for i := range stemCacheWords + 5000 {
		fmt.Fprintf(&b, "w%xings ", i)
	}
	text := []byte(b.String())
	if got, want := tokenString(fast.Analyze(text)), tokenString(want.Analyze(text)); got != want {
		t.Fatal("tokens of many distinct words differ from bleve's en analyzer")
	}
	var c *stemCache
	for _, f := range fast.TokenFilters {
		if sc, ok := f.(*stemCache); ok {
			c = sc
		}
	}
	n := 0
	for i := range c.shards {
		n += len(c.shards[i].stems)
	}
	if n > stemCacheWords || n < stemCacheWords/2 {
		t.Fatalf("stem cache holds %d words after %d distinct ones; want at most %d (and most of them)", n, stemCacheWords+5000, stemCacheWords)
	}
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
