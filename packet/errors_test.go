package packet

import (
	"strings"
	"testing"
)

// The split report counts its protected records in words that agree with
// the number.
func TestSplitReportCountsRecords(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "Protected: 1 record:\n"}, {2, "Protected: 2 records:\n"}} {
		e := &SplitError{NS: "n", Budget: 10, Need: 20}
		for range tc.n {
			e.Protected = append(e.Protected, Protected{ID: "x", Kind: "scene", Rank: 1, Form: "full", Tokens: 10})
		}
		if got := e.Report(); !strings.Contains(got, tc.want) {
			t.Errorf("%d protected: report lacks %q:\n%s", tc.n, tc.want, got)
		}
	}
}
