//go:build !unix

package index

import "time"

// cpuTime is 0 where getrusage is missing: the benchmarks' CPU figures
// then say nothing.
func cpuTime() time.Duration { return 0 }
