package index

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestOddRecords indexes records that stress the analyser and the key
// encoding, and finds each by its own words.
func TestOddRecords(t *testing.T) {
	ix, _ := openTemp(t)
	long := strings.Repeat("x", 1<<20) // one 1 MiB token
	recs := []store.Record{
		{NS: "n", ID: "long-token", Title: "longword", Body: long},
		{NS: "n", ID: "ids may hold spaces/and slashes", Title: "spacey"},
		{NS: "n", ID: "émoji-🔥", Title: "feu 🔥 brûlant", Tags: []string{"ünï", "🔥"}},
		{NS: "n", ID: "empty"},
		{NS: "a.b_c-d/e", ID: "x", Title: "punctuated namespace"},
		{NS: "n", ID: "many-tags", Title: "tagged", Tags: []string{"a", "", "b", "a"}},
	}
	mustApply(t, ix, recs, nil, 1)
	tests := []struct {
		q    Query
		want string
	}{
		{Query{NS: "n", Text: "longword"}, "n:long-token"},
		{Query{NS: "n", Text: "spacey"}, "n:ids may hold spaces/and slashes"},
		{Query{NS: "n", Text: "brûlant"}, "n:émoji-🔥"},
		{Query{NS: "n", Tags: []string{"🔥"}}, "n:émoji-🔥"},
		{Query{NS: "n", Tags: []string{"ünï"}}, "n:émoji-🔥"},
		{Query{NS: "a.b_c-d/e", Text: "namespace"}, "a.b_c-d/e:x"},
		{Query{NS: "n", Tags: []string{"a", "b"}}, "n:many-tags"},
	}
	for _, tt := range tests {
		if got := search(t, ix, tt.q); !sameIDs(got, tt.want) {
			t.Errorf("Search(%+v) = %v, want [%s]", tt.q, ids(got), tt.want)
		}
	}
	if n, _ := ix.Count(); n != uint64(len(recs)) {
		t.Errorf("Count() = %d, want %d", n, len(recs))
	}
}

// TestHugeQuery: a query of very many words fails cleanly or succeeds; it
// never panics.
func TestHugeQuery(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, genRecords("n", 20), nil, 1)
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString("w")
		sb.WriteString(strings.Repeat("z", i%7))
		sb.WriteString(string(rune('a' + i%26)))
		sb.WriteString(" dragon ")
	}
	_, err := ix.Search(context.Background(), Query{NS: "n", Text: sb.String() + `"an unclosed`})
	t.Logf("huge query: %v", err)
	if err != nil && errors.Is(err, ErrCorrupt) {
		t.Errorf("huge query reported a corrupt index: %v", err)
	}
}
