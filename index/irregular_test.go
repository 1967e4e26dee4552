package index

import (
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// termOf is the one term text analyses to, or "" when not one.
func termOf(text string) string {
	ts := Terms(text)
	if len(ts) != 1 {
		return ""
	}
	return ts[0].Term
}

// TestIrregularFormsFiledUnderTheirVerb: every past and participle of
// the table is filed under its verb's term, no form's term is another
// verb's (which would chain two verbs into one), and the words left out
// as common words of their own keep their terms.
func TestIrregularFormsFiledUnderTheirVerb(t *testing.T) {
	bases := map[string]string{}
	for _, verb := range strings.Split(irregularForms, "|") {
		forms := strings.Fields(verb)
		bases[termOf(forms[0])] = forms[0]
		for _, f := range forms[1:] {
			if got, want := termOf(f), termOf(forms[0]); got != want || got == "" {
				t.Errorf("%q is filed as %q, want %q as its verb %q is", f, got, want, forms[0])
			}
		}
	}
	for form, base := range irregularTerms() {
		if verb, ok := bases[form]; ok {
			t.Errorf("the irregular term %q (filed as %q) is also the term of the verb %q", form, base, verb)
		}
	}
	for _, w := range []string{"bit", "lay", "rose", "ground", "wound", "bore", "people", "children"} {
		if got := termOf(w); irregularTerms()[got] != "" || got == "" {
			t.Errorf("%q is filed as %q; it is left out of the table", w, got)
		}
	}
	if got, want := termOf("met"), termOf("meet"); got != want {
		t.Errorf("met is filed as %q, meet as %q", got, want)
	}
	for _, w := range []string{"went", "gone"} {
		if got, want := termOf(w), termOf("go"); got != want {
			t.Errorf("%s is filed as %q, go as %q", w, got, want)
		}
	}
	if got := IrregularVerbs()["bought"]; got != "buy" {
		t.Errorf("IrregularVerbs()[bought] = %q, want buy", got)
	}
}

// TestSearchFindsIrregularForms: a query in the present finds the record
// that tells it in the past, and the other way round.
func TestSearchFindsIrregularForms(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{
		rec("ns", "lake", "memory", "", "We met at the lake and she bought a lamp."),
		rec("ns", "tide", "memory", "", "The tide comes in twice a day."),
	}, nil, 2)
	for _, q := range []string{"where did we meet", "what did she buy", "met", "buying lamps"} {
		if got := ids(search(t, ix, Query{NS: "ns", Text: q})); !slices.Equal(got, []string{"ns:lake"}) {
			t.Errorf("search %q: %q, want [ns:lake]", q, got)
		}
	}
}
