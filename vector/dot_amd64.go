//go:build !purego

package vector

import "golang.org/x/sys/cpu"

// useAVX2 says the CPU runs dotAVX2: AVX2 and FMA, with the operating
// system saving the wide registers (cpu.X86.HasAVX2 checks that too).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dotAVX2(a, b []float32) float32

//go:noescape
func dotInt8AVX2(x []int8, q []int16) int32

// dotInt8 is the dot product of x and q[:len(x)] in integers.
func dotInt8(x []int8, q []int16) int32 {
	if useAVX2 {
		return dotInt8AVX2(x, q[:len(x)])
	}
	return dotInt8Go(x, q)
}

// dot is the dot product of a and b[:len(a)]; len(b) >= len(a).
func dot(a, b []float32) float32 {
	if useAVX2 {
		return dotAVX2(a, b[:len(a)])
	}
	return dotGo(a, b)
}
