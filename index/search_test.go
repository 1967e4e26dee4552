package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lorekeep/lore/store"
)

func TestSearchNamespaceWall(t *testing.T) {
	ix, _ := openTemp(t)
	// The same character, in the same words, in five namespaces that share
	// prefixes with "novel".
	var put []store.Record
	for _, ns := range []string{"novel", "novel/draft", "novel2", "novel-b", "other"} {
		put = append(put, rec(ns, "mara", "character", "Mara Voss", "Mara keeps the lighthouse on the northern cape.", "pov"))
	}
	put = append(put, rec("novel", "cape", "place", "The northern cape", "Wind, rocks and the lighthouse."))
	mustApply(t, ix, put, nil, 1)

	tests := []struct {
		q    Query
		want []string // sorted ns:id
	}{
		{Query{NS: "novel", Text: "Mara lighthouse"}, []string{"novel:cape", "novel:mara"}},
		{Query{NS: "novel", Text: `"northern cape"`}, []string{"novel:cape", "novel:mara"}},
		{Query{NS: "novel/draft", Text: "Mara"}, []string{"novel/draft:mara"}},
		{Query{NS: "novel2", Text: "lighthouse"}, []string{"novel2:mara"}},
		{Query{NS: "novel", Kinds: []string{"character"}}, []string{"novel:mara"}},
		{Query{NS: "novel", Tags: []string{"pov"}}, []string{"novel:mara"}},
		{Query{NS: "novel"}, []string{"novel:cape", "novel:mara"}},
		{Query{NS: "nove", Text: "Mara"}, []string{}},
		{Query{NS: "novel/dr", Text: "Mara"}, []string{}},
		{Query{NS: "missing", Text: "Mara"}, []string{}},
		// A query that names the other namespace finds nothing in it.
		{Query{NS: "other", Text: "novel draft cape rocks wind"}, []string{"other:mara"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%v/%v", tt.q.NS, tt.q.Text, tt.q.Kinds, tt.q.Tags), func(t *testing.T) {
			hits := search(t, ix, tt.q)
			for _, h := range hits {
				if h.NS != tt.q.NS {
					t.Errorf("Search(%+v) returned %s:%s from another namespace", tt.q, h.NS, h.ID)
				}
			}
			if got := sortedIDs(hits); !slices.Equal(got, tt.want) {
				t.Errorf("Search(%+v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

func TestSearchFilters(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{
		rec("n", "c1", "character", "Ada", "fire and ash", "pov", "ch-1"),
		rec("n", "c2", "character", "Bo", "ash and rain", "ch-2"),
		rec("n", "s1", "scene", "The fire", "fire at the mill", "pov", "ch-1"),
		rec("n", "f1", "fact", "Mill rules", "no fire by that old mill", "ch-2"),
		rec("n", "f2", "fact-old", "Old", "fire", "POV"),
	}, nil, 1)

	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"kind", Query{NS: "n", Text: "fire", Kinds: []string{"character"}}, []string{"n:c1"}},
		{"kinds are ORed", Query{NS: "n", Text: "fire", Kinds: []string{"scene", "fact"}}, []string{"n:f1", "n:s1"}},
		{"kind is exact, not a prefix", Query{NS: "n", Kinds: []string{"fact"}}, []string{"n:f1"}},
		{"tag", Query{NS: "n", Text: "fire", Tags: []string{"pov"}}, []string{"n:c1", "n:s1"}},
		{"tag is case-sensitive", Query{NS: "n", Tags: []string{"POV"}}, []string{"n:f2"}},
		{"tags are ANDed", Query{NS: "n", Tags: []string{"pov", "ch-1"}}, []string{"n:c1", "n:s1"}},
		{"tags ANDed, none has both", Query{NS: "n", Tags: []string{"pov", "ch-2"}}, []string{}},
		{"kind and tag", Query{NS: "n", Kinds: []string{"character"}, Tags: []string{"ch-2"}}, []string{"n:c2"}},
		{"filter with no text lists", Query{NS: "n", Kinds: []string{"character", "scene"}}, []string{"n:c1", "n:c2", "n:s1"}},
		{"unknown kind", Query{NS: "n", Kinds: []string{"nope"}}, []string{}},
		{"stop words only", Query{NS: "n", Text: "the and at"}, []string{}},
		{"stop-word phrase only", Query{NS: "n", Text: `"the"`}, []string{}},
		{"punctuation only", Query{NS: "n", Text: `"" ?!`}, []string{}},
		{"stemmed", Query{NS: "n", Text: "fires"}, []string{"n:c1", "n:f1", "n:f2", "n:s1"}},
		{"words are ORed", Query{NS: "n", Text: "rain rules"}, []string{"n:c2", "n:f1"}},
		{"phrase", Query{NS: "n", Text: `"fire at the mill"`}, []string{"n:s1"}},
		{"phrase is required, words optional", Query{NS: "n", Text: `"ash and rain" fire`}, []string{"n:c2"}},
		{"phrase across stop words", Query{NS: "n", Text: `"fire in the mill"`}, []string{"n:s1"}},
		{"two phrases both required", Query{NS: "n", Text: `"mill rules" "no fire"`}, []string{"n:f1"}},
		{"two phrases, one missing", Query{NS: "n", Text: `"mill rules" "fire and ash"`}, []string{}},
		{"unclosed quote runs to the end", Query{NS: "n", Text: `rain "mill rules`}, []string{"n:f1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sortedIDs(search(t, ix, tt.q)); !slices.Equal(got, tt.want) {
				t.Errorf("Search(%+v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

// TestFiltersDoNotScore: a kind or tag filter changes which records come
// back, never their scores.
func TestFiltersDoNotScore(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, genRecords("n", 40), nil, 1)
	mustApply(t, ix, genRecords("other", 40), nil, 2)
	all := search(t, ix, Query{NS: "n", Text: "dragon river", Limit: 100})
	if len(all) < 5 {
		t.Fatalf("too few hits to compare: %v", ids(all))
	}
	score := map[string]float64{}
	for _, h := range all {
		score[h.ID] = h.Score
	}
	for _, q := range []Query{
		{NS: "n", Text: "dragon river", Kinds: []string{"scene"}, Limit: 100},
		{NS: "n", Text: "dragon river", Tags: []string{"ch-3"}, Limit: 100},
		{NS: "n", Text: "dragon river", Kinds: []string{"fact", "memory"}, Tags: []string{"draft"}, Limit: 100},
	} {
		hits := search(t, ix, q)
		if len(hits) == 0 || len(hits) == len(all) {
			t.Errorf("Search(%+v): %d hits, want a strict subset of %d", q, len(hits), len(all))
		}
		for _, h := range hits {
			if want, ok := score[h.ID]; !ok || h.Score != want {
				t.Errorf("Search(%+v): %s scored %v, unfiltered %v", q, h.ID, h.Score, want)
			}
		}
	}
}

func TestSearchRanking(t *testing.T) {
	ix, _ := openTemp(t)
	// Same word, one field each: the boosts decide (title 3, summary 2, body 1).
	mustApply(t, ix, []store.Record{
		{NS: "n", ID: "in-body", Title: "alpha", Summary: "beta", Body: "lantern"},
		{NS: "n", ID: "in-title", Title: "lantern", Summary: "beta", Body: "alpha"},
		{NS: "n", ID: "in-summary", Title: "alpha", Summary: "lantern", Body: "beta"},
		{NS: "n", ID: "none", Title: "alpha", Summary: "beta", Body: "gamma"},
	}, nil, 1)
	hits := search(t, ix, Query{NS: "n", Text: "lantern"})
	if !sameIDs(hits, "n:in-title", "n:in-summary", "n:in-body") {
		t.Fatalf("Search(lantern) = %v, want title, summary, body order", ids(hits))
	}
	for i := 1; i < len(hits); i++ {
		if !(hits[i-1].Score > hits[i].Score) {
			t.Errorf("scores not strictly falling: %v", hits)
		}
	}
	if hits[2].Score <= 0 {
		t.Errorf("body hit score %v, want > 0", hits[2].Score)
	}
}

func TestSearchTiesDeterministic(t *testing.T) {
	ix, _ := openTemp(t)
	// Twenty identical records, applied in a shuffled order over several
	// batches (several segments), must come back by id.
	var recs []store.Record
	for i := range 20 {
		recs = append(recs, rec("n", fmt.Sprintf("r%02d", i), "fact", "same", "the very same words"))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	for i := 0; i < len(recs); i += 6 {
		mustApply(t, ix, recs[i:min(i+6, len(recs))], nil, uint64(i+1))
	}
	var want []string
	for i := range 20 {
		want = append(want, fmt.Sprintf("n:r%02d", i))
	}
	for _, q := range []Query{{NS: "n", Text: "same words"}, {NS: "n"}, {NS: "n", Kinds: []string{"fact"}}} {
		hits := search(t, ix, q)
		if got := ids(hits); !slices.Equal(got, want) {
			t.Errorf("Search(%+v) = %v, want %v", q, got, want)
		}
		if q.Text == "" && hits[0].Score != 1 {
			t.Errorf("Search(%+v): score %v, want 1 for a query without text", q, hits[0].Score)
		}
		for _, h := range hits {
			if h.Score != hits[0].Score {
				t.Errorf("Search(%+v): score of %s is %v, want the tie %v", q, h.ID, h.Score, hits[0].Score)
			}
		}
		// The limit cuts the same order.
		q.Limit = 5
		if got := ids(search(t, ix, q)); !slices.Equal(got, want[:5]) {
			t.Errorf("Search(%+v) = %v, want %v", q, got, want[:5])
		}
	}

	// Ties across namespaces of an index holding several sort by ns first:
	// checked through the document id order.
	if !(docID("a", "z") < docID("a-b", "a") && docID("a", "z") < docID("a/b", "a")) {
		t.Errorf("document ids do not sort by namespace first")
	}
}

func TestSearchLimit(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, genRecords("n", 120), nil, 1)
	if got := len(search(t, ix, Query{NS: "n"})); got != DefaultLimit {
		t.Errorf("Search with Limit 0 returned %d hits, want %d", got, DefaultLimit)
	}
	if got := len(search(t, ix, Query{NS: "n", Limit: 7})); got != 7 {
		t.Errorf("Search with Limit 7 returned %d hits, want 7", got)
	}
	if got := len(search(t, ix, Query{NS: "n", Limit: 1000})); got != 120 {
		t.Errorf("Search with Limit 1000 returned %d hits, want 120", got)
	}
}

func TestSearchInvalid(t *testing.T) {
	ix, _ := openTemp(t)
	for _, q := range []Query{
		{Text: "fire"},
		{NS: "n", Limit: -1},
		{NS: "n", Kinds: []string{""}},
		{NS: "n", Tags: []string{"a", ""}},
	} {
		if _, err := ix.Search(context.Background(), q); !errors.Is(err, ErrInvalid) {
			t.Errorf("Search(%+v) error = %v, want ErrInvalid", q, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mustApply(t, ix, genRecords("n", 10), nil, 1)
	if _, err := ix.Search(ctx, Query{NS: "n", Text: "fire"}); err == nil {
		t.Errorf("Search with a cancelled context: no error")
	}
}

func TestSplitText(t *testing.T) {
	tests := []struct {
		in      string
		words   string
		phrases []string
	}{
		{"", "", nil},
		{"fire mill", "fire mill", nil},
		{`"fire at the mill"`, "", []string{"fire at the mill"}},
		{`a "b c" d`, "a   d", []string{"b c"}},
		{`"b c" "d e"`, "", []string{"b c", "d e"}},
		{`x "unclosed phrase`, "x", []string{"unclosed phrase"}},
		{`"" "  " y`, "y", nil},
	}
	for _, tt := range tests {
		w, p := splitText(tt.in)
		if w != tt.words || !slices.Equal(p, tt.phrases) {
			t.Errorf("splitText(%q) = %q, %q; want %q, %q", tt.in, w, p, tt.words, tt.phrases)
		}
	}
}

// TestSearchAnyTerm: a question is a ranked OR of its words; a quoted
// phrase found whole ranks first, and a phrase found nowhere (misspelt)
// requires nothing: its words still find records.
func TestSearchAnyTerm(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{
		rec("c", "t1", "turn", "", "We read The Quiet Harbour together last week."),
		rec("c", "t2", "turn", "", "The harbour was quiet, and we read nothing."),
		rec("c", "t3", "turn", "", "Lunch was soup."),
	}, nil, 1)
	cases := []struct {
		text string
		want []string // in rank order
	}{
		{`Which book did they read, "The Quiet Harbour"?`, []string{"t1", "t2"}},
		{`Did they finish "The Quiet Harbur"?`, []string{"t1", "t2"}}, // misspelt: no phrase match, the words still count
		{`"soup" for lunch`, []string{"t3"}},
		{"what was it", []string{}}, // stop words alone match nothing
	}
	for _, tc := range cases {
		hits := search(t, ix, Query{NS: "c", Text: tc.text, AnyTerm: true})
		got := []string{}
		for _, h := range hits {
			got = append(got, h.ID)
		}
		if tc.text == cases[1].text {
			slices.Sort(got) // both hold "quiet" and "harbour": their order is BM25's
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("AnyTerm %q = %v, want %v", tc.text, got, tc.want)
		}
		// Without AnyTerm the phrases are required.
		if strict := search(t, ix, Query{NS: "c", Text: tc.text}); tc.text == cases[1].text && len(strict) != 0 {
			t.Errorf("plain search %q found %d hits; the misspelt phrase must be required", tc.text, len(strict))
		}
	}
}
