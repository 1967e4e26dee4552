//go:build unix

// Package rusage reads what the operating system counts of this process's
// work: its CPU time, which a machine shared with other work disturbs
// less than the wall clock, and the pages it read from disk. Benchmarks
// and lore-bench report them beside wall time. Where getrusage is missing
// (Windows) both are 0, and the figures made from them say nothing.
package rusage

import (
	"syscall"
	"time"
)

// CPU returns the user and system CPU time this process has used.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// MajorFaults returns the page faults of this process that read from
// disk: pages the page cache could not serve.
func MajorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Majflt)
}
