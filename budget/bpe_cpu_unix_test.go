//go:build unix

package budget

import (
	"syscall"
	"time"
)

// cpuNow returns the CPU time (user + system) the process has used, so
// benchmarks can report throughput per CPU second as well as per wall
// second: on a shared machine the wall clock also counts other processes.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
