package index

import (
	"strings"
	"testing"
)

// FuzzSplitText: no quote survives into words or phrases, and every other
// non-space character of the input is kept, in order.
func FuzzSplitText(f *testing.F) {
	for _, s := range []string{"", `a "b c" d`, `"`, `""`, `"x`, `a"b"c"d`, "\"\u00e9\" \t\n", `"  "`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, phrases := splitText(s)
		if strings.Contains(words, `"`) {
			t.Fatalf("splitText(%q): words %q hold a quote", s, words)
		}
		for _, p := range phrases {
			if p == "" || strings.Contains(p, `"`) || strings.TrimSpace(p) != p {
				t.Fatalf("splitText(%q): bad phrase %q", s, p)
			}
		}
		kept := strings.Join(strings.Fields(words), "") + strings.Join(strings.Fields(strings.Join(phrases, " ")), "")
		all := strings.Join(strings.Fields(strings.ReplaceAll(s, `"`, " ")), "")
		if len(kept) != len(all) {
			t.Fatalf("splitText(%q) = %q, %q: kept %d bytes of %d", s, words, phrases, len(kept), len(all))
		}
	})
}

// FuzzDocID: keys that checkKey accepts round-trip through the document id.
func FuzzDocID(f *testing.F) {
	f.Add("novel", "mara")
	f.Add("a/b", "id with spaces")
	f.Add("", "x")
	f.Add("n", "a\x00b")
	f.Fuzz(func(t *testing.T, ns, id string) {
		if checkKey(ns, id) != nil {
			return
		}
		gotNS, gotID, ok := parseDocID(docID(ns, id))
		if !ok || gotNS != ns || gotID != id {
			t.Fatalf("parseDocID(docID(%q, %q)) = %q, %q, %v", ns, id, gotNS, gotID, ok)
		}
	})
}
