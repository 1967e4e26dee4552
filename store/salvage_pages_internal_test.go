package store

import (
	"encoding/binary"
	"testing"
)

// recordsFromPages on leaf elements as salvage reads them: the newest
// version whose body matches its head's hash wins, a body with no head
// comes back alone under HeadlessKind, two texts for one headless key
// are left (which one is the record's own is not known), a head whose
// body never matches is not taken, and a delete in the change log takes
// out what the walk found.
func TestRecordsFromPages(t *testing.T) {
	head := func(r Record) pageElem {
		r.SHA256 = contentHash(&r)
		r.BodyBytes = len(r.Body)
		return pageElem{k: key(r.NS, r.ID), v: encodeHead(&r)}
	}
	body := func(id, text string) pageElem { return pageElem{k: key("n", id), v: encodeBody(text)} }
	change := func(seq uint64, op Op, id string) pageElem {
		k := binary.BigEndian.AppendUint64(nil, seq)
		return pageElem{k: k, v: encodeChange(op, "n", id)}
	}
	elems := []pageElem{
		head(Record{NS: "n", ID: "a", Kind: "canon", Title: "A", Body: "old a", Version: 1}),
		body("a", "old a"),
		head(Record{NS: "n", ID: "a", Kind: "canon", Title: "A", Body: "new a", Version: 2}),
		body("a", "new a"),
		body("lone", "a body whose head is lost"),
		body("twice", "one text"), body("twice", "another text"),
		head(Record{NS: "n", ID: "nobody", Kind: "canon", Title: "N", Body: "its body is lost", Version: 1}),
		body("nobody", "not its body at all"),
		change(1, OpPut, "walked"), change(2, OpDelete, "walked"), change(3, OpPut, "gone"),
	}
	recs := map[string]Record{string(key("n", "walked")): {NS: "n", ID: "walked", Body: "x", Version: 1}}
	taken, headless, missing := recordsFromPages(elems, nil, recs)
	if a := recs[string(key("n", "a"))]; a.Body != "new a" || a.Kind != "canon" {
		t.Errorf("a: %+v; want version 2, new a", a)
	}
	if l := recs[string(key("n", "lone"))]; l.Kind != HeadlessKind || l.Title != "lone" || l.Body != "a body whose head is lost" {
		t.Errorf("lone: %+v; want its body alone, kind %q", l, HeadlessKind)
	}
	for _, id := range []string{"twice", "nobody", "walked"} {
		if r, ok := recs[string(key("n", id))]; ok {
			t.Errorf("%s taken: %+v", id, r)
		}
	}
	if taken != 2 || headless != 1 || missing != 1 {
		t.Errorf("taken %d, headless %d, missing %d; want 2, 1, 1 (gone)", taken, headless, missing)
	}
}
