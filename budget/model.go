package budget

import (
	"slices"
	"strings"
)

// Model is a language model Lore knows the context window of.
type Model struct {
	// Name is the model's canonical name in the table ("gpt-4o").
	Name string
	// Encoding is the counter to use: "o200k_base", "cl100k_base", or
	// "estimate" for models whose tokenizer Lore does not have.
	Encoding string
	// Window is the context window in tokens: prompt and answer together.
	Window int
	// Exact is true when Encoding is the model's own tokenizer. When false,
	// counts are estimates and Limit keeps EstimateMargin percent back.
	Exact bool
}

// EstimateMargin is the share of the budget, in percent, that Limit keeps
// back for a model whose counts are estimates (Exact false). The estimate
// (characters / 4, lines x 12) is a floor, not a measurement: JSON, tables
// and front matter count higher under real tokenizers, and other vendors'
// tokenizers split differently from OpenAI's.
const EstimateMargin = 10

// NoBudget, passed to Limit as the given budget, means none was given: the
// model's window (less the reserve) is the budget.
const NoBudget = -1

// models is the built-in table, sorted by name. Windows are the vendors'
// published context windows (input and output together).
var models = []Model{
	{"chatgpt-4o-latest", "o200k_base", 128_000, true},
	{"claude-3-5-haiku", "estimate", 200_000, false},
	{"claude-3-5-sonnet", "estimate", 200_000, false},
	{"claude-3-7-sonnet", "estimate", 200_000, false},
	{"claude-3-haiku", "estimate", 200_000, false},
	{"claude-3-opus", "estimate", 200_000, false},
	{"claude-haiku-4-5", "estimate", 200_000, false},
	{"claude-opus-4", "estimate", 200_000, false},
	{"claude-opus-4-1", "estimate", 200_000, false},
	{"claude-sonnet-4", "estimate", 200_000, false},
	{"claude-sonnet-4-5", "estimate", 200_000, false},
	{"gemini-1.5-flash", "estimate", 1_048_576, false},
	{"gemini-1.5-pro", "estimate", 2_097_152, false},
	{"gemini-2.0-flash", "estimate", 1_048_576, false},
	{"gemini-2.5-flash", "estimate", 1_048_576, false},
	{"gemini-2.5-pro", "estimate", 1_048_576, false},
	{"gpt-3.5-turbo", "cl100k_base", 16_385, true},
	{"gpt-4", "cl100k_base", 8_192, true},
	{"gpt-4-32k", "cl100k_base", 32_768, true},
	{"gpt-4-turbo", "cl100k_base", 128_000, true},
	{"gpt-4.1", "o200k_base", 1_047_576, true},
	{"gpt-4.1-mini", "o200k_base", 1_047_576, true},
	{"gpt-4.1-nano", "o200k_base", 1_047_576, true},
	{"gpt-4.5-preview", "o200k_base", 128_000, true},
	{"gpt-4o", "o200k_base", 128_000, true},
	{"gpt-4o-mini", "o200k_base", 128_000, true},
	{"gpt-5", "o200k_base", 400_000, true},
	{"gpt-5-mini", "o200k_base", 400_000, true},
	{"gpt-5-nano", "o200k_base", 400_000, true},
	{"llama-3", "estimate", 8_192, false},
	{"llama-3.1", "estimate", 131_072, false},
	{"llama-3.2", "estimate", 131_072, false},
	{"llama-3.3", "estimate", 131_072, false},
	{"o1", "o200k_base", 200_000, true},
	{"o1-mini", "o200k_base", 128_000, true},
	{"o1-preview", "o200k_base", 128_000, true},
	{"o3", "o200k_base", 200_000, true},
	{"o3-mini", "o200k_base", 200_000, true},
	{"o3-pro", "o200k_base", 200_000, true},
	{"o4-mini", "o200k_base", 200_000, true},
}

// Models returns a copy of the built-in table, sorted by name.
func Models() []Model { return slices.Clone(models) }

// LookupModel finds a model by name, without regard to case. A provider
// prefix is ignored ("openai/gpt-4o"), and a name that extends a known one
// after a dash matches the longest such name, so dated snapshots and sizes
// resolve to their family: "gpt-4o-2024-08-06" is gpt-4o,
// "gpt-4o-mini-2024-07-18" is gpt-4o-mini, "llama-3.1-70b-instruct" is
// llama-3.1. The Model returned carries the table's name.
func LookupModel(name string) (Model, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	if n == "" {
		return Model{}, false
	}
	best := -1
	for i, m := range models {
		if n == m.Name {
			return m, true
		}
		if strings.HasPrefix(n, m.Name+"-") && (best < 0 || len(m.Name) > len(models[best].Name)) {
			best = i
		}
	}
	if best < 0 {
		return Model{}, false
	}
	return models[best], true
}

// Limit is the budget to pack into for model m: min(given, window - reserve),
// less EstimateMargin percent when m's counts are not exact. given is
// NoBudget when the caller gave none; reserve is the room left for the
// question, the system prompt and the answer. A negative given (other than
// NoBudget) or reserve, a model without a window, or a reserve that leaves
// no room in the window is an error wrapping ErrInvalid.
func Limit(given int, m Model, reserve int) (int, error) {
	switch {
	case given < 0 && given != NoBudget:
		return 0, invalidf("budget %d is negative: want 0 or more tokens", given)
	case reserve < 0:
		return 0, invalidf("reserve %d is negative: want 0 or more tokens", reserve)
	case m.Window <= 0:
		return 0, invalidValuef(m.Name, "model %q has no context window (%d): want a model from the table or a window above 0", m.Name, m.Window)
	case reserve >= m.Window:
		return 0, invalidValuef(m.Name, "reserve %d leaves no room in the %d-token window of model %q: want a reserve below %d", reserve, m.Window, m.Name, m.Window)
	}
	limit := m.Window - reserve
	if given != NoBudget && given < limit {
		limit = given
	}
	if !m.Exact {
		// Round down: the margin errs on the side of the window.
		limit = limit * (100 - EstimateMargin) / 100
	}
	return limit, nil
}
