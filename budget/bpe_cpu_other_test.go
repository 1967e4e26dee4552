//go:build !unix

package budget

import "time"

// cpuNow is not available here: benchmarks report wall-clock figures only.
func cpuNow() time.Duration { return 0 }
