// Package facts reads what records state and when it holds: a record's
// validity in time (meta.valid_from, meta.valid_until: a time or a story
// position) and its structured facts (subject, attribute, value), and
// finds the contradictions between records: two records that state
// different values of one attribute of one subject, both holding at some
// same time, neither superseding the other.
//
// Facts are structured: a record's facts are its meta keys
// "fact.ATTRIBUTE" (e.g. fact.eyes: grey), about the record named by its
// meta.subject, else about itself; and, for a record about itself, its
// other meta keys (a character page's front matter "eyes: green"), less
// those that say something of the record rather than of its subject
// (ReservedMeta).
//
// From free text, one kind of contradiction is read, narrowly, so that a
// flag is seldom a false alarm of the reader's grammar (precision over
// recall): a subject that says it never did something, and another
// record where it plainly did (claims.go, TextConflicts).
package facts

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorekeep/lore/store"
)

// The meta keys of validity and of facts, and the relation of
// supersession.
const (
	MetaValidFrom  = "valid_from"
	MetaValidUntil = "valid_until"
	MetaSubject    = "subject"
	FactPrefix     = "fact."
	RelSupersedes  = "supersedes"
)

// ReservedMeta are the meta keys that describe the record itself (its
// place in the story, its bookkeeping), never a fact of its subject.
var ReservedMeta = []string{
	MetaSubject, MetaValidFrom, MetaValidUntil, "from", "until", "order", "pov", "location", "chapter", "scene",
	"date", "due", "status", "source", "section", "story", "speaker", "session", "turn", "created", "updated",
	"aliases", "keys", "tags", "kind", "title", "id", "summary",
}

// ParseTime reads a validity time: an RFC 3339 time, the same without a
// zone (UTC), or a date (midnight UTC). ok is false for anything else, a
// story position included.
func ParseTime(s string) (t time.Time, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < len("2006-01-02") || s[4] != '-' {
		return time.Time{}, false // a position or an id: never a time
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// FormatTime is how Lore writes a validity time it sets: RFC 3339 in
// UTC, to the second.
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// Fact is one attribute value a record states of a subject.
type Fact struct {
	Subject   string `json:"subject"`
	Attribute string `json:"attribute"`
	Value     string `json:"value"`
}

// Key is what two facts share when they state a value of the same
// attribute of the same subject.
func (f Fact) Key() string { return norm(f.Subject) + "\x00" + f.Attribute }

// Of returns the facts record r states, sorted by attribute.
func Of(r store.Record) []Fact {
	subject := SubjectOf(r)
	self := subject == r.ID
	var out []Fact
	for k, v := range r.Meta {
		attr, explicit := strings.CutPrefix(k, FactPrefix)
		if !explicit && (!self || slices.Contains(ReservedMeta, k)) {
			continue
		}
		attr, v = norm(attr), strings.TrimSpace(v)
		if attr == "" || v == "" {
			continue
		}
		out = append(out, Fact{Subject: subject, Attribute: attr, Value: v})
	}
	slices.SortFunc(out, func(a, b Fact) int { return strings.Compare(a.Attribute, b.Attribute) })
	return out
}

// SubjectOf is the subject of the facts Of reads from r: its meta
// subject, else r itself (its id).
func SubjectOf(r store.Record) string {
	if subject := strings.TrimSpace(r.Meta[MetaSubject]); subject != "" {
		return subject
	}
	return r.ID
}

// SubjectKey is SubjectOf(r) as Key compares it: two records' facts can
// share a Key only where their SubjectKeys are equal.
func SubjectKey(r store.Record) string { return norm(SubjectOf(r)) }

// norm is an attribute or value as compared: lower case, one space
// between words, "_" and "-" read as spaces.
func norm(s string) string {
	if isNorm(s) {
		return s
	}
	s = normSpaces.Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

var normSpaces = strings.NewReplacer("_", " ", "-", " ")

// isNorm reports whether norm would give s back as it is: ASCII without
// upper case, "_" or "-", one space between words and none at the ends.
// Most ids and attributes are, and a packet normalises every
// candidate's subject.
func isNorm(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, 'A' <= c && c <= 'Z', c == '_', c == '-':
			return false
		case c == ' ':
			if i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				return false
			}
		case c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		}
	}
	return true
}

