package store

import (
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
)

// oldRecord is a record without names. Its digest and head bytes were
// taken from the store before aliases and keys existed: a store written
// then must read the same, and the same content must still be unchanged.
func oldRecord() Record {
	r := Record{NS: "novel", ID: "mara", Kind: "character", Title: "Mara Quell", Body: "Keeper.", Summary: "s",
		Tags: []string{"pov"}, Meta: map[string]string{"a": "b"}, Order: 3, Pinned: true}
	r.SHA256 = contentHash(&r)
	return r
}

const (
	oldDigest = "790439d744c0d8ebdae243fec503787326a7d1e7a31b9b69a81e06091afbea87"
	oldHead   = "01096368617261637465720a4d617261205175656c6c01730103706f760101610162060100000020" + oldDigest + "0000"
)

func TestHeadWithoutNamesKeepsFormatV1(t *testing.T) {
	r := oldRecord()
	if r.SHA256 != oldDigest {
		t.Errorf("digest of a record without names = %s; want the digest it had before names existed, %s", r.SHA256, oldDigest)
	}
	if got := hex.EncodeToString(encodeHead(&r)); got != oldHead {
		t.Errorf("head of a record without names =\n %s\nwant the format 1 bytes written before names existed\n %s", got, oldHead)
	}
	b, _ := hex.DecodeString(oldHead)
	got, err := decodeHead("novel", "mara", b)
	if err != nil {
		t.Fatalf("decode an old head: %v", err)
	}
	want := r
	want.Body = ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("old head decodes to\n %+v\nwant\n %+v", got, want)
	}
}

func TestHeadWithNamesRoundTrips(t *testing.T) {
	r := oldRecord()
	r.Aliases = []string{"Mara", "the keeper's girl"}
	r.Keys = []string{"lamp"}
	r.SHA256 = contentHash(&r)
	if r.SHA256 == oldDigest {
		t.Fatal("aliases and keys do not change the digest")
	}
	k := oldRecord()
	k.Keys = r.Aliases // the same names as keys are other content
	if contentHash(&k) == r.SHA256 {
		t.Error("aliases and keys hash alike")
	}
	b := encodeHead(&r)
	if b[0] != formatV2 {
		t.Fatalf("head with names starts with format byte %d; want %d", b[0], formatV2)
	}
	got, err := decodeHead("novel", "mara", b)
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.Body = ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n %+v\nwant\n %+v", got, want)
	}
	if kind, ok := headKind(b); !ok || string(kind) != "character" {
		t.Errorf("headKind of a format 2 head = %q, %v", kind, ok)
	}
	if p, ok := peekHead(b); !ok || !p.pinned || p.order != 3 {
		t.Errorf("peekHead of a format 2 head = %+v, %v", p, ok)
	}
	for n := 1; n < len(b); n++ {
		if _, err := decodeHead("novel", "mara", b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("head cut to %d of %d bytes: err %v; want ErrCorrupt", n, len(b), err)
		}
	}
	for n := 1; n < len(b); n++ {
		if _, err := decodeNames("novel", "mara", b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("decodeNames of a head cut to %d of %d bytes: err %v; want ErrCorrupt", n, len(b), err)
		}
	}
	nm, err := decodeNames("novel", "mara", b)
	if err != nil || nm.Title != r.Title || nm.Kind != r.Kind || nm.Order != r.Order || !reflect.DeepEqual(nm.Aliases, r.Aliases) ||
		!reflect.DeepEqual(nm.Keys, r.Keys) || !reflect.DeepEqual(nm.Meta, r.Meta) || nm.SHA256 != "" || nm.Tokens != nil {
		t.Errorf("decodeNames = %+v, %v; want the names, kind, title, meta and order only", nm, err)
	}
	v, err := decodeVersion("novel", "mara", encodeVersion(&r))
	if err != nil || !reflect.DeepEqual(v.Aliases, r.Aliases) || !reflect.DeepEqual(v.Keys, r.Keys) {
		t.Errorf("version round trip: %+v, %v", v, err)
	}
}
