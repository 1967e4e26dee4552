package budget

import (
	"unicode"
	"unicode/utf8"
)

// The splitters below cut text into the pieces that the encodings' regular
// expressions match, without a regex engine: each piece is found by looking
// at its characters once (the whitespace alternatives back off at most to
// the last line break or the last space of the run), so splitting is linear
// in the text. The library's regexp2 is linear on these patterns too
// (8, 16, 32 KB of spaces: 0.25, 0.5, 0.94 ms) but slow: about 5 MB/s on
// short pieces, against 230-300 MB/s here (BenchmarkSplit, mixed text).
//
// cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|
//   \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// o200k_base: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//   \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// The alternatives are tried in order, each with the backtracking of a
// leftmost-first engine (OpenAI's fancy-regex; the library's regexp2 agrees
// but for case folding, see contraction). Character classes follow Go's
// Unicode tables (15.0); \s is the White_Space property.

// Character class bits. Every rune has exactly one of the letter/mark/
// number bits or none; whitespace may combine with nothing but clNL.
const (
	clUpper = 1 << iota // Lu, Lt
	clLower             // Ll
	clOther             // Lm, Lo: in both o200k letter classes
	clMark              // M
	clNum               // N
	clSpace             // White_Space
	clNL                // '\r' or '\n' (also clSpace)

	clLetter = clUpper | clLower | clOther
	// o200k's [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and [\p{Ll}\p{Lm}\p{Lo}\p{M}].
	clU = clUpper | clOther | clMark
	clW = clLower | clOther | clMark
	// [^\s\p{L}\p{N}]: punctuation, symbols, controls, marks, unassigned.
	clNotPunct = clLetter | clNum | clSpace
	// [^\r\n\p{L}\p{N}] is the complement of this.
	clNotPrefix = clLetter | clNum | clNL
)

var (
	asciiClass [utf8.RuneSelf]uint8
	bmpClass   []uint8 // class of every rune below 0x10000
)

// init builds the class tables: well under a millisecond.
func init() {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		asciiClass[r] = classOf(r)
	}
	buildBMP()
}

// classOf computes a rune's class from the unicode tables (slow path).
func classOf(r rune) uint8 {
	var c uint8
	switch {
	case unicode.In(r, unicode.Lu, unicode.Lt):
		c = clUpper
	case unicode.Is(unicode.Ll, r):
		c = clLower
	case unicode.In(r, unicode.Lm, unicode.Lo):
		c = clOther
	case unicode.Is(unicode.M, r):
		c = clMark
	case unicode.Is(unicode.N, r):
		c = clNum
	case unicode.Is(unicode.White_Space, r):
		c = clSpace
	}
	if r == '\r' || r == '\n' {
		c |= clNL
	}
	return c
}

// buildBMP fills bmpClass from the range tables.
func buildBMP() {
	t := make([]uint8, 0x10000)
	set := func(tab *unicode.RangeTable, c uint8) {
		for _, rg := range tab.R16 {
			for r := uint32(rg.Lo); r <= uint32(rg.Hi); r += uint32(rg.Stride) {
				t[r] = c
			}
		}
	}
	set(unicode.Lu, clUpper)
	set(unicode.Lt, clUpper)
	set(unicode.Ll, clLower)
	set(unicode.Lm, clOther)
	set(unicode.Lo, clOther)
	set(unicode.M, clMark)
	set(unicode.N, clNum)
	set(unicode.White_Space, clSpace)
	t['\r'] |= clNL
	t['\n'] |= clNL
	bmpClass = t
}

// classAt returns the class of the rune at s[i] and its size in bytes.
// s must be valid UTF-8 and i < len(s).
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r < 0x10000 {
		return bmpClass[r], n
	}
	return classOf(r), n
}

// contraction returns the length of the contraction suffix ('s 't 're 've
// 'm 'll 'd, any case) that starts with the apostrophe at s[i], or 0.
// Case folding is Unicode's simple folding, as in the reference engine:
// U+017F LATIN SMALL LETTER LONG S folds to 's' (regexp2 does not fold it;
// no token sequence was found where that changes the result).
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return 3
		}
	}
	if longSFolds && i+2 < len(s) && s[i+1] == 0xC5 && s[i+2] == 0xBF {
		return 3
	}
	return 0
}

// longSFolds says whether (?i:'s) matches "'ſ"; see contraction.
const longSFolds = true

// scanClass returns the end of the run of runes whose class has a bit of mask,
// starting at i.
func scanClass(s string, i int, mask uint8) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if asciiClass[b]&mask == 0 {
				return i
			}
			i++
			continue
		}
		c, n := classAt(s, i)
		if c&mask == 0 {
			return i
		}
		i += n
	}
	return i
}

