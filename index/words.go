package index

import (
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/segment"
)

// wordTokenizer splits text into words exactly as bleve's unicode
// tokenizer does (UAX #29 word boundaries, by blevesearch/segment): the
// same terms, offsets, positions and types, so an index built with one
// answers queries analysed with the other. It is faster on ASCII, where
// the unicode tokenizer's state machine spent a tenth of an ingest's CPU.
//
// ASCII white space always ends a word on both sides and starts the
// segmenter afresh, so text is taken a stretch between white space at a
// time: a stretch of ASCII goes through words.ascii, any other through
// segment itself.
type wordTokenizer struct{}

// The ASCII word-break classes of UAX #29 (Unicode 8.0, as segment's
// tables have them). Every other ASCII byte breaks on both sides.
const (
	wbOther     byte = iota
	wbLetter         // A-Z a-z: ALetter
	wbDigit          // 0-9: Numeric
	wbUnderline      // _: ExtendNumLet
	wbMidLetter      // ':': MidLetter, joins letter to letter
	wbMidNum         // ',' ';': MidNum, joins digit to digit
	wbMidBoth        // full stop (MidNumLet), apostrophe (Single_Quote): join either
	wbSpace          // ASCII white space: ends a stretch
)

var wbClass = func() (c [128]byte) {
	for b := 'A'; b <= 'Z'; b++ {
		c[b], c[b+'a'-'A'] = wbLetter, wbLetter
	}
	for b := '0'; b <= '9'; b++ {
		c[b] = wbDigit
	}
	c['_'] = wbUnderline
	c[':'] = wbMidLetter
	c[','], c[';'] = wbMidNum, wbMidNum
	c['.'], c['\''] = wbMidBoth, wbMidBoth
	for _, b := range " \t\n\v\f\r" {
		c[b] = wbSpace
	}
	return c
}()

func (wordTokenizer) Tokenize(input []byte) analysis.TokenStream {
	if !utf8.Valid(input) {
		// segment stops at the first bad byte; keep its behaviour whole.
		return unicode.NewUnicodeTokenizer().Tokenize(input)
	}
	w := words{in: input, ts: make(analysis.TokenStream, 0, len(input)/5+1), pos: 1}
	w.split()
	return w.ts
}

// split finds the words of w.in, valid UTF-8, and adds each in turn.
func (w *words) split() {
	input := w.in
	for start := 0; start < len(input); {
		end, ascii := start, true
		for end < len(input) && (input[end] >= utf8.RuneSelf || wbClass[input[end]] != wbSpace) {
			ascii = ascii && input[end] < utf8.RuneSelf
			end++
		}
		if ascii {
			w.ascii(start, end)
		} else {
			w.unicode(start, end)
		}
		start = end + 1
	}
}

// words collects the tokens of one input. Tokens are allocated in blocks
// sized by the text left, as bleve's tokenizers do: one allocation for
// all of them would be copied, pointers and all, each time it grew.
//
// With each set, a word goes to each instead, and nothing is allocated
// for it (EachTerm).
type words struct {
	in    []byte
	ts    analysis.TokenStream
	block []analysis.Token
	pos   int
	each  func(start, end int, typ analysis.TokenType)
}

func (w *words) add(start, end int, typ analysis.TokenType) {
	if w.each != nil {
		w.each(start, end, typ)
		return
	}
	if len(w.block) == cap(w.block) {
		w.block = make([]analysis.Token, 0, min(1024, (len(w.in)-start)/5+1))
	}
	w.block = append(w.block, analysis.Token{Term: w.in[start:end], Start: start, End: end, Position: w.pos, Type: typ})
	w.ts = append(w.ts, &w.block[len(w.block)-1])
	w.pos++
}

// ascii adds the words of w.in[start:end], which is ASCII without white
// space. A word is a run of letters, digits and underlines, where a
// middle mark joins the characters either side of it when both are
// letters (colon, full stop, apostrophe) or both are digits (comma,
// semicolon, full stop, apostrophe). A word is numeric when it has a
// digit and no letter.
func (w *words) ascii(start, end int) {
	in := w.in
	for i := start; i < end; {
		if c := wbClass[in[i]]; c != wbLetter && c != wbDigit && c != wbUnderline {
			i++
			continue
		}
		from, letters, digits := i, false, false
	word:
		for ; i < end; i++ {
			switch c := wbClass[in[i]]; c {
			case wbLetter:
				letters = true
			case wbDigit:
				digits = true
			case wbUnderline:
			case wbMidLetter, wbMidNum, wbMidBoth:
				if i+1 == end || !joins(c, wbClass[in[i-1]], wbClass[in[i+1]]) {
					break word
				}
			default:
				break word
			}
		}
		typ := analysis.AlphaNumeric
		if digits && !letters {
			typ = analysis.Numeric
		}
		w.add(from, i, typ)
	}
}

// joins reports whether middle mark mid, between classes before and
// after, stays inside a word (UAX #29 rules WB6, WB7, WB11 and WB12).
func joins(mid, before, after byte) bool {
	if before != after {
		return false
	}
	switch before {
	case wbLetter:
		return mid == wbMidLetter || mid == wbMidBoth
	case wbDigit:
		return mid == wbMidNum || mid == wbMidBoth
	}
	return false
}

// unicode adds the words segment finds in w.in[start:end], typed as
// bleve's unicode tokenizer types them.
func (w *words) unicode(start, end int) {
	s := segment.NewWordSegmenterDirect(w.in[start:end])
	at := start
	for s.Segment() {
		n := len(s.Bytes())
		if s.Type() != segment.None {
			w.add(at, at+n, segmentType(s.Type()))
		}
		at += n
	}
}

func segmentType(t int) analysis.TokenType {
	switch t {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}
