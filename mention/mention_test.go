package mention

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func names(pairs ...string) []Name {
	var out []Name
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Name{Text: pairs[i], ID: pairs[i+1], Via: "alias"})
	}
	return out
}

// found renders the matches as "text=id,id" strings.
func found(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text+"="+strings.Join(m.IDs(), ","))
	}
	return out
}

func TestScan(t *testing.T) {
	m := New(names(
		"the Needle", "reef",
		"the Needle cliffs", "cliffs",
		"Sefa", "sefa",
		"Sefa Dunmore", "sefa",
		"Binding", "power-binding",
		"saltlight", "saltlight",
		"O'Neill", "oneill",
		"Ærø", "island",
		"Dr. Vance", "vance",
		"!!!", "nothing",
		"", "empty",
	))
	if m.Len() != 9 {
		t.Errorf("Len = %d; want 9 (the names without a word are left out)", m.Len())
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Sefa climbed past the Needle at dusk.", []string{"Sefa=sefa", "the Needle=reef"}},
		{"She stood on the Needle cliffs.", []string{"the Needle cliffs=cliffs"}}, // longest first
		{"Sefa Dunmore, of the Admiralty.", []string{"Sefa Dunmore=sefa"}},
		{"The Needle showed at half tide.", []string{"The Needle=reef"}}, // a first word folds
		{"the needle and thread", nil},                                   // a capitalised name is not a common word
		{"the Needles, the Needled", nil},                                // never inside another word
		{"Sefas and unSefa and Sefa_x", nil},
		{"The binding held.", nil},
		{"The Binding held; THE BINDING held.", []string{"Binding=power-binding", "BINDING=power-binding"}},
		{"Saltlight burns; so does saltlight.", []string{"Saltlight=saltlight", "saltlight=saltlight"}},
		{"the\n  Needle", []string{"the\n  Needle=reef"}}, // any white space between words
		{"the, Needle", nil}, // not a comma
		{"O’Neill came; ONeill did not.", []string{"O’Neill=oneill"}},
		{"Sefa's chart", []string{"Sefa=sefa"}},
		{"ærø and Ærø and Ærøskøbing", []string{"Ærø=island"}},
		{"Dr. Vance and Dr Vance", []string{"Dr. Vance=vance"}},
		{"", nil},
	} {
		if got := found(m.Scan(tc.text)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Scan(%q) = %q; want %q", tc.text, got, tc.want)
		}
	}
}

func TestScanOffsetsAndAmbiguity(t *testing.T) {
	m := New([]Name{
		{Text: "the Light", ID: "lighthouse", Via: "alias"},
		{Text: "the Light", ID: "lamp", Via: "alias"},
		{Text: "the light", ID: "lamp", Via: "key"},
	})
	text := "At dusk, the Light."
	ms := m.Scan(text)
	if len(ms) != 1 {
		t.Fatalf("Scan = %+v; want one match", ms)
	}
	mt := ms[0]
	if text[mt.Start:mt.End] != "the Light" || mt.Text != "the Light" {
		t.Errorf("match at %d:%d = %q", mt.Start, mt.End, mt.Text)
	}
	want := []Name{{"the Light", "lamp", "alias"}, {"the light", "lamp", "key"}, {"the Light", "lighthouse", "alias"}}
	if !reflect.DeepEqual(mt.Names, want) {
		t.Errorf("names = %+v; want %+v", mt.Names, want)
	}
	if got := mt.IDs(); !reflect.DeepEqual(got, []string{"lamp", "lighthouse"}) {
		t.Errorf("IDs = %q", got)
	}
	// The lower-case key alone matches lower-case text.
	if got := found(m.Scan("by the light of it")); !reflect.DeepEqual(got, []string{"the light=lamp"}) {
		t.Errorf("Scan = %q", got)
	}
}

func TestScanLongestBacksOff(t *testing.T) {
	// "the Needle cliffs" is in the trie, but the text stops short of it:
	// the scan keeps the shorter name it passed.
	m := New(names("the Needle", "reef", "the Needle cliffs path", "path"))
	if got := found(m.Scan("the Needle cliffs are steep")); !reflect.DeepEqual(got, []string{"the Needle=reef"}) {
		t.Errorf("Scan = %q", got)
	}
	// Overlapping names: the leftmost wins, then the scan resumes after it.
	m = New(names("Vessel Point", "town", "Point Light", "light"))
	if got := found(m.Scan("Vessel Point Light")); !reflect.DeepEqual(got, []string{"Vessel Point=town"}) {
		t.Errorf("Scan = %q", got)
	}
}

func TestScanEmptyMatcher(t *testing.T) {
	if ms := New(nil).Scan("anything at all"); ms != nil {
		t.Errorf("Scan with no names = %+v", ms)
	}
}