// span is when a record holds, on one axis: a time span [from, until),
// or a story span [from, until]; open where a bound is missing.
type span struct {
	timeFrom, timeUntil *time.Time
	posFrom, posUntil   *int64
}

func spanOf(r store.Record) span {
	var s span
	bound := func(keys []string, t **time.Time, p **int64) {
		for _, k := range keys {
			v := strings.TrimSpace(r.Meta[k])
			if tt, ok := ParseTime(v); ok {
				*t = &tt
			} else if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				*p = &n
			}
		}
	}
	bound([]string{"from", MetaValidFrom}, &s.timeFrom, &s.posFrom)
	bound([]string{"until", MetaValidUntil}, &s.timeUntil, &s.posUntil)
	return s
}

// Overlap reports whether records a and b hold at some same time and
// story position: on each axis both bound, their spans meet; a bound one
// lacks is open.
func Overlap(a, b store.Record) bool {
	sa, sb := spanOf(a), spanOf(b)
	if sa.timeFrom != nil && sb.timeUntil != nil && !sa.timeFrom.Before(*sb.timeUntil) ||
		sb.timeFrom != nil && sa.timeUntil != nil && !sb.timeFrom.Before(*sa.timeUntil) {
		return false
	}
	if sa.posFrom != nil && sb.posUntil != nil && *sa.posFrom > *sb.posUntil ||
		sb.posFrom != nil && sa.posUntil != nil && *sb.posFrom > *sa.posUntil {
		return false
	}
	return true
}

// Conflict is a contradiction: records A and B state different values of
// one attribute of one subject, at some same time.
type Conflict struct {
	Subject   string `json:"subject"`
	Attribute string `json:"attribute"`
	A         string `json:"a"`
	AValue    string `json:"a_value"`
	B         string `json:"b"`
	BValue    string `json:"b_value"`
	// Read is ReadText for a conflict read from free text: A says its
	// subject never did what B says it did (AValue and BValue are the
	// sentence and clause). Empty for structured facts.
	Read string `json:"read,omitempty"`
}

// Conflicts finds the contradictions among recs (heads will do: facts
// live in meta), sorted by subject, attribute, then ids. supersedes
// reports whether one record supersedes the other (either way): such a
// pair is a change, not a contradiction.
func Conflicts(recs []store.Record, supersedes func(a, b string) bool) []Conflict {
	type stated struct {
		rec   int
		value string
	}
	byKey := map[string][]stated{}
	for i, r := range recs {
		for _, f := range Of(r) {
			byKey[f.Key()] = append(byKey[f.Key()], stated{i, f.Value})
		}
	}
	var out []Conflict
	for k, ss := range byKey {
		for i := range ss {
			for j := i + 1; j < len(ss); j++ {
				a, b := recs[ss[i].rec], recs[ss[j].rec]
				if a.ID == b.ID || norm(ss[i].value) == norm(ss[j].value) || !Overlap(a, b) {
					continue
				}
				if supersedes != nil && supersedes(a.ID, b.ID) {
					continue
				}
				subject, attr, _ := strings.Cut(k, "\x00")
				c := Conflict{Subject: subject, Attribute: attr, A: a.ID, AValue: ss[i].value, B: b.ID, BValue: ss[j].value}
				if c.B < c.A {
					c.A, c.B, c.AValue, c.BValue = c.B, c.A, c.BValue, c.AValue
				}
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(x, y Conflict) int {
		return strings.Compare(x.Subject+"\x00"+x.Attribute+"\x00"+x.A+"\x00"+x.B, y.Subject+"\x00"+y.Attribute+"\x00"+y.A+"\x00"+y.B)
	})
	return slices.CompactFunc(out, func(x, y Conflict) bool { return x == y })
}
