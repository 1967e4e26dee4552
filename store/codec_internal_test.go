package store

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// Heads decoded through one interner read as each decodes alone, share
// one copy of a repeated short string, and copy what is long or comes
// once the interner is full.
func TestInternedHeadsDecodeAsAlone(t *testing.T) {
	long := strings.Repeat("a long meta value ", 4)
	in := interner{}
	var kinds []string
	for i := range maxInterned + 40 {
		r := Record{NS: "n", ID: fmt.Sprint("r", i), Kind: "scene", Title: "t", Tags: []string{"draft", fmt.Sprint("tag", i)},
			Meta:   map[string]string{"pov": "mara", "chapter": fmt.Sprint(i), "note": long},
			Tokens: map[string]TokenCount{"o200k_base": {Title: 1, Body: 2}}}
		b := encodeHead(&r)
		alone, err := decodeHead("n", r.ID, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeHeadWith("n", r.ID, b, in)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(alone) {
			t.Fatalf("record %d through the interner:\n%v\nalone:\n%v", i, got, alone)
		}
		kinds = append(kinds, got.Kind)
	}
	if len(in) > maxInterned {
		t.Errorf("the interner holds %d strings; its bound is %d", len(in), maxInterned)
	}
	if _, ok := in[long]; ok {
		t.Errorf("a string of %d bytes was interned (bound %d)", len(long), maxInternedLen)
	}
	if unsafe.StringData(kinds[0]) != unsafe.StringData(kinds[len(kinds)-1]) {
		t.Error("the kinds of the first and last heads are two copies; want one shared")
	}
}
