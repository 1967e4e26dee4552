package main

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shared scorer's rules for a record given with the text the packet
// shows of it (whole, summary or excerpt): the text must be the record's
// own, in the record's order, and hold enough of its body to earn
// evidence credit. They are restated here, not imported, because the
// scorer is a command of its own; the tests pin the cases it documents.

// gapMarkers stand for text left out of an excerpt, alone on a line or
// inside one; longer markers come first so "[...]" is not read as "...".
var gapMarkers = []string{"[...]", "[…]", "(...)", "(…)", "...", "…"}

var gapCutter = func() *strings.Replacer {
	var oldnew []string
	for _, m := range gapMarkers {
		oldnew = append(oldnew, m, "\x00")
	}
	return strings.NewReplacer(oldnew...)
}()

// hasGapMarker reports whether s holds a gap marker: every marker holds
// "..." or "…".
func hasGapMarker(s string) bool {
	return strings.Contains(s, "...") || strings.Contains(s, "…")
}

const (
	// minPassageWords is how many whole words of the record one passage
	// must hold (or the whole text, when it has fewer).
	minPassageWords = 8
	// minShownTokens is how many tokens of the record's text the passages
	// must hold together, or half the text when that is less.
	minShownTokens = 100
	// maxPlaces bounds the places of the text where a passage is followed
	// as it grows, as the scorer bounds them (a line such as "}" can occur
	// everywhere in code).
	maxPlaces = 64
)

// normWS trims s and reads every run of white space as one space.
func normWS(s string) string { return strings.Join(strings.Fields(s), " ") }

// shownVerdict is what the rules make of the text shown for one record.
type shownVerdict struct {
	foreign  bool     // a piece is neither in the text after the piece before nor in the title
	passages []string // the record's own text it shows, a passage each (white space normalised), in order
	words    bool     // a passage holds minPassageWords whole words (or the whole text)
	tokens   int      // tokens of the record's text the passages hold
	enough   bool     // tokens >= min(minShownTokens, half the text's tokens)
}

// credited reports whether the record earns evidence credit: its own
// text, and enough of it.
func (v shownVerdict) credited() bool {
	return !v.foreign && len(v.passages) > 0 && v.words && v.enough
}

// shownPiece is a run of shown text between gap markers and line breaks;
// gap says a gap marker came between it and the piece before.
type shownPiece struct {
	text string // white space normalised, never empty
	gap  bool
}

// shownPieces cuts shown text into pieces at line breaks and gap markers.
func shownPieces(shown string) []shownPiece {
	var out []shownPiece
	gap := false
	for _, line := range strings.Split(shown, "\n") {
		for i, seg := range strings.Split(gapCutter.Replace(line), "\x00") {
			gap = gap || i > 0
			if s := normWS(seg); s != "" {
				out = append(out, shownPiece{s, gap})
				gap = false
			}
		}
	}
	return out
}

// checkShown applies the rules to the text shown for record id (which ns
// holds). Pieces are placed in order in the record's normalised text;
// those that follow one another there with no gap marker between them
// (across line breaks too) make one passage. A passage counts the tokens
// of the record's own text from its first character to its last.
func (ns *evalNS) checkShown(id, shown string) (v shownVerdict) {
	f := ns.normOf(id)
	spans, ok := placePassages(f.text, f.title, shownPieces(shown), maxPlaces)
	if !ok {
		// Following many places may have joined pieces at a later place
		// than needed; each piece at its first place decides whether the
		// pieces are in the record's order at all.
		spans, ok = placePassages(f.text, f.title, shownPieces(shown), 1)
	}
	if !ok {
		v.foreign = true
		return v
	}
	for _, sp := range spans {
		v.passages = append(v.passages, f.text[sp[0]:sp[1]])
	}
	if len(spans) == 0 {
		return v
	}
	need := min(minPassageWords, len(strings.Fields(f.text)))
	for _, p := range v.passages {
		if need > 0 && wholeWords(f.text, p) >= need {
			v.words = true
			break
		}
	}
	orig := ns.byID[id].Text
	whole := len(strings.TrimSpace(orig))
	for _, sp := range origSpans(orig, spans) {
		if sp[1]-sp[0] == whole {
			v.tokens += ns.textTokens(id)
		} else {
			v.tokens += ns.count.Count(orig[sp[0]:sp[1]])
		}
	}
	v.enough = v.tokens >= minShownTokens || 2*v.tokens >= ns.textTokens(id)
	return v
}

