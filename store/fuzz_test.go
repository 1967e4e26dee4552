package store

import (
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

func seedRecord() Record {
	r := Record{NS: "n", ID: "x", Kind: "scene", Title: "T", Body: "body", Summary: "s",
		Tags: []string{"a", "b"}, Meta: map[string]string{"k": "v", "pov": "mara"}, Order: -3, Pinned: true,
		Created: time.Unix(1, 2).UTC(), Updated: time.Unix(3, 4).UTC(), Version: 7, BodyBytes: 4,
		Tokens: map[string]TokenCount{"o200k_base": {1, 2, 3}}}
	r.SHA256 = contentHash(&r)
	return r
}

// FuzzDecode feeds arbitrary bytes to every value decoder: they must
// return a value or ErrCorrupt, never panic, and a decoded head must
// encode and decode to the same record.
func FuzzDecode(f *testing.F) {
	r := seedRecord()
	f.Add(encodeHead(&r))
	f.Add(encodeVersion(&r))
	f.Add(encodeChange(OpLink, "n", "x"))
	f.Add(encodeLinkValue(0.5, 7))
	f.Add(encodeLinkValue(0.5, 7)[:9])
	f.Add(encodeBody("b"))
	f.Add([]byte{})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(what string, err error) {
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("%s(%x): %v; want ErrCorrupt", what, b, err)
			}
		}
		h, err := decodeHead("n", "x", b)
		check("decodeHead", err)
		if err == nil {
			again, err := decodeHead("n", "x", encodeHead(&h))
			if err != nil {
				t.Fatalf("re-decode of %+v: %v", h, err)
			}
			if encodeString(&again) != encodeString(&h) {
				t.Fatalf("head round trip changed %+v to %+v", h, again)
			}
		}
		_, err = decodeVersion("n", "x", b)
		check("decodeVersion", err)
		_, err = decodeChange(1, b)
		check("decodeChange", err)
		_, err = decodeWeight(b)
		check("decodeWeight", err)
		_, err = decodeBody(b)
		check("decodeBody", err)
		_, err = splitKey(b, 4)
		check("splitKey", err)
	})
}

func encodeString(r *Record) string { return string(encodeHead(r)) }

func TestCodecRoundTrip(t *testing.T) {
	r := seedRecord()
	h, err := decodeHead("n", "x", encodeHead(&r))
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.Body = ""
	if encodeString(&h) != encodeString(&want) || h.SHA256 != r.SHA256 || !h.Created.Equal(r.Created) || h.Order != -3 || !h.Pinned {
		t.Errorf("head round trip: got %+v want %+v", h, want)
	}
	v, err := decodeVersion("n", "x", encodeVersion(&r))
	if err != nil || v.Body != "body" || v.Version != 7 {
		t.Errorf("version round trip: %+v, %v", v, err)
	}
	c, err := decodeChange(5, encodeChange(OpDelete, "a/b", "id"))
	if err != nil || c != (Change{5, OpDelete, "a/b", "id"}) {
		t.Errorf("change round trip: %+v, %v", c, err)
	}
	for _, bad := range [][]byte{nil, {2}, {1, 9, 0, 0}, append(encodeChange(OpPut, "n", "x"), 0)} {
		if _, err := decodeChange(1, bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("decodeChange(%x) = %v; want ErrCorrupt", bad, err)
		}
	}
	if _, err := decodeHead("n", "x", []byte{2}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("format byte 2: %v; want ErrCorrupt", err)
	}
}

// hexString is hex.EncodeToString.
func TestHexString(t *testing.T) {
	for _, b := range [][]byte{nil, {0}, {0x0f, 0xf0, 0xab}, []byte("a sha256 is thirty-two bytes...")} {
		if got, want := hexString(b), hex.EncodeToString(b); got != want {
			t.Errorf("hexString(%x) = %q; want %q", b, got, want)
		}
	}
}