// spaceEnd handles the three whitespace alternatives shared by both
// encodings, for the whitespace rune at s[i] of size n:
// \s*[\r\n]+ | \s+(?!\S) | \s+.
func spaceEnd(s string, i, n int) int {
	lastNL, lastStart := -1, i
	j := i
	for j < len(s) {
		c, m := classAt(s, j)
		if c&clSpace == 0 {
			break
		}
		if c&clNL != 0 {
			lastNL = j
		}
		lastStart = j
		j += m
	}
	switch {
	case lastNL >= 0: // \s*[\r\n]+ backtracks to the last line break
		return lastNL + 1
	case j == len(s): // \s+(?!\S) at the end of the text
		return j
	case lastStart > i: // \s+(?!\S) leaves the last space to the next piece
		return lastStart
	}
	return i + n // \s+ of one space before a non-space
}

// punctEnd matches [^\s\p{L}\p{N}]+[\r\n]* from i; with slash set, the
// tail is o200k's [\r\n/]*.
func punctEnd(s string, i int, slash bool) int {
	j := scanNotClass(s, i, clNotPunct)
	for j < len(s) && (s[j] == '\r' || s[j] == '\n' || (slash && s[j] == '/')) {
		j++
	}
	return j
}

// scanNotClass returns the end of the run of runes whose class has no bit of
// mask, starting at i.
func scanNotClass(s string, i int, mask uint8) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if asciiClass[b]&mask != 0 {
				return i
			}
			i++
			continue
		}
		c, n := classAt(s, i)
		if c&mask != 0 {
			return i
		}
		i += n
	}
	return i
}

// restEnd returns the end of a piece that starts at i with a rune of class
// c and n bytes that is not a letter piece: the alternatives both
// encodings share, tried in their order: 1-3 digits, an optional space
// and punctuation (with trailing line breaks, and slashes for o200k), else
// whitespace.
func restEnd(s string, i int, c uint8, n int, slash bool) int {
	if c&clNum != 0 {
		j := i + n
		for k := 1; k < 3 && j < len(s); k++ {
			c2, n2 := classAt(s, j)
			if c2&clNum == 0 {
				break
			}
			j += n2
		}
		return j
	}
	if s[i] == ' ' && i+1 < len(s) {
		if c2, _ := classAt(s, i+1); c2&clNotPunct == 0 {
			return punctEnd(s, i+1, slash)
		}
	}
	if c&clNotPunct == 0 {
		return punctEnd(s, i, slash)
	}
	return spaceEnd(s, i, n)
}

// nextCL100K returns the end of the cl100k_base piece that starts at i.
func nextCL100K(s string, i int) int {
	b := s[i]
	c, n := classAt(s, i)
	if b == '\'' {
		if k := contraction(s, i); k > 0 {
			return i + k
		}
	}
	if c&clLetter != 0 {
		return scanClass(s, i+n, clLetter)
	}
	if c&clNotPrefix == 0 && i+n < len(s) {
		if c2, n2 := classAt(s, i+n); c2&clLetter != 0 {
			return scanClass(s, i+n+n2, clLetter)
		}
	}
	return restEnd(s, i, c, n, false)
}

// o200kLower matches o200k's first letter alternative after its prefix,
// [U]*[W]+('s|...)?, at i, or returns -1.
func o200kLower(s string, i int) int {
	// [U]*[W]+ : U* is greedy and gives back runes until W+ can start.
	j, lastW := i, -1
	for j < len(s) {
		c, n := classAt(s, j)
		if c&clU == 0 {
			break
		}
		if c&clW != 0 {
			lastW = j
		}
		j += n
	}
	k := -1
	if j < len(s) {
		if c, _ := classAt(s, j); c&clW != 0 {
			k = j
		}
	}
	if k < 0 {
		k = lastW
	}
	if k < 0 {
		return -1
	}
	return withContraction(s, scanClass(s, k, clW))
}

// o200kUpper matches [U]+[W]* at i, or returns -1.
func o200kUpper(s string, i int) int {
	j := scanClass(s, i, clU)
	if j == i {
		return -1
	}
	return withContraction(s, scanClass(s, j, clW))
}

func withContraction(s string, j int) int {
	if j < len(s) && s[j] == '\'' {
		return j + contraction(s, j)
	}
	return j
}

// nextO200K returns the end of the o200k_base piece that starts at i.
func nextO200K(s string, i int) int {
	c, n := classAt(s, i)
	if c&clNotPrefix == 0 {
		// The optional prefix is taken first; a mark can also start the
		// letters itself when the prefix path fails.
		if i+n < len(s) {
			if e := o200kLower(s, i+n); e >= 0 {
				return e
			}
		}
		if c&clMark != 0 {
			if e := o200kLower(s, i); e >= 0 {
				return e
			}
		}
		if i+n < len(s) {
			if e := o200kUpper(s, i+n); e >= 0 {
				return e
			}
		}
		if c&clMark != 0 {
			if e := o200kUpper(s, i); e >= 0 {
				return e
			}
		}
	} else if c&clLetter != 0 {
		if e := o200kLower(s, i); e >= 0 {
			return e
		}
		return o200kUpper(s, i)
	}
	return restEnd(s, i, c, n, true)
}
