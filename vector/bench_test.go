package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lorekeep/lore/store"
)

// BenchmarkSearch is the scan of 100,000 vectors of 384 dimensions for
// the top k: the size issue 41 sets its bar at (lore-bench vectors
// measures it through the facade too).
func BenchmarkSearch(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	es := randomEntries(rng, 100_000, 384)
	set, err := NewSet(store.VectorSet{Dim: 384, Entries: es})
	if err != nil {
		b.Fatal(err)
	}
	q := randomEntries(rng, 1, 384)[0].Vector
	for _, k := range []int{50, 2000} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := set.Search(q, k, Filter{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
