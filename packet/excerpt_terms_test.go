package packet

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
)

// TestScoreUnitsAsAnalysedPerQuestion: scoring from a body's kept terms
// gives, to the last bit, what analysing every unit for the question
// gives (referenceScores), and the same again from the process's cache.
// The words include terms that are not prefixes of their words
// ("happy", "happi"; "lady", "ladi"), irregular forms ("met" for "meet"),
// words that hold another's letters inside ("because", "use"), words
// that are not ASCII, and repeats.
func TestScoreUnitsAsAnalysedPerQuestion(t *testing.T) {
	words := strings.Fields("the miller met a ferryman because he was happy; " +
		"she used the key, hid keys under stones, meets Mara at the mill " +
		"synchronized servers running quickly Happiness rivers river's Ünal über lady cry")
	r := rand.New(rand.NewPCG(7, 36))
	phrase := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	for seed := range 60 {
		var lines []string
		for range 3 + r.IntN(12) {
			lines = append(lines, phrase(3+r.IntN(14))+".")
		}
		body := strings.Join(lines, "\n")
		for i := range 6 {
			q := queryTerms(phrase(1 + r.IntN(4)))
			want := referenceScores(body, q)
			if got := newBodyTerms(body).score(q); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, question %d %v: scored\n%+v\nwant\n%+v", seed, i, q, got, want)
			}
			if got := scoreUnits(body, q); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, question %d: scoreUnits (kept) %+v; want %+v", seed, i, got, want)
			}
		}
	}
}

// referenceScores scores body's units for q the plain way: each unit is
// analysed, and its terms of q, each once, are summed in text order.
func referenceScores(body string, q map[string]bool) []textUnit {
	units := splitUnits(body)
	holds := make([][]string, len(units))
	df := map[string]int{}
	for k, u := range units {
		index.EachTerm(body[u.start:u.end], func(term []byte) {
			if q[string(term)] && !slices.Contains(holds[k], string(term)) {
				holds[k] = append(holds[k], string(term))
				df[string(term)]++
			}
		})
	}
	n := float64(len(units))
	for i, h := range holds {
		for _, term := range h {
			units[i].score += math.Log(1 + n/float64(df[term]))
		}
	}
	return units
}

// TestBodyTermsPostings: a body's kept terms are the index's terms of
// its words, each with the units that hold it, each unit once, and the
// term's place among that unit's distinct terms in text order.
func TestBodyTermsPostings(t *testing.T) {
	bt := newBodyTerms("Fires burned; the fire and the FIRES went out.\nThe fire burned on.")
	if want := []string{"burn", "fire", "go"}; !reflect.DeepEqual(bt.terms, want) { // "went" is filed under "go"
		t.Errorf("terms %q; want %q", bt.terms, want)
	}
	for term, want := range map[string][]posting{
		"fire": {{0, 0}, {1, 0}},
		"burn": {{0, 1}, {1, 1}},
		"go":   {{0, 2}},
		"out":  nil, // a stop word
		"mill": nil,
	} {
		if got := bt.postingsOf(term); !reflect.DeepEqual(got, want) {
			t.Errorf("postingsOf(%q) = %v; want %v", term, got, want)
		}
	}
}

// TestBodyCacheBounded: the process keeps at most two generations of
// bodies, and a body in use stays kept (the same bodyTerms comes back)
// however many others come and go.
func TestBodyCacheBounded(t *testing.T) {
	const hot = "The ferryman kept the lantern.\nThe mill stood by the river."
	kept := termsOf(hot)
	for i := range 3*bodyGeneration + 7 {
		termsOf("A body seen once, number " + strconv.Itoa(i) + ".\nIts second line.")
		if i%100 == 0 && termsOf(hot) != kept {
			t.Fatalf("after %d other bodies, the body in use was worked out again", i)
		}
	}
	bodyCache.mu.Lock()
	n := len(bodyCache.cur) + len(bodyCache.old)
	bodyCache.mu.Unlock()
	if n > 2*bodyGeneration {
		t.Errorf("%d bodies kept; want at most %d", n, 2*bodyGeneration)
	}
}

// TestUnitCountsKeptPerEncoding: a body's kept unit counts are each
// unit's own count in the asking counter's encoding, the same when
// asked again, and kept apart per encoding (a second counter whose
// counts differ does not read the first one's).
func TestUnitCountsKeptPerEncoding(t *testing.T) {
	body := strings.Repeat("The ferryman kept the lantern by the quay, and nobody asked him why.\n", 3) +
		"Synchronised servers running quickly: 1234567 tokens, ÜBER-lady cries; über.\n"
	exact := fxCounter(t)
	est, err := budget.NewCounter(budget.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	bt := termsOf(body)
	differ := false
	for _, c := range []budget.Counter{exact, est, exact} {
		count := bt.unitCounts(body, c)
		for i, u := range bt.units {
			want := c.Count(body[u.start:u.end])
			if got := count(i); got != want {
				t.Fatalf("%s: unit %d counted %d, want %d", c.Name(), i, got, want)
			}
			if got := count(i); got != want {
				t.Fatalf("%s: unit %d counted %d the second time, want %d", c.Name(), i, got, want)
			}
			differ = differ || exact.Count(body[u.start:u.end]) != est.Count(body[u.start:u.end])
		}
	}
	if !differ {
		t.Fatal("the fixture's units count the same in both encodings: the test shows nothing")
	}
}
