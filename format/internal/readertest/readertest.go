// Package readertest checks what every reader of a file format promises
// of the records and links it gives: what the store would accept. The
// fuzz tests of the jsonl and markdown readers share it.
package readertest

import (
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// CheckRecords asserts what every reader promises about its records.
func CheckRecords(t *testing.T, recs []store.Record) {
	t.Helper()
	for _, r := range recs {
		if err := store.ValidNamespace(r.NS); err != nil {
			t.Fatalf("record %q: %v", r.ID, err)
		}
		if err := store.ValidID(r.ID); err != nil {
			t.Fatalf("record: %v", err)
		}
		texts := []string{r.Kind, r.Title, r.Body, r.Summary}
		texts = append(texts, r.Tags...)
		for k, v := range r.Meta {
			texts = append(texts, k, v)
		}
		for _, s := range texts {
			if !utf8.ValidString(s) {
				t.Fatalf("record %q holds invalid UTF-8 %q", r.ID, s)
			}
		}
	}
}

// CheckLinks asserts every link is one the store would accept.
func CheckLinks(t *testing.T, links []store.Link) {
	t.Helper()
	for _, l := range links {
		if store.ValidNamespace(l.NS) != nil || store.ValidID(l.From) != nil || store.ValidID(l.To) != nil || store.ValidRel(l.Rel) != nil {
			t.Fatalf("invalid link %+v", l)
		}
	}
}
