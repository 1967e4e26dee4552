package vector

import "math"

// The first pass of a search reads each vector as int8, a quarter of its
// float32 bytes: the scan is bound by memory, not arithmetic. Each row
// keeps its scale and the length of what rounding took from it, which
// bound how far its int8 score can be from its float32 one; the second
// pass scores exactly (float32) only the rows those bounds cannot rule
// out. The result is the float32 scan's, row for row.

// maxQuantDims is the largest dimension scanned as int8: beyond it the
// integer sums could leave int32 (see queryMax), and the scan is float32
// throughout.
const maxQuantDims = 4096

// queryMax is the largest magnitude a quantized query of dim dimensions
// takes: dim products of 127 by it stay within int32.
func queryMax(dim int) int {
	return min(math.MaxInt16, math.MaxInt32/(127*max(dim, 1)))
}

// quantizeRow appends unit (a unit vector) as int8 to dst, scaled so its
// largest element is 127, and returns the scale (a float32 element is
// about scale times its int8) and the length of the rounding error.
func quantizeRow(dst []int8, unit []float32) ([]int8, float32, float32) {
	var top float64
	for _, x := range unit {
		top = math.Max(top, math.Abs(float64(x)))
	}
	if top == 0 {
		return append(dst, make([]int8, len(unit))...), 0, 0
	}
	scale := top / 127
	var err2 float64
	for _, x := range unit {
		q := math.Round(float64(x) / scale)
		dst = append(dst, int8(q))
		d := float64(x) - q*scale
		err2 += d * d
	}
	return dst, float32(scale), float32(math.Sqrt(err2))
}

// quantizeQuery turns unit into int16s of at most queryMax(len) and
// returns them with their scale and rounding error's length.
func quantizeQuery(unit []float32) ([]int16, float64, float64) {
	var top float64
	for _, x := range unit {
		top = math.Max(top, math.Abs(float64(x)))
	}
	out := make([]int16, len(unit))
	if top == 0 {
		return out, 0, 0
	}
	scale := top / float64(queryMax(len(unit)))
	var err2 float64
	for i, x := range unit {
		q := math.Round(float64(x) / scale)
		out[i] = int16(q)
		d := float64(x) - q*scale
		err2 += d * d
	}
	return out, scale, math.Sqrt(err2)
}
