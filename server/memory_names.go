package server

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// The reference memory server takes any string as an entity name, an
// entity type or a relation type: empty, padded with spaces, holding a
// line break. A record id, kind and relation name cannot hold those
// (store.ValidID), so such a value is kept escaped, reversibly: "~", then
// the value with '%', control characters and the white space at its ends
// written as %XX bytes (" padded " is "~%20padded%20", "" is "~"). A
// value that is already valid and does not start with "~" is kept as it
// is, so the mapping is one to one, and what reads back is the value
// given. Only a value too long once escaped (an id over 256 bytes, a kind
// or relation over 128) cannot be kept.
const nameMark = "~"

// escapedName returns the stored form of value under valid, or an error
// saying why it cannot be stored: what names the value, as a stores it,
// max is its limit in bytes.
func escapedName(value string, valid func(string) error, what, as string, max int) (string, error) {
	if valid(value) == nil && !strings.HasPrefix(value, nameMark) && !strings.ContainsFunc(value, store.Invisible) {
		return value, nil
	}
	esc := nameMark + escapeEnds(value)
	if valid(esc) != nil {
		return "", fmt.Errorf("the %s is %d bytes long (%d as Lore keeps it): a Lore %s holds at most %d bytes",
			what, len(value), len(esc), as, max)
	}
	return esc, nil
}

// unescapedName reverses escapedName.
func unescapedName(stored string) string {
	rest, ok := strings.CutPrefix(stored, nameMark)
	if !ok {
		return stored
	}
	var b strings.Builder
	for i := 0; i < len(rest); i++ {
		if rest[i] == '%' && i+2 < len(rest) && isHex(rest[i+1]) && isHex(rest[i+2]) {
			b.WriteByte(unhex(rest[i+1])<<4 | unhex(rest[i+2]))
			i += 2
			continue
		}
		b.WriteByte(rest[i])
	}
	return b.String()
}

// escapeEnds writes '%', control characters, store.Invisible ones
// (refused in ids) and white space at either
// end of s as %XX.
func escapeEnds(s string) string {
	first := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	last := len(strings.TrimRightFunc(s, unicode.IsSpace))
	var b strings.Builder
	for i, r := range s {
		n := utf8.RuneLen(r)
		if n < 0 {
			n = 1
		}
		if r == '%' || unicode.IsControl(r) || store.Invisible(r) || i < first || i >= last || r == utf8.RuneError {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
			continue
		}
		b.WriteString(s[i : i+n])
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}

// entityID is the record id of an entity name.
func entityID(name string) (string, error) {
	return escapedName(name, store.ValidID, "name", "record id", 256)
}

// entityKind is the record kind of an entity type ("" stays "").
func entityKind(typ string) (string, error) {
	if typ == "" {
		return "", nil
	}
	return escapedName(typ, store.ValidKind, "entity type", "record kind", 128)
}

// linkRel is the relation name of a relation type.
func linkRel(typ string) (string, error) {
	return escapedName(typ, store.ValidRel, "relation type", "relation name", 128)
}
