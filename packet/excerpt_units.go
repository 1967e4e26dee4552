package packet

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The units of an excerpt: a body cut into its lines, or into the
// sentences of its wrapped prose, each a stretch of the body's own text,
// which an excerpt scores (scoreUnits) and shows whole or not at all.

// textUnit is one line or sentence of a body: body[start:end], trimmed.
type textUnit struct {
	start, end int
	score      float64
	tokens     int // counted when the passage reaches it; -1 before
}

// maxUnitBytes bounds a unit (about 60 tokens of prose): a line longer
// than that is cut at its sentences, and a sentence longer than twice
// that at white space.
const maxUnitBytes = 240

// splitUnits cuts body into the units an excerpt is made of. A
// paragraph of wrapped prose (two lines or more, none of them a list
// item, heading, quote, table row, code or indented) is cut into its
// sentences, which may run over the lines they were wrapped at: cut at
// its lines, a passage would begin and end mid-sentence. Any
// other paragraph is cut into its lines, a long line into its sentences;
// a sentence still too long is cut at white space.
func splitUnits(body string) []textUnit {
	var units []textUnit
	add := func(start, end int) {
		for start < end {
			r, n := utf8.DecodeRuneInString(body[start:])
			if !unicode.IsSpace(r) {
				break
			}
			start += n
		}
		for end > start {
			r, n := utf8.DecodeLastRuneInString(body[:end])
			if !unicode.IsSpace(r) {
				break
			}
			end -= n
		}
		if end > start {
			units = append(units, textUnit{start: start, end: end, tokens: -1})
		}
	}
	addSentences := func(start, end int) {
		for _, s := range sentences(body, start, end) {
			if s[1]-s[0] <= 2*maxUnitBytes {
				add(s[0], s[1])
				continue
			}
			for _, w := range wrapAt(body, s[0], s[1]) {
				add(w[0], w[1])
			}
		}
	}
	for _, para := range paragraphs(body) {
		if para.prose {
			addSentences(para.start, para.end)
			continue
		}
		for _, l := range para.lines {
			if l[1]-l[0] <= maxUnitBytes {
				add(l[0], l[1])
			} else {
				addSentences(l[0], l[1])
			}
		}
	}
	return units
}

// paragraph is a run of non-blank lines of a body, body[start:end].
type paragraph struct {
	start, end int
	lines      [][2]int
	prose      bool // wrapped prose: its sentences may cross its lines
}

// paragraphs cuts body at its blank lines.
func paragraphs(body string) []paragraph {
	var out []paragraph
	var cur *paragraph
	for start := 0; start < len(body); {
		end := strings.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		if strings.TrimSpace(body[start:end]) == "" {
			cur = nil
		} else {
			if cur == nil {
				out = append(out, paragraph{start: start})
				cur = &out[len(out)-1]
			}
			cur.lines = append(cur.lines, [2]int{start, end})
			cur.end = end
		}
		start = end + 1
	}
	for i := range out {
		out[i].prose = wrappedProse(body, out[i].lines)
	}
	return out
}

// wrappedProse reports whether lines read as one paragraph of prose
// wrapped at a width: two lines or more, each starting with a letter, a
// digit that is not a list number, or an opening quote or bracket, with
// no indent and no code fence.
func wrappedProse(body string, lines [][2]int) bool {
	if len(lines) < 2 {
		return false
	}
	for _, l := range lines {
		line := body[l[0]:l[1]]
		r, _ := utf8.DecodeRuneInString(line)
		switch {
		case unicode.IsLetter(r):
		case unicode.IsDigit(r):
			if listNumber(line) {
				return false
			}
		case strings.ContainsRune("\"'“‘(", r):
		default:
			return false
		}
		if strings.Contains(line, "```") {
			return false
		}
	}
	return true
}

// listNumber reports whether line opens with a list item's number:
// digits, then "." or ")", then white space.
func listNumber(line string) bool {
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && (line[i+1] == ' ' || line[i+1] == '\t')
}

// sentences cuts body[start:end] after each ".", "!" or "?", and the
// closing quotes and brackets after it, that white space follows.
func sentences(body string, start, end int) [][2]int {
	var out [][2]int
	from := start
	for i := start; i < end-1; i++ {
		switch body[i] {
		case '.', '!', '?':
			j := i + 1
			for j < end {
				if c := body[j]; c == '"' || c == '\'' || c == ')' || c == ']' {
					j++
					continue
				}
				if strings.HasPrefix(body[j:end], "”") || strings.HasPrefix(body[j:end], "’") {
					j += len("”")
					continue
				}
				break
			}
			if j < end && (body[j] == ' ' || body[j] == '\t' || body[j] == '\n' || body[j] == '\r') {
				out = append(out, [2]int{from, j})
				from = j
				i = j - 1
			}
		}
	}
	return append(out, [2]int{from, end})
}

// wrapAt cuts body[start:end] at the first white space past every
// maxUnitBytes.
func wrapAt(body string, start, end int) [][2]int {
	var out [][2]int
	from := start
	for from < end {
		cut := from + maxUnitBytes
		if cut >= end {
			break
		}
		sp := strings.IndexAny(body[cut:end], " \t")
		if sp < 0 {
			break
		}
		out = append(out, [2]int{from, cut + sp})
		from = cut + sp
	}
	return append(out, [2]int{from, end})
}
