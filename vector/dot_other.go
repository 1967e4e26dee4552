//go:build !amd64 || purego

package vector

func dot(a, b []float32) float32 { return dotGo(a, b) }

func dotInt8(x []int8, q []int16) int32 { return dotInt8Go(x, q) }
