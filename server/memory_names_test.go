package server

import (
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// FuzzEntityName: every name the reference accepts that fits is kept as
// a valid record id and reads back as given, and two names never share
// an id.
func FuzzEntityName(f *testing.F) {
	for _, s := range []string{"", " ", "alice", " padded ", "~", "~a", "~%20", "100%", "a\nb", "\u00a0x\u00a0", "tab\t", "%", "%%41", "a\u202eb", "\u200bx", "\ufeff", "ok\u200d", strings.Repeat("x", 255)} {
		f.Add(s, "~"+s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utfOK(a) || !utfOK(b) {
			return // JSON strings from a client are UTF-8
		}
		ia, erra := entityID(a)
		ib, errb := entityID(b)
		for _, c := range []struct {
			name, id string
			err      error
		}{{a, ia, erra}, {b, ib, errb}} {
			if c.err != nil {
				if len(c.name) < 256/3 {
					t.Fatalf("name %q (%d bytes) refused: %v", c.name, len(c.name), c.err)
				}
				continue
			}
			if err := store.ValidID(c.id); err != nil {
				t.Fatalf("name %q kept as invalid id %q: %v", c.name, c.id, err)
			}
			if strings.ContainsFunc(c.id, store.Invisible) {
				t.Fatalf("name %q kept as id %q, which Put refuses for its invisible character", c.name, c.id)
			}
			if got := unescapedName(c.id); got != c.name {
				t.Fatalf("name %q kept as %q reads back %q", c.name, c.id, got)
			}
		}
		if erra == nil && errb == nil && a != b && ia == ib {
			t.Fatalf("names %q and %q share id %q", a, b, ia)
		}
	})
}

func utfOK(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }
