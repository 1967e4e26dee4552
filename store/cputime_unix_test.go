//go:build unix

package store_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: a figure that a busy
// machine disturbs less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
