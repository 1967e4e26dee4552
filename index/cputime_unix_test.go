//go:build unix

package index

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time. Benchmarks report
// CPU per record beside wall time because the shared 2-core machine is
// often loaded by other work, which inflates wall time but not CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
