package index

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// A body over MaxIndexedBodyBytes is indexed up to the limit: a word
// before it finds the record, a word only after it does not, and the
// word the limit falls inside is not indexed half cut.
func TestBodyIndexCap(t *testing.T) {
	filler := strings.Repeat("harbour stone salt ", MaxIndexedBodyBytes/19+1)
	head := "beacon " + filler
	head = head[:strings.LastIndex(head[:MaxIndexedBodyBytes-8], " ")]
	head += strings.Repeat(" ", MaxIndexedBodyBytes-8-len(head)) // the next word starts 8 bytes before the limit
	body := head + "lighthousekeeper " + strings.Repeat("tide ", 1000) + "zephyr"
	if i := strings.Index(body, "lighthousekeeper"); i >= MaxIndexedBodyBytes || i+len("lighthousekeeper") <= MaxIndexedBodyBytes {
		t.Fatalf("test body: the straddling word is at %d, limit %d", i, MaxIndexedBodyBytes)
	}
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{rec("big", "novel", "scene", "", body), rec("big", "small", "scene", "", "lighthousekeeper zephyr lighthousekeep")}, nil, 1)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"beacon", []string{"big:novel"}},
		{"salt", []string{"big:novel"}},
		{"zephyr", []string{"big:small"}},
		{"lighthousekeeper", []string{"big:small"}},
	} {
		if got := sortedIDs(search(t, ix, Query{NS: "big", Text: tc.text})); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("search %q: %q; want %q", tc.text, got, tc.want)
		}
	}
}

// indexedBody never cuts a character in two and stays within the limit.
func TestIndexedBodyRunes(t *testing.T) {
	body := strings.Repeat("é", MaxIndexedBodyBytes) // 2 bytes each, no white space
	got := indexedBody(body)
	if len(got) > MaxIndexedBodyBytes || len(got) < MaxIndexedBodyBytes-1 || !utf8.ValidString(got) {
		t.Errorf("indexedBody of %d bytes of é: %d bytes, valid UTF-8 %v; want at most %d, whole characters",
			len(body), len(got), utf8.ValidString(got), MaxIndexedBodyBytes)
	}
	if short := "a few words"; indexedBody(short) != short {
		t.Errorf("indexedBody(%q) = %q; want it whole", short, indexedBody(short))
	}
}
