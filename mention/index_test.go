package mention

import (
	"reflect"
	"testing"
)

// The index keeps exactly the names NewFor keeps, in their order, so the
// matchers built from either scan alike.
func TestIndexSelectsAsNewFor(t *testing.T) {
	names := append(benchNames(300),
		Name{Text: "", ID: "empty"}, Name{Text: "--", ID: "punct"},
		Name{Text: "Élan Vital", ID: "elan"}, Name{Text: "élan", ID: "elan-key", Via: "key"},
		Name{Text: "İstanbul", ID: "ist"}, Name{Text: "O'Neill", ID: "oneill"},
		Name{Text: "the Needle", ID: "needle"}, Name{Text: "The Needle cliffs", ID: "cliffs"})
	x := NewIndex(names)
	if x.Len() != len(names) {
		t.Fatalf("Len %d; want %d", x.Len(), len(names))
	}
	texts := []string{
		benchText(names),
		"ÉLAN VITAL and élan; İstanbul, O’Neill at the\nNeedle cliffs",
		"",
		"nothing here at all",
	}
	for i, text := range texts {
		var sel []Name
		pos := x.For(text)
		for k, p := range pos {
			if k > 0 && pos[k-1] >= p {
				t.Fatalf("text %d: positions %v not ascending", i, pos)
			}
			sel = append(sel, x.Name(p))
		}
		want := NewFor(names, text)
		got := New(sel)
		if got.Len() != want.Len() {
			t.Errorf("text %d: index keeps %d names, NewFor %d", i, got.Len(), want.Len())
		}
		if g, w := got.Scan(text), want.Scan(text); !reflect.DeepEqual(g, w) {
			t.Errorf("text %d: scans differ:\nindex  %+v\nNewFor %+v", i, g, w)
		}
	}
	if n := len(x.For(texts[1])); n < 5 {
		t.Errorf("the second text keeps %d names; want the six it names (a test that selects nothing proves nothing)", n)
	}
}
