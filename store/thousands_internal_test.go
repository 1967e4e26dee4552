package store

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lorekeep/lore/internal/numfmt"
)

// The store's sizes read as every other report's.
func TestThousandsAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int64{0, 7, 999, 1000, -1200, 1234567, math.MinInt64, math.MaxInt64} {
		if got, want := thousands(n), numfmt.Thousands(n); got != want {
			t.Errorf("thousands(%d) = %q; numfmt says %q", n, got, want)
		}
	}
	for range 1000 {
		n := rng.Int64() >> rng.IntN(63)
		if got, want := thousands(n), numfmt.Thousands(n); got != want {
			t.Errorf("thousands(%d) = %q; numfmt says %q", n, got, want)
		}
	}
}
