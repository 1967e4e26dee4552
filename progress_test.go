package lore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestImportAndReindexProgress: an import tells the index phase after
// the store's, and a reindex tells its own, each ending with all done.
func TestImportAndReindexProgress(t *testing.T) {
	l, _ := openTemp(t)
	last := map[string][2]int{}
	var order []string
	var mu sync.Mutex // Progress may be called from several goroutines at once
	ctx := store.WithProgress(context.Background(), func(phase string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if len(order) == 0 || order[len(order)-1] != phase {
			order = append(order, phase)
		}
		last[phase] = [2]int{done, total}
	})
	var recs []store.Record
	for i := range 2500 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprint("r", i), Body: "words about gulls"})
	}
	if _, err := l.Import(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(order); n < 2 || order[n-1] != "indexing" || order[n-2] != "committing" {
		t.Errorf("phases %v: want indexing after committing", order)
	}
	if got := last["indexing"]; got != [2]int{2500, 2500} {
		t.Errorf("indexing ended at %v, want 2500 of 2500 changes", got)
	}
	order, last = nil, map[string][2]int{}
	if err := l.ReindexContext(ctx); err != nil {
		t.Fatal(err)
	}
	if got := last["reindexing"]; len(order) != 1 || got != [2]int{2500, 2500} {
		t.Errorf("reindex: phases %v, reindexing at %v; want reindexing alone, to 2500 of 2500 records", order, got)
	}
}
