package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotMatchesPlainGo checks the assembly (where the CPU runs it)
// against the plain loop and a float64 sum, at every length from 0 to
// 100 and at common embedding sizes, so every tail of the blocks runs.
func TestDotMatchesPlainGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{384, 768, 1024, 1536, 3072}
	for n := range 101 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		a, b := make([]float32, n), make([]float32, n+3) // b longer: only b[:len(a)] counts
		var want float64
		for i := range a {
			a[i], b[i] = rng.Float32()*2-1, rng.Float32()*2-1
			want += float64(a[i]) * float64(b[i])
		}
		b[n], b[n+1], b[n+2] = 1e30, 1e30, 1e30
		for name, got := range map[string]float32{"dot": dot(a, b), "dotGo": dotGo(a, b)} {
			if math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Sqrt(float64(n))) {
				t.Errorf("%s of length %d: %v; want %v", name, n, got, want)
			}
		}
	}
}

// TestDotInt8MatchesPlainGo checks the integer assembly against the
// plain loop, exactly, at every length from 0 to 100 and at common sizes,
// with the extremes of both ranges.
func TestDotInt8MatchesPlainGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lengths := []int{384, 768, 1024, 4096}
	for n := range 101 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		x, q := make([]int8, n), make([]int16, n+5)
		maxQuery := queryMax(n)
		var want int64
		for i := range x {
			x[i], q[i] = int8(rng.IntN(255)-127), int16(rng.IntN(2*maxQuery+1)-maxQuery)
			if i%7 == 0 {
				x[i], q[i] = -127, int16(-maxQuery)
			}
			want += int64(x[i]) * int64(q[i])
		}
		if got := dotInt8(x, q); int64(got) != want {
			t.Errorf("dotInt8 of length %d: %d; want %d", n, got, want)
		}
		if got := dotInt8Go(x, q); int64(got) != want {
			t.Errorf("dotInt8Go of length %d: %d; want %d", n, got, want)
		}
	}
}
