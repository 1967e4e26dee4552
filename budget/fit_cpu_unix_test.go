//go:build unix

package budget

import "syscall"

// cpuTime is the process's user and system CPU time in nanoseconds, so
// benchmarks can report CPU per operation on a machine shared with other
// work, where wall time per operation says little.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
