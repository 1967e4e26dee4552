//go:build !unix

package store_test

import "time"

// cpuTime is not measured off unix.
func cpuTime() time.Duration { return 0 }
