package budget

import (
	"strings"
	"unicode/utf8"
)

// estimator is the "estimate" counter: a floor for text whose tokenizer is
// unknown, after the context-budget skill (characters/4 for prose,
// lines*12 for tabular records).
type estimator struct{}

var _ Counter = estimator{}

// Name returns "estimate".
func (estimator) Name() string { return Estimate }

// Exact reports that the counts are estimates.
func (estimator) Exact() bool { return false }

// Count returns EstimateTokens(text).
func (estimator) Count(text string) int { return EstimateTokens(text) }

// EstimateTokens estimates the tokens of text without a tokenizer:
// ceil(characters / 4) for prose, and for tabular text the larger of that
// and 12 per non-blank line (the skill's lines x 12 is a floor: a table of
// short cells costs more than its characters suggest, and a long line never
// costs less than its characters).
//
// Text is tabular when it has at least two non-blank lines and at least 80%
// of them are records: lines that contain a tab, or that contain the same
// number of '|' (at least one) or ',' (at least two) as the most
// common such count, or
// that are JSON objects ('{' ... '}'). Invalid UTF-8 counts one character
// per maximal ill-formed subsequence, as the exact counters see it.
func EstimateTokens(text string) int {
	text = sanitize(text)
	chars := (utf8.RuneCountInString(text) + 3) / 4
	lines := 0
	if isTabular(text, &lines) {
		return max(chars, 12*lines)
	}
	return chars
}

// isTabular decides whether text is a table of records (see
// EstimateTokens) and stores its number of non-blank lines.
func isTabular(text string, lines *int) bool {
	var ls []string
	for l := range strings.Lines(text) {
		if l = strings.TrimSpace(l); l != "" {
			ls = append(ls, l)
		}
	}
	*lines = len(ls)
	if len(ls) < 2 {
		return false
	}
	// The most common positive count of each separator.
	modal := func(sep string) int {
		freq := map[int]int{}
		best, bestN := 0, 0
		for _, l := range ls {
			if k := strings.Count(l, sep); k > 0 {
				freq[k]++
				// Ties go to the smaller count, so the result does not
				// depend on map order.
				if freq[k] > bestN || (freq[k] == bestN && k < best) {
					best, bestN = k, freq[k]
				}
			}
		}
		return best
	}
	pipes, commas := modal("|"), modal(",")
	records := 0
	for _, l := range ls {
		switch {
		case strings.Contains(l, "\t"),
			pipes > 0 && strings.Count(l, "|") == pipes,
			commas > 1 && strings.Count(l, ",") == commas,
			strings.HasPrefix(l, "{") && strings.HasSuffix(l, "}"):
			records++
		}
	}
	return records*5 >= len(ls)*4
}