// placePassages places the pieces in text, each after the end of the
// passage before it, or else in title (which places nothing and ends the
// passage). A piece that follows its passage in text, one space on,
// with no gap marker between, extends it; the passage is followed at up
// to places starts at once, and the first that survives is the one kept.
// It returns the passages as spans of text, and false when a piece is in
// neither.
func placePassages(text, title string, pieces []shownPiece, places int) ([][2]int, bool) {
	var spans [][2]int
	from := 0    // where the text after the last passage begins
	var at []int // where the passage being followed may start
	length := 0  // its length
	end := func() {
		if at != nil {
			spans = append(spans, [2]int{at[0], at[0] + length})
			from, at = at[0]+length, nil
		}
	}
	for _, p := range pieces {
		if p.gap {
			end()
		}
		if at != nil {
			var still []int
			for _, a := range at {
				if e := a + length; e < len(text) && text[e] == ' ' && strings.HasPrefix(text[e+1:], p.text) {
					still = append(still, a)
				}
			}
			if still != nil {
				at, length = still, length+1+len(p.text)
				continue
			}
			end()
		}
		if found := occurrences(text, p.text, from, places); found != nil {
			at, length = found, len(p.text)
		} else if !strings.Contains(title, p.text) {
			return nil, false
		}
	}
	end()
	return spans, true
}

// occurrences returns up to n places of s in text at or after from,
// overlapping ones included; nil if none.
func occurrences(text, s string, from, n int) []int {
	var out []int
	for len(out) < n {
		i := strings.Index(text[from:], s)
		if i < 0 {
			break
		}
		out = append(out, from+i)
		from += i + 1
	}
	return out
}

// wholeWords counts the words of passage p that are whole words of text,
// at the place of p in text where most are (a word cut at either end of
// the passage does not count).
func wholeWords(text, p string) int {
	n := len(strings.Fields(p))
	first, _ := utf8.DecodeRuneInString(p)
	last, _ := utf8.DecodeLastRuneInString(p)
	best := 0
	for _, i := range occurrences(text, p, 0, len(text)+1) {
		k := n
		if before, _ := utf8.DecodeLastRuneInString(text[:i]); isWordRune(first) && isWordRune(before) {
			k--
		}
		if after, _ := utf8.DecodeRuneInString(text[i+len(p):]); isWordRune(last) && isWordRune(after) {
			k--
		}
		if best = max(best, k); best == n {
			break
		}
	}
	return best
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// origSpans maps spans of normWS(text), each starting and ending inside
// a word, onto text itself, so a passage is counted with the record's
// own white space.
func origSpans(text string, spans [][2]int) [][2]int {
	type word struct{ orig, norm int } // where a word starts in text and in the normalised text
	var words []word
	norm, start := 0, -1
	for i, r := range text {
		switch {
		case unicode.IsSpace(r) && start >= 0:
			words = append(words, word{start, norm})
			norm += i - start + 1
			start = -1
		case !unicode.IsSpace(r) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, word{start, norm})
	}
	// toOrig maps a normalised offset inside the word that starts at or
	// before it (after it, for an end: the word it closes).
	toOrig := func(off int, isEnd bool) int {
		k := sort.Search(len(words), func(k int) bool {
			if isEnd {
				return words[k].norm >= off
			}
			return words[k].norm > off
		}) - 1
		return words[k].orig + off - words[k].norm
	}
	out := make([][2]int, len(spans))
	for i, sp := range spans {
		out[i] = [2]int{toOrig(sp[0], false), toOrig(sp[1], true)}
	}
	return out
}
