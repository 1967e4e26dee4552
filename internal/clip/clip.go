// Package clip shortens text quoted in an error message, at a rune
// boundary, so a bad value of any size is named and not printed whole.
package clip

import "unicode/utf8"

// String returns s, or its first n bytes (less a cut rune) and "...".
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