func FuzzScan(f *testing.F) {
	f.Add("the Needle", "Sefa climbed past the Needle at dusk")
	f.Add("Ærø", "ærø Ærø")
	f.Add("Saltmarsh Port", "the port of Saltmarsh; SALTMARSH\nport")
	f.Fuzz(func(t *testing.T, name, text string) {
		m := New([]Name{{Text: name, ID: "x"}})
		if a, b := found(m.Scan(text)), found(NewFor([]Name{{Text: name, ID: "x"}}, text).Scan(text)); !reflect.DeepEqual(a, b) {
			t.Fatalf("name %q in %q: New finds %q, NewFor %q", name, text, a, b)
		}
		names := []Name{{Text: name, ID: "x"}, {Text: "the " + name, ID: "y"}}
		if a, b := Select(names, text), NewIndex(names).For(text); !reflect.DeepEqual(a, b) {
			t.Fatalf("names %q in %q: Select keeps %v, Index.For %v", names, text, a, b)
		}
		last := 0
		for _, mt := range m.Scan(text) {
			if mt.Start < last || mt.End <= mt.Start || mt.End > len(text) || text[mt.Start:mt.End] != mt.Text {
				t.Fatalf("bad match %+v in %q (previous end %d)", mt, text, last)
			}
			last = mt.End
		}
	})
}

func ExampleMatcher_Scan() {
	m := New([]Name{
		{Text: "Sefa", ID: "sefa", Via: "alias"},
		{Text: "The Needle", ID: "canon-needle-reef", Via: "title"},
		{Text: "Binding", ID: "power-binding", Via: "title"},
	})
	for _, mt := range m.Scan("Sefa climbed past the Needle; the binding held.") {
		fmt.Printf("%q -> %s\n", mt.Text, mt.IDs())
	}
	// Output:
	// "Sefa" -> [sefa]
	// "the Needle" -> [canon-needle-reef]
}

// TestNewForFindsWhatNewFinds checks the filtered matcher on the
// benchmark's namespace and scene, and on the cases above.
func TestNewForFindsWhatNewFinds(t *testing.T) {
	names := benchNames(2000)
	text := benchText(names)
	all, some := New(names), NewFor(names, text)
	if some.Len() >= all.Len() || some.Len() == 0 {
		t.Errorf("NewFor kept %d of %d names; want fewer, not none", some.Len(), all.Len())
	}
	if a, b := found(all.Scan(text)), found(some.Scan(text)); !reflect.DeepEqual(a, b) || len(a) < 50 {
		t.Errorf("NewFor finds %d matches, New %d; want the same (and many)", len(b), len(a))
	}
	for _, text := range []string{"ÆRØ and ærø", "The Binding; THE BINDING", "İstanbul, istanbul"} {
		ns := names[:10:10]
		ns = append(ns, Name{Text: "Ærø", ID: "island"}, Name{Text: "Binding", ID: "b"}, Name{Text: "İstanbul", ID: "city"})
		if a, b := found(New(ns).Scan(text)), found(NewFor(ns, text).Scan(text)); !reflect.DeepEqual(a, b) {
			t.Errorf("Scan(%q): New %q, NewFor %q", text, a, b)
		}
	}
}

// A name whose words a text holds only apart cannot match there: Select
// and the index leave it out, and keep the names whose words it holds in
// a row, across a line break and whatever their case.
func TestSelectNeedsWordsInARow(t *testing.T) {
	ns := []Name{
		{Text: "Saltmarsh Port", ID: "port"}, {Text: "the Old Mill", ID: "mill"},
		{Text: "Mill", ID: "m"}, {Text: "old", ID: "o"}, {Text: "Port Port", ID: "pp"},
	}
	text := "The port of Saltmarsh stood by the mill; the old\nMill burned."
	if got := Select(ns, text); !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("Select = %v; want [1 2 3] (not the names whose words are apart)", got)
	}
	if got := NewIndex(ns).For(text); !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("Index.For = %v; want [1 2 3]", got)
	}
	if a, b := found(New(ns).Scan(text)), found(NewFor(ns, text).Scan(text)); !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Errorf("New finds %q, NewFor %q; want the same two matches (\"old\" is not \"Old\")", a, b)
	}
}

// A name written with a capital on every word matches in any case where
// that names one record; a name with a word in lower case keeps its
// capitals, and so does a one-word name.
func TestScanTitledNamesFold(t *testing.T) {
	m := New([]Name{
		{Text: "The Matron", ID: "matron", Via: "title"},
		{Text: "Mrs. Van Der Luyden", ID: "vdl", Via: "title"},
		{Text: "The Twins", ID: "ada", Via: "alias"},
		{Text: "The Twins", ID: "bea", Via: "alias"},
		{Text: "the Needle", ID: "reef", Via: "alias"},
		{Text: "Binding", ID: "power", Via: "title"},
	})
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"and the matron said no", []string{"the matron=matron"}},
		{"THE MATRON", []string{"THE MATRON=matron"}},
		{"Mrs. van der Luyden smiled.", []string{"Mrs. van der Luyden=vdl"}},
		{"the twins ran", nil},                           // folded, it names two records: none
		{"The Twins ran", []string{"The Twins=ada,bea"}}, // with its capitals: ambiguous, as ever
		{"the needle and thread", nil},                   // "the" in lower case: Needle keeps its capital
		{"the binding held", nil},                        // one word keeps its capital
		{"the matronly air", nil},                        // never inside another word
		{"matron", nil},                                  // not the whole name
		{"The Matron and the matron", []string{"The Matron=matron", "the matron=matron"}},
	} {
		if got := found(m.Scan(tc.text)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Scan(%q) = %q; want %q", tc.text, got, tc.want)
		}
	}
}
