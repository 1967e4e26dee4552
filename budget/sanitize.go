package budget

import (
	"strings"
	"unicode/utf8"
)

// sanitize returns s with each maximal ill-formed subsequence of bytes
// replaced by one U+FFFD, as the WHATWG UTF-8 decoder (and Unicode's
// recommended practice, and Python's errors="replace") does. Go's own
// conversions replace each bad byte instead, which counts more tokens than
// the reference on truncated sequences. Valid input is returned as is.
func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		need, lo, hi := seqBounds(c)
		if need == 0 {
			b.WriteString("\uFFFD")
			i++
			continue
		}
		j := i + 1
		for k := 0; k < need; k++ {
			if j >= len(s) || s[j] < lo || s[j] > hi {
				break
			}
			lo, hi = 0x80, 0xBF
			j++
		}
		if j-i == need+1 {
			b.WriteString(s[i:j])
		} else {
			// The bytes i..j-1 are a maximal ill-formed subsequence: the
			// byte at j (if any) starts over.
			b.WriteString("\uFFFD")
		}
		i = j
	}
	return b.String()
}

// seqBounds returns how many continuation bytes lead byte c needs and the
// range allowed for the first of them (the rest are 0x80..0xBF); need is 0
// for a byte that cannot start a sequence.
func seqBounds(c byte) (need int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 1, 0x80, 0xBF
	case c == 0xE0:
		return 2, 0xA0, 0xBF
	case c == 0xED:
		return 2, 0x80, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		return 2, 0x80, 0xBF
	case c == 0xF0:
		return 3, 0x90, 0xBF
	case c == 0xF4:
		return 3, 0x80, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		return 3, 0x80, 0xBF
	}
	return 0, 0, 0
}
