package facts

import (
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

func rec(id string, meta map[string]string) store.Record {
	return store.Record{NS: "n", ID: id, Meta: meta}
}

// A record's own fields are facts of itself, less its bookkeeping; one
// about another subject states only its fact. keys.
func TestOf(t *testing.T) {
	got := Of(rec("mara", map[string]string{"eyes": "Green", "chapter": "3", "valid_from": "2", "fact.hair_colour": "black"}))
	want := []Fact{{"mara", "eyes", "Green"}, {"mara", "hair colour", "black"}}
	if !slices.Equal(got, want) {
		t.Errorf("self: %v, want %v", got, want)
	}
	got = Of(rec("note-1", map[string]string{"subject": "mara", "eyes": "grey", "fact.eyes": "grey ", "date": "May"}))
	if want := []Fact{{"mara", "eyes", "grey"}}; !slices.Equal(got, want) {
		t.Errorf("about mara: %v, want %v", got, want)
	}
}

func TestOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b map[string]string
		want bool
	}{
		{nil, nil, true},
		{map[string]string{"valid_until": "2026-03-01"}, map[string]string{"valid_from": "2026-03-01"}, false}, // a time's end is exclusive
		{map[string]string{"valid_until": "2026-03-02"}, map[string]string{"valid_from": "2026-03-01"}, true},
		{map[string]string{"valid_until": "8"}, map[string]string{"valid_from": "9"}, false},
		{map[string]string{"until": "9"}, map[string]string{"valid_from": "9"}, true},                // a position's end is inclusive
		{map[string]string{"valid_from": "2026-01-01"}, map[string]string{"valid_until": "3"}, true}, // other axes: open
	} {
		if got := Overlap(rec("a", tc.a), rec("b", tc.b)); got != tc.want {
			t.Errorf("%v and %v: %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// Different values of one attribute of one subject at one time
// contradict; the same value in another case, spans that do not meet,
// or a supersedes link between the two do not.
func TestConflicts(t *testing.T) {
	recs := []store.Record{
		rec("mara", map[string]string{"eyes": "green"}),
		rec("n1", map[string]string{"subject": "mara", "fact.eyes": "Green"}),
		rec("n2", map[string]string{"subject": "mara", "fact.eyes": "grey"}),
		rec("n3", map[string]string{"subject": "mara", "fact.eyes": "blue", "valid_from": "9"}),
		rec("n4", map[string]string{"subject": "mara", "fact.eyes": "brown", "valid_until": "8"}),
	}
	got := Conflicts(recs, func(a, b string) bool { return a == "n3" || b == "n3" })
	var pairs []string
	for _, c := range got {
		pairs = append(pairs, c.A+"/"+c.B)
	}
	want := []string{"mara/n2", "mara/n4", "n1/n2", "n1/n4", "n2/n4"}
	if !slices.Equal(pairs, want) {
		t.Errorf("conflicts %v, want %v", pairs, want)
	}
}

func TestParseTime(t *testing.T) {
	for s, ok := range map[string]bool{"2026-03-01": true, "2026-03-01T09:30:00Z": true, "2026-03-01T09:30:00+02:00": true,
		"2026-03-01T09:30": true, "9": false, "scene-03": false, "March 1": false, "": false, "2026-13-01": false} {
		if _, got := ParseTime(s); got != ok {
			t.Errorf("ParseTime(%q): %v, want %v", s, got, ok)
		}
	}
}

// FuzzNorm: the shortcut for text already normal gives what the full
// normalisation gives.
func FuzzNorm(f *testing.F) {
	for _, s := range []string{"eyes", "Eye colour", "eye_colour", " a  b ", "a\tb", "ünï", "a-b", "x\x00y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		full := strings.Join(strings.Fields(normSpaces.Replace(strings.ToLower(s))), " ")
		if got := norm(s); got != full {
			t.Fatalf("norm(%q) = %q, want %q", s, got, full)
		}
	})
}
