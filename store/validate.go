package store

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on names. They keep keys short and leave 0x00 free as the key
// separator (see doc.go).
const (
	maxNamespaceBytes = 128
	maxIDBytes        = 256
	maxRelBytes       = 128
	maxKindBytes      = 128
	maxTagBytes       = 256
	maxNameBytes      = 256 // an alias or a key
)

// DefaultMaxBodyBytes is the largest body Put accepts unless
// Options.MaxBodyBytes says otherwise: 64 MiB.
const DefaultMaxBodyBytes = 64 << 20

// ValidNamespace reports whether ns is a valid namespace: segments of
// [a-z0-9][a-z0-9._-]* joined by "/", at most 128 bytes, no "..".
// The error wraps ErrInvalid and quotes ns.
func ValidNamespace(ns string) error {
	bad := func(why string) error {
		return valuef(ns, "%w: namespace %q %s; want segments of [a-z0-9][a-z0-9._-]* joined by \"/\", at most %d bytes, no \"..\"",
			ErrInvalid, ns, why, maxNamespaceBytes)
	}
	switch {
	case ns == "":
		return bad("is empty")
	case len(ns) > maxNamespaceBytes:
		return bad(fmt.Sprintf("is %d bytes long", len(ns)))
	case strings.Contains(ns, ".."):
		return bad("contains \"..\"")
	}
	for seg := range strings.SplitSeq(ns, "/") {
		if seg == "" {
			return bad("has an empty segment")
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			lowerOrDigit := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
			if lowerOrDigit || i > 0 && (c == '.' || c == '_' || c == '-') {
				continue
			}
			if i == 0 && (c == '.' || c == '_' || c == '-') {
				return bad(fmt.Sprintf("has segment %q starting with %q", seg, c))
			}
			return bad(fmt.Sprintf("contains %q", rune0(seg[i:])))
		}
	}
	return nil
}

// rune0 returns the first rune of s, or the first byte if s is not UTF-8.
func rune0(s string) rune {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size <= 1 {
		return rune(s[0])
	}
	return r
}

// ValidID reports whether id is a valid record id: 1-256 bytes of
// printable UTF-8, no control characters, no leading or trailing space.
// The error wraps ErrInvalid and quotes id.
func ValidID(id string) error {
	return validName("id", id, maxIDBytes)
}

// Invisible reports whether r is a character that changes how an id
// looks without being seen: the bidi embeddings, overrides and isolates
// (U+202A-U+202E, U+2066-U+2069), U+200B ZERO WIDTH SPACE and U+FEFF.
// With them two ids can look the same, or one can look like another, so
// Put and Link refuse them in ids. U+200C and U+200D (joiners, needed in
// some scripts and emoji) stay.
func Invisible(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200B || r == 0xFEFF
}

// visibleID refuses an id holding an Invisible character, naming its code
// point. Only writes check it, so a record stored before the rule can
// still be read, renamed and removed.
func visibleID(what, id string) error {
	for i, r := range id {
		if Invisible(r) {
			return valuef(id, "%w: %s %q has invisible character %U at byte %d (a bidi control, zero-width space or BOM, which makes ids that look alike differ); remove it",
				ErrInvalid, what, id, r, i)
		}
	}
	return nil
}

// validName checks ids, relation names, kinds and tags: printable UTF-8
// without control characters (so 0x00 never occurs in a key part).
func validName(what, s string, max int) error {
	bad := func(why string) error {
		return valuef(s, "%w: %s %q %s; want 1-%d bytes of printable UTF-8 without control characters",
			ErrInvalid, what, s, why, max)
	}
	switch {
	case s == "":
		return bad("is empty")
	case len(s) > max:
		return bad(fmt.Sprintf("is %d bytes long", len(s)))
	case !utf8.ValidString(s):
		return bad("is not valid UTF-8")
	}
	for i, r := range s {
		if unicode.IsControl(r) {
			return bad(fmt.Sprintf("has control character %U at byte %d", r, i))
		}
	}
	if strings.TrimSpace(s) != s {
		return bad("has leading or trailing space")
	}
	return nil
}

// validText checks free text fields: valid UTF-8, any characters.
func validText(what, s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	lo, hi := max(0, i-20), min(len(s), i+20)
	return valuef(s[lo:hi], "%w: %s is not valid UTF-8: bad byte 0x%02x at offset %d in %q", ErrInvalid, what, s[i], i, s[lo:hi])
}

// ValidKind checks a kind by the rule Put applies: 1-128 bytes of
// printable UTF-8, no control characters, no surrounding space. With
// ValidTag and ValidRel it lets importers list every bad input up front.
func ValidKind(kind string) error { return validName("kind", kind, maxKindBytes) }

// ValidTag checks a tag by the rule Put applies (1-256 bytes).
func ValidTag(tag string) error { return validName("tag", tag, maxTagBytes) }

