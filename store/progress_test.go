package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestProgress: a long write tells its phases, in order, each ending
// with all of it done.
func TestProgress(t *testing.T) {
	s := newStore(t)
	var mu sync.Mutex
	var phases []string
	last := map[string][2]int{}
	ctx := store.WithProgress(context.Background(), func(phase string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
		if prev := last[phase]; done < prev[0] {
			t.Errorf("%s went back from %d to %d", phase, prev[0], done)
		}
		last[phase] = [2]int{done, total}
	})
	var recs []store.Record
	var links []store.Link
	for i := range 700 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprint("r", i), Body: "some words"})
		links = append(links, store.Link{NS: "n", From: fmt.Sprint("r", i), Rel: "next", To: fmt.Sprint("r", (i+1)%700)})
	}
	if _, err := s.PutManyContext(ctx, recs, links); err != nil {
		t.Fatal(err)
	}
	if want := []string{"counting tokens", "writing", "linking", "committing"}; !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	for _, ph := range []string{"counting tokens", "writing", "linking"} {
		if got := last[ph]; got != [2]int{700, 700} {
			t.Errorf("%s ended at %d of %d, want 700 of 700", ph, got[0], got[1])
		}
	}
}
