package budget

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseBudget(t *testing.T) {
	tests := []struct {
		in     string
		scopes map[string]int
		want   int
	}{
		{"8000", nil, 8000},
		{"0", nil, 0},
		{"8k", nil, 8000},
		{"20K", nil, 20000},
		{"1.5k", nil, 1500},
		{"1.05k", nil, 1050},
		{"0.5k", nil, 500},
		{"1m", nil, 1_000_000},
		{"1.25M", nil, 1_250_000},
		{"2.000001m", nil, 2_000_001},
		{"120_000", nil, 120000},
		{"1_000k", nil, 1_000_000},
		{"1.0", nil, 1},
		{"007", nil, 7},
		{"  8k\n", nil, 8000},
		{"2147483647", nil, MaxBudget},
		{"scene", nil, 8000},
		{"chapter", nil, 20000},
		{"arc", nil, 60000},
		{"novel", nil, 120000},
		{"Scene", nil, 8000},
		{"NOVEL", nil, 120000},
		{"scene", map[string]int{"scene": 6000}, 6000},
		{"Scene", map[string]int{"scene": 6000}, 6000},
		{"chapter", map[string]int{"scene": 6000}, 20000},
		{"epic", map[string]int{"epic": 250000}, 250000},
		{"Epic", map[string]int{"EPIC": 1, "epic": 2}, 1}, // case clash: the smallest key wins
	}
	for _, tt := range tests {
		got, err := ParseBudget(tt.in, tt.scopes)
		if err != nil || got != tt.want {
			t.Errorf("ParseBudget(%q, %v) = %d, %v; want %d", tt.in, tt.scopes, got, err, tt.want)
		}
	}
}

func TestParseBudgetErrors(t *testing.T) {
	tests := []struct {
		in     string
		scopes map[string]int
		want   string // the error must contain it besides the quoted input
	}{
		{"", nil, "empty"},
		{"   ", nil, "empty"},
		{"-5", nil, "negative"},
		{"-5k", nil, "negative"},
		{"abc", nil, "not a number"},
		{"1.2.3k", nil, "not a number"},
		{"9e99", nil, "not a number"},
		{"1e3", nil, "not a number"},
		{"0x10", nil, "not a number"},
		{"+5", nil, "not a number"},
		{"8 k", nil, "not a number"},
		{"k", nil, "not a number"},
		{"8kk", nil, "not a number"},
		{"8g", nil, "not a number"},
		{".5k", nil, "not a number"},
		{"5.k", nil, "not a number"},
		{"1,000", nil, "not a number"},
		{"_1", nil, "not a number"},
		{"1_", nil, "not a number"},
		{"1__0", nil, "not a number"},
		{"1.5", nil, "whole number"},
		{"1.2345k", nil, "whole number"},
		{"0.0000001m", nil, "whole number"},
		{"2147483648", nil, "too large"},
		{"99999999999999999999999", nil, "too large"},
		{"2148000k", nil, "too large"},
		{"3000m", nil, "too large"},
		{"scene", map[string]int{"scene": -1}, "-1"},
	}
	for _, tt := range tests {
		n, err := ParseBudget(tt.in, tt.scopes)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseBudget(%q) = %d, %v; want ErrInvalid", tt.in, n, err)
			continue
		}
		msg := err.Error()
		quoted := strconv.Quote(tt.in)
		if !strings.Contains(msg, quoted) || !strings.Contains(msg, tt.want) {
			t.Errorf("ParseBudget(%q) error %q: want it to quote the input and say %q", tt.in, msg, tt.want)
		}
		if tt.scopes == nil && (!strings.Contains(msg, "8k") || !strings.Contains(msg, "arc, chapter, novel, scene")) {
			t.Errorf("ParseBudget(%q) error %q: want it to say what is accepted", tt.in, msg)
		}
		if msg != strings.ToLower(msg[:1])+msg[1:] {
			t.Errorf("error %q starts with a capital", msg)
		}
		// The value is named apart from the message too (cmd/lore's
		// --json error body carries it).
		var bv interface{ BadValue() string }
		if !errors.As(err, &bv) || bv.BadValue() != tt.in {
			t.Errorf("ParseBudget(%q) error %q: want it to name the input by BadValue", tt.in, msg)
		}
	}
	// Custom scopes are listed among the accepted values.
	_, err := ParseBudget("sagas", map[string]int{"saga": 300000})
	if err == nil || !strings.Contains(err.Error(), "saga") {
		t.Errorf("error %v, want the custom scope saga listed", err)
	}
}

func TestDefaultScopesFresh(t *testing.T) {
	s := DefaultScopes()
	s["scene"] = 1
	if DefaultScopes()["scene"] != 8000 {
		t.Error("DefaultScopes shares its map")
	}
	if n, _ := ParseBudget("scene", nil); n != 8000 {
		t.Errorf("scene = %d after changing a copy, want 8000", n)
	}
}

func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"8000", "8k", "20K", "1.5k", "1m", "120_000", "scene", "-5", "abc", "1.2.3k", "9e99", "", "2147483647", "2147483648", "0.001m", "1_0.5_0k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBudget(s, nil)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseBudget(%q): %v does not wrap ErrInvalid", s, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("ParseBudget(%q): error %q does not quote the input", s, err)
			}
			return
		}
		if n < 0 || n > MaxBudget {
			t.Fatalf("ParseBudget(%q) = %d, out of range", s, n)
		}
		// Plain digits agree with strconv; every result parses back.
		trimmed := strings.TrimSpace(s)
		if d, err := strconv.Atoi(strings.ReplaceAll(trimmed, "_", "")); err == nil && !strings.ContainsAny(trimmed, "+-") && d != n {
			t.Fatalf("ParseBudget(%q) = %d, strconv says %d", s, n, d)
		}
		if m, err := ParseBudget(strconv.Itoa(n), nil); err != nil || m != n {
			t.Fatalf("ParseBudget(%q) = %d does not round-trip: %d, %v", s, n, m, err)
		}
	})
}
