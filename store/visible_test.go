package store_test

import (
	"fmt"
	"testing"

	"github.com/lorekeep/lore/store"
)

// Ids holding a bidi control, a zero-width space or a BOM are refused by
// Put and Link with the code point named, and nothing is written; the
// joiners U+200C and U+200D stay (emoji and some scripts need them).
func TestInvisibleIDsRefused(t *testing.T) {
	bad := []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200B, 0xFEFF}
	s := newStore(t)
	if _, err := s.Put(store.Record{NS: "a", ID: "plain", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range bad {
		id := "ad" + string(r) + "min"
		_, err := s.Put(store.Record{NS: "a", ID: id, Body: "x"})
		wantErr(t, err, store.ErrInvalid, fmt.Sprintf("id %q", id), fmt.Sprintf("%U", r), "at byte 2")
		_, err = s.Link(store.Link{NS: "a", From: "plain", Rel: "knows", To: id})
		wantErr(t, err, store.ErrInvalid, fmt.Sprintf("link target id %q", id), fmt.Sprintf("%U", r))
		_, err = s.Link(store.Link{NS: "a", From: id, Rel: "knows", To: "plain"})
		wantErr(t, err, store.ErrInvalid, fmt.Sprintf("link source id %q", id), fmt.Sprintf("%U", r))
	}
	if st, _ := s.Stats(""); st.Records != 1 || st.Links != 0 {
		t.Errorf("after refused writes: %d records, %d links; want 1 and 0", st.Records, st.Links)
	}
	for _, id := range []string{"family\u200d", "zw\u200cnj", "👩\u200d👩\u200d👧"} {
		if _, err := s.Put(store.Record{NS: "a", ID: id, Body: "x"}); err != nil {
			t.Errorf("put %q: %v; want the joiner accepted", id, err)
		}
	}
}
