package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/lorekeep/lore/store"
)

// TestSearchPairsSideBySide: of two records with the same words, a
// question ranks first the one that holds two of its words as the
// question has them, side by side or with one stop word between; a
// search box (not a question) ranks them alike, the id first.
func TestSearchPairsSideBySide(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{
		rec("c", "a-apart", "turn", "", "Confirmed twice: the attendees, and the caterer."),
		rec("c", "b-beside", "turn", "", "The attendees confirmed twice, and the caterer."),
		rec("c", "c-apart", "turn", "", "The event we will attend, or not."),
		rec("c", "d-gap", "turn", "", "We will attend the event, or not."),
	}, nil, 1)
	cases := []struct {
		text string
		want []string
	}{
		{"How many attendees confirmed?", []string{"b-beside", "a-apart"}},
		{"Did I attend my event?", []string{"d-gap", "c-apart"}}, // "my" and "the" are stop words: one place between
	}
	for _, tc := range cases {
		got := []string{}
		for _, h := range search(t, ix, Query{NS: "c", Text: tc.text, AnyTerm: true}) {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("question %q = %v, want %v", tc.text, got, tc.want)
		}
		plain := search(t, ix, Query{NS: "c", Text: tc.text})
		if len(plain) != 2 || plain[0].Score != plain[1].Score || plain[0].ID != tc.want[1] {
			t.Errorf("search %q = %+v: the words alone must tie, the id first", tc.text, plain)
		}
	}
}

