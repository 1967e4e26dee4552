//go:build !unix

package main

import "time"

// cpuTime is 0 where getrusage is missing: the figures that subtract the
// corpus generation's CPU then subtract nothing.
func cpuTime() time.Duration { return 0 }

// majorFaults is 0 where getrusage is missing: the packets table's disk
// reads then say nothing.
func majorFaults() int64 { return 0 }
