package budget

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// MaxBudget is the largest budget ParseBudget accepts: far above any model's
// context window, and small enough that sums of token counts cannot overflow.
const MaxBudget = math.MaxInt32

// The default scope ceilings of the context-budget skill.
const (
	SceneBudget   = 8_000
	ChapterBudget = 20_000
	ArcBudget     = 60_000
	NovelBudget   = 120_000
)

// DefaultScopes returns a fresh map of the built-in scope names and their
// budgets: scene 8,000, chapter 20,000, arc 60,000, novel 120,000.
func DefaultScopes() map[string]int {
	return map[string]int{
		"scene":   SceneBudget,
		"chapter": ChapterBudget,
		"arc":     ArcBudget,
		"novel":   NovelBudget,
	}
}

// ParseBudget parses a token budget: a whole number (8000, 120_000), a
// number with a k or m suffix, either case (8k, 20K, 1.5k, 1m), or a scope
// name. Scope names are matched without regard to case; scopes overrides and
// extends DefaultScopes (nil means the defaults alone). Zero is a valid
// budget (only the frame fits). Anything else, a negative number, a number
// that is not whole (1.5, 1.2345k) or one above MaxBudget, is an error that
// quotes s and says what is accepted; it wraps ErrInvalid.
func ParseBudget(s string, scopes map[string]int) (int, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, invalidValuef(s, "budget %q is empty: %s", s, acceptedBudgets(scopes))
	}
	if n, ok, err := lookupScope(t, scopes); ok || err != nil {
		return n, err
	}
	if t[0] == '-' {
		return 0, invalidValuef(s, "budget %q is negative: %s", s, acceptedBudgets(scopes))
	}
	n, msg := parseAmount(t)
	if msg != "" {
		return 0, invalidValuef(s, "budget %q %s: %s", s, msg, acceptedBudgets(scopes))
	}
	return n, nil
}

// lookupScope finds name among the scopes, the caller's first.
func lookupScope(name string, scopes map[string]int) (int, bool, error) {
	lower := strings.ToLower(name)
	n, ok := scopes[name]
	if !ok {
		// Keys sorted, so that two keys differing only in case give the
		// same answer whatever the map order.
		keys := make([]string, 0, len(scopes))
		for k := range scopes {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if strings.ToLower(k) == lower {
				n, ok, name = scopes[k], true, k
				break
			}
		}
	}
	if !ok {
		n, ok = DefaultScopes()[lower]
	}
	if !ok {
		return 0, false, nil
	}
	if n < 0 || n > MaxBudget {
		return 0, true, invalidValuef(name, "scope %q has budget %d: want 0 to %d tokens", name, n, MaxBudget)
	}
	return n, true, nil
}

// parseAmount parses digits with optional '_' separators, an optional
// fraction and an optional k/m suffix, in exact integer arithmetic. It
// returns a short phrase saying what is wrong, or "".
func parseAmount(t string) (int, string) {
	mult := int64(1)
	switch t[len(t)-1] {
	case 'k', 'K':
		mult, t = 1_000, t[:len(t)-1]
	case 'm', 'M':
		mult, t = 1_000_000, t[:len(t)-1]
	}
	whole, frac, hasDot := strings.Cut(t, ".")
	w, ok := digits(whole)
	if !ok {
		return 0, "is not a number"
	}
	// Drop leading zeros so the length check measures magnitude.
	w = strings.TrimLeft(w, "0")
	if hasDot {
		f, ok := digits(frac)
		if !ok {
			return 0, "is not a number"
		}
		frac = f
	}
	if len(w) > 10 {
		return 0, fmt.Sprintf("is too large (at most %d tokens)", MaxBudget)
	}
	var n int64
	for _, c := range w {
		n = n*10 + int64(c-'0')
	}
	n *= mult
	// The fraction must come out whole: 1.5k is 1500, 1.2345k is not a
	// whole number of tokens.
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 0 {
		if len(frac) > 6 {
			return 0, "is not a whole number of tokens"
		}
		var f int64
		scale := int64(1)
		for _, c := range frac {
			f = f*10 + int64(c-'0')
			scale *= 10
		}
		if f*mult%scale != 0 {
			return 0, "is not a whole number of tokens"
		}
		n += f * mult / scale
	}
	if n > MaxBudget {
		return 0, fmt.Sprintf("is too large (at most %d tokens)", MaxBudget)
	}
	return int(n), ""
}

// digits checks a run of ASCII digits where '_' may stand between two
// digits, and returns the digits alone.
func digits(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
		case c == '_' && i > 0 && i < len(s)-1 && isDigit(s[i-1]) && isDigit(s[i+1]):
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// acceptedBudgets says what ParseBudget accepts, with the scope names sorted.
func acceptedBudgets(scopes map[string]int) string {
	names := make([]string, 0, 4+len(scopes))
	for k := range DefaultScopes() {
		names = append(names, k)
	}
	for k := range scopes {
		names = append(names, strings.ToLower(k))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return fmt.Sprintf("want a whole number of tokens up to %d (8000, 120_000), a number with a k or m suffix (8k, 1.5k, 1m), or a scope (%s)",
		MaxBudget, strings.Join(names, ", "))
}
