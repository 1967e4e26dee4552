package budget

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeMaximalSubparts(t *testing.T) {
	const R = "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain ascii", "plain ascii"},
		{"héllo 中文 😀", "héllo 中文 😀"},
		// The example of Unicode 15.0 section 3.9, table 3-8 and after.
		{"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "a" + R + R + R + "b" + R + "c" + R + R + "d"},
		{"hi \xF0\x9F\x98 ok", "hi " + R + " ok"}, // truncated emoji: one
		{"\xF0\x9F\x98", R},                       // truncated at the end
		{"\xE0\x80\x80", R + R + R},               // overlong: E0 needs A0..BF
		{"\xC0\xAF", R + R},                       // C0 never starts a sequence
		{"\xED\xA0\x80", R + R + R},               // surrogate: ED needs 80..9F
		{"\xF4\x90\x80\x80", R + R + R + R},       // above U+10FFFF
		{"\xF5\x80", R + R},
		{"\xFF\xFE", R + R},
		{"\xE2\x82", R},
		{"\xE2\x82\xAC\xE2\x82", "€" + R},
		{"a\x80\x80\x80b", "a" + R + R + R + "b"},
		{"\xF0\x90\x80\xF0\x9F\x98\x80", R + "😀"},
	} {
		got := sanitize(tc.in)
		if got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a", "\xff", "\xF0\x9F\x98", "héllo", "\xE0\x80\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := sanitize(s)
		if !utf8.ValidString(got) {
			t.Fatalf("sanitize(%q) = %q, not valid UTF-8", s, got)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("sanitize changed valid %q to %q", s, got)
		}
		// Every U+FFFD replaces at least one byte, and the valid runes
		// are kept in order: dropping U+FFFD from both sides agrees with
		// Go's per-byte decoding, which replaces at least as often.
		if n, m := strings.Count(got, "\uFFFD"), strings.Count(strings.ToValidUTF8(s, "\uFFFD"), "\uFFFD"); n < m {
			t.Fatalf("sanitize(%q) has %d replacements, fewer than the %d runs of bad bytes", s, n, m)
		}
		if strings.ReplaceAll(got, "\uFFFD", "") != strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\uFFFD", "") {
			t.Fatalf("sanitize(%q) = %q changed the valid text", s, got)
		}
	})
}

func TestCountSanitizes(t *testing.T) {
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(t, enc)
		// One U+FFFD for a truncated emoji, as in the reference (g201).
		if got, want := c.Count("hi \xF0\x9F\x98 ok"), c.Count("hi \uFFFD ok"); got != want {
			t.Errorf("%s: Count of a truncated emoji = %d, want %d (one U+FFFD)", enc, got, want)
		}
		if got, want := c.Encode("\xff"), c.Encode("\uFFFD"); !equalInts(got, want) {
			t.Errorf("%s: Encode(\\xff) = %v, want %v", enc, got, want)
		}
	}
}
