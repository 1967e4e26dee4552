package index

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentApplySearch runs searches while Apply writes, under -race.
// Every search must stay inside its namespace and succeed.
func TestConcurrentApplySearch(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, genRecords("a", 50), nil, 1)

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 10 {
			recs := genRecords("b", 40)
			for j := range recs {
				recs[j].ID = fmt.Sprintf("w%d-%d", i, j)
			}
			if err := ix.Apply(recs, []Key{{"a", fmt.Sprintf("rec-%06d", i)}}, uint64(2+i)); err != nil {
				errs <- err
				return
			}
		}
	}()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				hits, err := ix.Search(context.Background(), Query{NS: "a", Text: "dragon fire"})
				if err != nil {
					errs <- err
					return
				}
				for _, h := range hits {
					if h.NS != "a" {
						errs <- fmt.Errorf("hit %s:%s outside namespace a", h.NS, h.ID)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if wm, _ := ix.Watermark(); wm != 11 {
		t.Errorf("Watermark() = %d, want 11", wm)
	}
	if n, _ := ix.Count(); n != 50-10+400 {
		t.Errorf("Count() = %d, want %d", n, 50-10+400)
	}
}
