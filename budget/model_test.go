package budget

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestModelsTable(t *testing.T) {
	ms := Models()
	if !slices.IsSortedFunc(ms, func(a, b Model) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("the model table is not sorted by name")
	}
	for i, m := range ms {
		if i > 0 && ms[i-1].Name == m.Name {
			t.Errorf("model %q listed twice", m.Name)
		}
		if m.Window <= 0 || m.Name != strings.ToLower(m.Name) {
			t.Errorf("model %+v: want a lowercase name and a window", m)
		}
		// Exact models name an encoding NewCounter has; estimates use the
		// estimate counter.
		c, err := NewCounter(m.Encoding)
		if err != nil {
			t.Errorf("model %q: encoding %q: %v", m.Name, m.Encoding, err)
			continue
		}
		if Exact(c) != m.Exact {
			t.Errorf("model %q: exact %v, but counter %q exact %v", m.Name, m.Exact, m.Encoding, Exact(c))
		}
	}
	ms[0].Name = "changed"
	if Models()[0].Name == "changed" {
		t.Error("Models shares the table")
	}
}

func TestLookupModel(t *testing.T) {
	tests := []struct {
		in, name, encoding string
		window             int
	}{
		{"gpt-4o", "gpt-4o", "o200k_base", 128_000},
		{"GPT-4o", "gpt-4o", "o200k_base", 128_000},
		{"gpt-4o-2024-08-06", "gpt-4o", "o200k_base", 128_000},
		{"gpt-4o-mini", "gpt-4o-mini", "o200k_base", 128_000},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini", "o200k_base", 128_000},
		{"openai/gpt-4.1-mini", "gpt-4.1-mini", "o200k_base", 1_047_576},
		{"gpt-4.1-2025-04-14", "gpt-4.1", "o200k_base", 1_047_576},
		{"gpt-4", "gpt-4", "cl100k_base", 8_192},
		{"gpt-4-0613", "gpt-4", "cl100k_base", 8_192},
		{"gpt-4-turbo-2024-04-09", "gpt-4-turbo", "cl100k_base", 128_000},
		{"gpt-3.5-turbo", "gpt-3.5-turbo", "cl100k_base", 16_385},
		{"o1", "o1", "o200k_base", 200_000},
		{"o3-mini-2025-01-31", "o3-mini", "o200k_base", 200_000},
		{"o4-mini", "o4-mini", "o200k_base", 200_000},
		{"gpt-5", "gpt-5", "o200k_base", 400_000},
		{"claude-3-5-sonnet-20241022", "claude-3-5-sonnet", "estimate", 200_000},
		{"anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "estimate", 200_000},
		{"claude-sonnet-4-20250514", "claude-sonnet-4", "estimate", 200_000},
		{"gemini-2.5-pro", "gemini-2.5-pro", "estimate", 1_048_576},
		{"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1", "estimate", 131_072},
	}
	for _, tt := range tests {
		m, ok := LookupModel(tt.in)
		if !ok || m.Name != tt.name || m.Encoding != tt.encoding || m.Window != tt.window {
			t.Errorf("LookupModel(%q) = %+v, %v; want %s (%s, %d)", tt.in, m, ok, tt.name, tt.encoding, tt.window)
		}
		if ok && m.Exact != (tt.encoding != "estimate") {
			t.Errorf("LookupModel(%q).Exact = %v", tt.in, m.Exact)
		}
	}
	for _, bad := range []string{"", "gpt", "gpt-4o2", "o", "o1x", "claude", "mistral-large", "/"} {
		if m, ok := LookupModel(bad); ok {
			t.Errorf("LookupModel(%q) = %+v, want not found", bad, m)
		}
	}
}

func TestLimit(t *testing.T) {
	gpt4o, _ := LookupModel("gpt-4o")         // 128,000, exact
	claude, _ := LookupModel("claude-3-opus") // 200,000, estimate
	tests := []struct {
		given   int
		m       Model
		reserve int
		want    int
	}{
		{20_000, gpt4o, 4_000, 20_000},    // the given budget is smaller
		{200_000, gpt4o, 8_000, 120_000},  // the window less the reserve is smaller
		{NoBudget, gpt4o, 8_000, 120_000}, // no budget: the window less the reserve
		{0, gpt4o, 0, 0},                  // zero is a budget
		{NoBudget, gpt4o, 127_999, 1},     // one token left
		{20_000, claude, 4_000, 18_000},   // estimate: 10% kept back
		{NoBudget, claude, 0, 180_000},    // 90% of the window
		{1_001, claude, 0, 900},           // rounded down
	}
	for _, tt := range tests {
		got, err := Limit(tt.given, tt.m, tt.reserve)
		if err != nil || got != tt.want {
			t.Errorf("Limit(%d, %s, %d) = %d, %v; want %d", tt.given, tt.m.Name, tt.reserve, got, err, tt.want)
		}
	}
	bad := []struct {
		given   int
		m       Model
		reserve int
		want    string
	}{
		{-5, gpt4o, 0, "-5"},
		{100, gpt4o, -1, "-1"},
		{100, gpt4o, 128_000, "128000"},
		{100, gpt4o, 500_000, "500000"},
		{100, Model{Name: "mystery"}, 0, `"mystery"`},
	}
	for _, tt := range bad {
		_, err := Limit(tt.given, tt.m, tt.reserve)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Limit(%d, %+v, %d): err %v, want ErrInvalid quoting %s", tt.given, tt.m, tt.reserve, err, tt.want)
		}
	}
}
