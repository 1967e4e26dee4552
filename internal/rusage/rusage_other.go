//go:build !unix

// Package rusage reads what the operating system counts of this process's
// work: its CPU time and the pages it read from disk. Here, without
// getrusage, both are 0.
package rusage

import "time"

// CPU is 0 where getrusage is missing.
func CPU() time.Duration { return 0 }

// MajorFaults is 0 where getrusage is missing.
func MajorFaults() int64 { return 0 }
