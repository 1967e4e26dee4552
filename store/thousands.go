package store

import "strconv"

// thousands writes n with a comma between groups of three digits, as
// internal/numfmt does for every other report of Lore: the store keeps
// its own copy because it imports nothing of Lore (its damage messages
// are the only place it writes a size), and TestThousandsAgrees holds the
// two to one format.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
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
