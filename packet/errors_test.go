package packet

import (
	"errors"
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

// A bad request names its value by BadValue, apart from the message
// (cmd/lore's --json error body carries it), and still matches its
// sentinels.
func TestInvalidRequestNamesItsValue(t *testing.T) {
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{NS: "Bad NS", Budget: 1000}, "Bad NS"},
		{Request{NS: "n", Budget: 1000, Task: "dance"}, "dance"},
		{Request{NS: "n", Budget: 1000, Config: &Config{DefaultProfile: "nope"}}, "nope"},
	} {
		_, _, err := c.req.normalize()
		var bv interface{ BadValue() string }
		if !errors.Is(err, ErrInvalidRequest) || !errors.As(err, &bv) || bv.BadValue() != c.want {
			t.Errorf("%+v: error %v; want ErrInvalidRequest naming %q by BadValue", c.req, err, c.want)
		}
	}
}
