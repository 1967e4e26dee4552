package jsonl

import (
	"bytes"
	"testing"

	"github.com/lorekeep/lore/format/internal/readertest"
)

// Seeds beyond these live in testdata/fuzz/<FuzzName>/; inputs that ever
// broke an invariant are kept there too.

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","kind":"scene","body":"x","links":[{"rel":"r","to":"b","weight":1.5}]}`,
		`{"link":{"ns":"n","from":"a","rel":"r","to":"b"}}`,
		"{\"id\":\"a\"}\n\n{\"id\":\"a\"}\r\n{\"ns\":\"x/y\",\"id\":\"b\",\"tags\":[],\"meta\":{}}",
		`{"id":"a","created":"bogus","version":"x","tokens":[1]}`,
		`{"id":"\u0000"}`,
		"{\"id\":\"a\",\"body\":\"\xff\"}",
		`{"id":"a","links":[{"ns":"other","rel":"r","to":"b"}]}`,
		`[1,2]`, `null`, `{"id":"a"} trailing`, `{"id":1e999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, links, errs := Read(bytes.NewReader(data), "fuzz.jsonl", "n")
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range errs {
			if e.File != "fuzz.jsonl" || e.Line < 1 || e.Line > lines || e.Err == nil {
				t.Fatalf("error %+v: want file fuzz.jsonl, a line in 1..%d and a cause", e, lines)
			}
		}
		readertest.CheckRecords(t, recs)
		readertest.CheckLinks(t, links)

		// Write, read, write: the second read is clean and the bytes agree.
		var w1 bytes.Buffer
		if err := Write(&w1, recs, links); err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
		recs2, links2, errs2 := Read(bytes.NewReader(w1.Bytes()), "again", "")
		if len(errs2) != 0 {
			t.Fatalf("reading our own export: %v\n%s", errs2, w1.Bytes())
		}
		if len(recs2) != len(recs) || len(links2) != len(links) {
			t.Fatalf("round trip: %d records %d links, then %d and %d", len(recs), len(links), len(recs2), len(links2))
		}
		var w2 bytes.Buffer
		if err := Write(&w2, recs2, links2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("export is not stable:\n%s\nvs\n%s", w1.Bytes(), w2.Bytes())
		}
	})
}
