// Package numfmt formats numbers for people: the one place that writes
// token counts and byte sizes with thousands separators, so every report,
// note and message of Lore writes them the same way.
package numfmt

import "strconv"

// Thousands writes n with a comma between groups of three digits:
// 19859 -> "19,859", -1200 -> "-1,200".
func Thousands[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
