package vector

// dotGo is the dot product of a and b[:len(a)] in plain Go, for CPUs
// without the assembly (and to check it): four accumulators, so the
// additions do not wait on one another.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotInt8Go is dotInt8 in plain Go.
func dotInt8Go(x []int8, q []int16) int32 {
	q = q[:len(x)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += int32(x[i]) * int32(q[i])
		s1 += int32(x[i+1]) * int32(q[i+1])
		s2 += int32(x[i+2]) * int32(q[i+2])
		s3 += int32(x[i+3]) * int32(q[i+3])
	}
	for ; i < len(x); i++ {
		s0 += int32(x[i]) * int32(q[i])
	}
	return s0 + s1 + s2 + s3
}