// ValidRel checks a relation name by the rule Link applies (1-128 bytes).
func ValidRel(rel string) error { return validName("relation", rel, maxRelBytes) }

// validRecord checks every field a caller sets. maxBody is the body limit.
func validRecord(r *Record, maxBody int) error {
	if err := ValidNamespace(r.NS); err != nil {
		return err
	}
	if err := ValidID(r.ID); err != nil {
		return err
	}
	if err := visibleID("id", r.ID); err != nil {
		return err
	}
	var errs []error
	if r.Kind != "" {
		if err := validName("kind", r.Kind, maxKindBytes); err != nil {
			errs = append(errs, err)
		}
	}
	if err := validText("title", r.Title); err != nil {
		errs = append(errs, err)
	}
	if err := validText("summary", r.Summary); err != nil {
		errs = append(errs, err)
	}
	if len(r.Body) > maxBody {
		errs = append(errs, fmt.Errorf("%w: record %s/%s: body is %d bytes, more than the limit of %d bytes (Options.MaxBodyBytes; split it into records, or keep it as a file)",
			ErrInvalid, r.NS, r.ID, len(r.Body), maxBody))
	} else if r.Binary && r.Body != "" {
		errs = append(errs, fmt.Errorf("%w: a binary record has no body, but this one has %d bytes", ErrInvalid, len(r.Body)))
	} else if err := validText("body", r.Body); err != nil {
		errs = append(errs, fmt.Errorf("%w (keep files that are not UTF-8 as Binary records without body)", err))
	}
	for _, tag := range r.Tags {
		if err := validName("tag", tag, maxTagBytes); err != nil {
			errs = append(errs, err)
		}
	}
	if err := validVector(r); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, validNames(r.ID, "alias", r.Aliases)...)
	errs = append(errs, validNames(r.ID, "key", r.Keys)...)
	for k, v := range r.Meta {
		if k == "" {
			errs = append(errs, fmt.Errorf("%w: meta has an empty key", ErrInvalid))
		} else if err := validText(fmt.Sprintf("meta key %q", k), k); err != nil {
			errs = append(errs, &valueError{value: k, err: err}) // the message quotes k first
		}
		if err := validText(fmt.Sprintf("meta[%q]", k), v); err != nil {
			errs = append(errs, &valueError{value: k, err: err})
		}
	}
	return sortedJoin(errs)
}

// ValidNames checks the aliases and keys of record id by the rule Put
// applies: each 1-256 bytes of printable UTF-8, no control characters, no
// surrounding space. The error (the first bad name) names the record.
func ValidNames(id string, aliases, keys []string) error {
	errs := append(validNames(id, "alias", aliases), validNames(id, "key", keys)...)
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

// validNames checks the aliases or keys of record id; each error names the
// record, since an empty name is easy to write and hard to find.
func validNames(id, what string, names []string) []error {
	var errs []error
	for _, a := range names {
		if a == "" {
			errs = append(errs, valuef(id, "%w: record %q has an empty %s: give a name, or leave it out", ErrInvalid, id, what))
			continue
		}
		if err := validName(what, a, maxNameBytes); err != nil {
			errs = append(errs, valuef(id, "record %q: %w", id, err))
		}
	}
	return errs
}

// validLink checks a link's namespace, ids and relation.
func validLink(l Link) error {
	if err := ValidNamespace(l.NS); err != nil {
		return err
	}
	if l.ToNS != "" && l.ToNS != l.NS {
		return valuef(l.From, "%w: link %q -%s-> %q points from namespace %q into namespace %q; links stay within one namespace",
			ErrInvalid, l.From, l.Rel, l.To, l.NS, l.ToNS)
	}
	for _, end := range [][2]string{{"link source id", l.From}, {"link target id", l.To}} {
		if err := validName(end[0], end[1], maxIDBytes); err != nil {
			return err
		}
		if err := visibleID(end[0], end[1]); err != nil {
			return err
		}
	}
	if err := validName("relation", l.Rel, maxRelBytes); err != nil {
		return err
	}
	if math.IsNaN(l.Weight) || math.IsInf(l.Weight, 0) {
		return valuef(l.From, "%w: link %q -%s-> %q has weight %v; want a finite number", ErrInvalid, l.From, l.Rel, l.To, l.Weight)
	}
	return nil
}

// sortedJoin joins errs in message order (meta is a map), or returns nil.
func sortedJoin(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	slices.SortStableFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// ValidFields checks a kind, tags and meta keys by the rules Put applies,
// for a reader of a file format that reports a bad line before the put.
func ValidFields(kind string, tags []string, meta map[string]string) error {
	if kind != "" {
		if err := ValidKind(kind); err != nil {
			return err
		}
	}
	for _, t := range tags {
		if err := ValidTag(t); err != nil {
			return err
		}
	}
	if _, ok := meta[""]; ok {
		return fmt.Errorf("%w: meta has an empty key; want non-empty keys", ErrInvalid)
	}
	return nil
}
