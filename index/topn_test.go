package index

import (
	"context"
	"errors"
	"fmt"
	"github.com/blevesearch/bleve/v2"
	"slices"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestTopNByScoreMatchesIDSort: the search that sorts by score alone
// (topN's fast way) returns the hits, scores and order the id sort
// returns, for many queries and limits, including ties across the cut
// (twelve identical records) and at the top.
func TestTopNByScoreMatchesIDSort(t *testing.T) {
	ix, _ := openTemp(t)
	recs := benchCorpus("n", 0, 400, 40)
	for i := range 12 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprintf("twin-%02d", 11-i), Kind: "fact", Title: "zebra lantern", Body: "zebra"})
	}
	mustApply(t, ix, recs, nil, 1)
	texts := []string{"zebra", "zebra lantern", recs[3].Title, recs[50].Summary, recs[7].Title + " zebra", recs[9].Body[:40]}
	ties := 0
	for _, text := range texts {
		for _, limit := range []int{1, 3, 5, 12, 13, 50, 500} {
			bq, _, err := buildQuery(Query{NS: "n", Text: text, AnyTerm: true}, ix.b)
			if err != nil {
				t.Fatal(err)
			}
			ctx, err := withScoringStats(context.Background(), ix, "n")
			if err != nil {
				t.Fatal(err)
			}
			release, err := ix.acquire()
			if err != nil {
				t.Fatal(err)
			}
			fast, err1 := ix.topN(ctx, bq, limit, false)
			byID, err2 := ix.topN(ctx, bq, limit, true)
			release()
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			var a, b []string
			for _, h := range fast {
				a = append(a, fmt.Sprintf("%s %.9g", h.ID, h.Score))
			}
			for _, h := range byID {
				b = append(b, fmt.Sprintf("%s %.9g", h.ID, h.Score))
			}
			if len(a) == 0 || !slices.Equal(a, b) {
				t.Errorf("%q limit %d: score sort\n%v\nid sort\n%v", text, limit, a, b)
			}
			if len(byID) > 1 && byID[0].Score == byID[1].Score {
				ties++
			}
		}
	}
	if ties == 0 {
		t.Error("no query had tied hits: the test compares too little")
	}
}

// bestScored keeps what bleve's own collector keeps for a request sorted
// by score: the same matches with the same scores, bit for bit, where no
// tie straddles the cut, and it stops on a cancelled context.
func TestBestScoredMatchesBleve(t *testing.T) {
	ix, _ := openTemp(t)
	recs := benchCorpus("n", 0, 400, 40)
	mustApply(t, ix, recs, nil, 1)
	ctx, err := withScoringStats(context.Background(), ix, "n")
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, text := range []string{recs[3].Title, recs[50].Summary, recs[9].Body[:60], "the and of"} {
		bq, _, err := buildQuery(Query{NS: "n", Text: text, AnyTerm: true}, ix.b)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 7, 60, 1000} {
			res, err := ix.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(bq, size, 0, false))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ix.bestScored(ctx, bq, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(res.Hits) {
				t.Fatalf("%q size %d: %d hits, bleve %d", text, size, len(got), len(res.Hits))
			}
			want := map[string]float64{}
			for _, h := range res.Hits {
				want[h.ID] = h.Score
			}
			for i, h := range got {
				if i > 0 && got[i-1].Score < h.Score {
					t.Fatalf("%q size %d: hit %d scores above the one before it", text, size, i)
				}
				last := got[len(got)-1].Score
				if s, ok := want[h.ID]; (!ok && h.Score != last) || (ok && s != h.Score) {
					t.Errorf("%q size %d: %s scored %v, bleve %v (kept %v)", text, size, h.ID, h.Score, s, ok)
				}
			}
			compared += len(got)
		}
	}
	if compared == 0 {
		t.Fatal("no query matched: the test compares nothing")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	bq, _, _ := buildQuery(Query{NS: "n", Text: recs[3].Title, AnyTerm: true}, ix.b)
	if _, err := ix.bestScored(cancelled, bq, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled search returned %v; want context.Canceled", err)
	}
}
