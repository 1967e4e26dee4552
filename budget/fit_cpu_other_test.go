//go:build !unix

package budget

// cpuTime is not measured here; benchmarks then report 0 CPU.
func cpuTime() int64 { return 0 }