// TestWordPairs: pairs are neighbouring terms of the question, at most
// one stop word apart, each once, in order, at most maxWordPairs.
func TestWordPairs(t *testing.T) {
	ix, _ := openTemp(t)
	if !ix.b.byNS {
		t.Fatal("a new index files terms under their namespace")
	}
	pairs := func(text string) []string {
		var out []string
		for _, p := range wordPairs(ix.b.terms("n", text)) {
			_, a, _ := strings.Cut(p.a, string(rune(nsTermSep)))
			_, b, _ := strings.Cut(p.b, string(rune(nsTermSep)))
			out = append(out, fmt.Sprintf("%s+%s/%d", a, b, p.gap))
		}
		return out
	}
	cases := []struct {
		text string
		want []string
	}{
		{"Roth IRA", []string{"roth+ira/1"}},
		{"attend my event", []string{"attend+event/2"}},
		{"the lamp of the old harbour", []string{"old+harbour/1"}}, // two stop words between lamp and old: no pair
		{"lamp lamp lamp", nil},
		{"red lamp, red lamp", []string{"red+lamp/1", "lamp+red/1"}},
		{"one", nil},
	}
	for _, tc := range cases {
		if got := pairs(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("wordPairs(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau ", 2)
	if n := len(pairs(long)); n != maxWordPairs {
		t.Errorf("a long question has %d pairs, want the bound %d", n, maxWordPairs)
	}
}

// TestPairsScoreAsOneQuery: a question's hits, where the window holds
// every match, come in the order, and with scores in the proportion, of
// one bleve query whose should clauses are the pairs' phrases (the
// words' query norm is the only difference); and the pairs change the
// order of the words alone in some question, or the test would compare
// too little.
func TestPairsScoreAsOneQuery(t *testing.T) {
	ix, _ := openTemp(t)
	recs := benchCorpus("n", 0, 250, 30)
	mustApply(t, ix, recs, nil, 1)
	reordered := 0
	for i := range 40 {
		words := strings.Fields(recs[i*6].Body)
		text := strings.Join(words[i%10:i%10+4+i%5], " ")
		q := Query{NS: "n", Text: text, AnyTerm: true, Limit: 300}
		got := search(t, ix, q)
		ref := oneQuery(t, ix, q)
		if len(got) != len(ref) || len(got) > pairWindow {
			t.Fatalf("%q: %d hits, one query %d (window %d)", text, len(got), len(ref), pairWindow)
		}
		ratio := got[0].Score / ref[0].Score
		for k := range got {
			if r := got[k].Score / ref[k].Score; math.Abs(r-ratio) > 1e-5*ratio {
				t.Fatalf("%q hit %d: %s %.9g against one query's %s %.9g: ratio %.9g, not %.9g", text, k, got[k].ID, got[k].Score, ref[k].ID, ref[k].Score, r, ratio)
			}
			if got[k].ID != ref[k].ID && math.Abs(got[k].Score-ref[k].Score*ratio) > 1e-5*got[k].Score {
				t.Fatalf("%q hit %d: %s, one query %s", text, k, got[k].ID, ref[k].ID)
			}
		}
		q.AnyTerm = false
		if words := search(t, ix, q); !slices.Equal(ids(words), ids(got)) {
			reordered++
		}
	}
	if reordered == 0 {
		t.Fatal("the pairs changed no question's order: the test compares too little")
	}
	t.Logf("%d of 40 questions reordered by their pairs", reordered)
}

// oneQuery runs q as one bleve query, the pairs as should clauses of the
// words query, and returns its hits by score, then id.
func oneQuery(t *testing.T, ix *Index, q Query) []Hit {
	t.Helper()
	bq, _, err := buildQuery(q, ix.b)
	if err != nil {
		t.Fatal(err)
	}
	words := ix.b.terms(q.NS, q.Text)
	var shoulds []query.Query
	for _, p := range wordPairs(words) {
		var pair analysis.TokenStream
		for k, tok := range words {
			if string(tok.Term) == p.a && k+1 < len(words) && string(words[k+1].Term) == p.b {
				pair = analysis.TokenStream{tok, words[k+1]}
				break
			}
		}
		shoulds = append(shoulds, acrossFields(phraseOf(pair)))
	}
	one := bleve.NewBooleanQuery()
	one.AddMust(bq)
	if len(shoulds) > 0 {
		one.AddShould(bleve.NewDisjunctionQuery(shoulds...))
	}
	ctx, err := withScoringStats(context.Background(), ix, q.NS)
	if err != nil {
		t.Fatal(err)
	}
	req := bleve.NewSearchRequestOptions(one, q.Limit, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var out []Hit
	for _, h := range res.Hits {
		_, id, _ := parseDocID(h.ID)
		out = append(out, Hit{NS: q.NS, ID: id, Score: h.Score})
	}
	return out
}

// TestPairsKeepPrefixes: a question's best n hits are the first n of its
// best m > n, inside the window and past it, as a packet's deeper
// searches need.
func TestPairsKeepPrefixes(t *testing.T) {
	ix, _ := openTemp(t)
	recs := benchCorpus("n", 0, 1500, 30)
	mustApply(t, ix, recs, nil, 1)
	for i := range 8 {
		words := strings.Fields(recs[i*11].Body)
		text := strings.Join(words[:6], " ")
		var prev []string
		for _, limit := range []int{5, 60, pairWindow - 1, pairWindow, pairWindow + 1, 700, 1500} {
			got := ids(search(t, ix, Query{NS: "n", Text: text, AnyTerm: true, Limit: limit}))
			if len(prev) > len(got) || !slices.Equal(got[:len(prev)], prev) {
				t.Fatalf("%q: %d hits are not the first of %d", text, len(prev), limit)
			}
			prev = got
		}
		if len(prev) <= pairWindow {
			t.Fatalf("%q: %d hits, none past the window: the test compares too little", text, len(prev))
		}
	}
}

// TestPairsPastATieLongerThanTheMargin: when a tie runs past topN's
// margin, bleve's own search (the id sort) finds the hits; the pairs
// still re-rank them.
func TestPairsPastATieLongerThanTheMargin(t *testing.T) {
	ix, _ := openTemp(t)
	recs := []store.Record{rec("n", "a-apart", "fact", "", "lantern, then zebra")}
	for i := range pairWindow + tieMargin(pairWindow) + 10 {
		recs = append(recs, rec("n", fmt.Sprintf("twin-%03d", i), "fact", "", "zebra lantern"))
	}
	mustApply(t, ix, recs, nil, 1)
	// The premise: the words alone tie past the margin of the window.
	deep := search(t, ix, Query{NS: "n", Text: "zebra lantern", Limit: pairWindow + tieMargin(pairWindow) + 1})
	if n := pairWindow + tieMargin(pairWindow) + 1; len(deep) != n || deep[0].Score != deep[n-1].Score {
		t.Fatalf("the words alone give %d hits, first %v last %v: no tie past the margin", len(deep), deep[0].Score, deep[len(deep)-1].Score)
	}
	got := search(t, ix, Query{NS: "n", Text: "zebra lantern", AnyTerm: true, Limit: 5})
	if len(got) != 5 || got[0].ID != "twin-000" {
		t.Fatalf("hits %v: the twins hold the pair and come first, by id", ids(got))
	}
	if plain := search(t, ix, Query{NS: "n", Text: "zebra lantern", Limit: 5}); plain[0].ID != "a-apart" {
		t.Fatalf("the words alone: %v, want a-apart first (a tie, by id)", ids(plain))
	}
}
