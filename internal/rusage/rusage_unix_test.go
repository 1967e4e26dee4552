//go:build unix

package rusage

import (
	"crypto/sha256"
	"testing"
)

// CPU grows with the work the process does, and no count is negative.
func TestCPUGrowsWithWork(t *testing.T) {
	before := CPU()
	if before <= 0 {
		t.Fatalf("CPU() = %v before any work; a running test has used some", before)
	}
	sum := sha256.Sum256(nil)
	for range 200_000 {
		sum = sha256.Sum256(sum[:])
	}
	if after := CPU(); after <= before {
		t.Errorf("CPU() went from %v to %v over 200,000 hashes; want it to grow", before, after)
	}
	if n := MajorFaults(); n < 0 {
		t.Errorf("MajorFaults() = %d; want a count", n)
	}
}
