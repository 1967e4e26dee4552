package facts

import (
	"slices"
	"strings"

	"github.com/lorekeep/lore/store"
)

// ReadText marks a Conflict read from free text (Claim, Affirmation)
// rather than from structured facts.
const ReadText = "text"

// TextConflicts finds, among recs (with their bodies), each record whose
// text says its subject never did something (NegatedClaims) and each
// other record whose text says the subject did it (ClaimConflict).
// Sorted by A, then B; one conflict a pair.
func TextConflicts(recs []store.Record, supersedes func(a, b string) bool) []Conflict {
	var out []Conflict
	for _, a := range recs {
		for _, c := range NegatedClaims(a.Body) {
			for _, b := range recs {
				if cf, ok := ClaimConflict(a, c, b, supersedes); ok {
					out = append(out, cf)
				}
			}
		}
	}
	return SortTextConflicts(out)
}

// ClaimConflict reports whether record b's text affirms claim c of
// record a (Affirmation), making a conflict: b is another record, of the
// same speaker for a first-person claim (meta.speaker; two records
// without one are one author's), holding at some same time as a
// (Overlap), and neither supersedes the other. The claiming record is A,
// with the sentence that claims; B, with the clause that affirms.
func ClaimConflict(a store.Record, c Claim, b store.Record, supersedes func(a, b string) bool) (Conflict, bool) {
	if b.ID == a.ID || c.FirstPerson() && b.Meta["speaker"] != a.Meta["speaker"] || !c.MayAffirm(b.Body) {
		return Conflict{}, false
	}
	clause, ok := Affirmation(b.Body, c)
	if !ok || !Overlap(a, b) || supersedes != nil && supersedes(a.ID, b.ID) {
		return Conflict{}, false
	}
	subject := c.Subject
	if c.FirstPerson() && a.Meta["speaker"] != "" {
		subject = a.Meta["speaker"]
	}
	return Conflict{Subject: subject, Attribute: "never " + shorten(c.Predicate, 8),
		A: a.ID, AValue: shorten(c.Sentence, 30), B: b.ID, BValue: shorten(clause, 30), Read: ReadText}, true
}

// SortTextConflicts sorts conflicts read from text by A, then B, then
// attribute, keeping one a pair.
func SortTextConflicts(cs []Conflict) []Conflict {
	slices.SortFunc(cs, func(x, y Conflict) int {
		return strings.Compare(x.A+"\x00"+x.B+"\x00"+x.Attribute, y.A+"\x00"+y.B+"\x00"+y.Attribute)
	})
	return slices.CompactFunc(cs, func(x, y Conflict) bool { return x.A == y.A && x.B == y.B })
}

// shorten keeps the first n words of s, marking a cut with "…".
func shorten(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " ")
	}
	return strings.Join(f[:n], " ") + " …"
}
