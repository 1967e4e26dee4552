package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/packet"
)

// Records written for these tests: a short turn (under 200 tokens, so it
// needs half its tokens shown) and a long one (it needs 100).
const (
	shortTitle = "Mira session 1 (3 March, 2024)"
	shortText  = "Mira: We finally opened the bakery on Harbour Street last Saturday. " +
		"The first customer was an old fisherman who bought three rye loaves " +
		"and told us stories about the storm of 1987 for an hour."
	longTitle = "Tomas session 2 (9 March, 2024)"
)

// longText is a turn of well over 200 tokens, in sentences that each
// occur once.
var longText = "Tomas: " + strings.Join([]string{
	"The lighthouse on the north cape was built in 1868 from granite quarried on the island itself.",
	"Its first keeper, a widower named Aurelio Brandt, kept a logbook of every ship that passed for thirty-one years.",
	"The lens came from a workshop in Paris and was carried up the cliff path by a team of eleven mules.",
	"In the winter of 1903 the keeper's daughter kept the lamp burning alone for nine nights while he lay ill with fever.",
	"A steamer called the Saint Columba ran aground on the reef below in a gale the following spring, and every passenger was saved.",
	"The light was electrified in 1957, and the last resident keeper left the cape in 1989, when the station became automatic.",
	"Today the keeper's cottage is a small museum with the logbooks, a model of the lens and a collection of postcards from the old ferry line.",
	"Visitors can climb the one hundred and twelve steps to the gallery on summer weekends, weather permitting, and on a clear day they can see the mainland.",
	"The village holds a lantern walk to the cape each October to remember the ships the light guided home.",
}, " ")

func shownFixture(t *testing.T) *evalNS {
	t.Helper()
	cl100k, err := budget.NewCounter("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	ns := loadNamespaces([]evalRecord{
		{Namespace: "bake", ID: "D1:1", Kind: "turn", Title: shortTitle, Text: shortText},
		{Namespace: "bake", ID: "D2:1", Kind: "turn", Title: longTitle, Text: longText},
		{Namespace: "bake", ID: "D2:2", Kind: "turn", Title: "Mira session 2 (9 March, 2024)", Text: "Mira: How lovely!"},
	}, cl100k)["bake"]
	if n := ns.textTokens("D1:1"); n >= 200 {
		t.Fatalf("the short turn has %d tokens; want under 200", n)
	}
	if n := ns.textTokens("D2:1"); n < 200 {
		t.Fatalf("the long turn has %d tokens; want 200 or more", n)
	}
	return ns
}

func TestCheckShown(t *testing.T) {
	ns := shownFixture(t)
	const (
		credited = "credited"
		foreign  = "foreign"
		citation = "citation"
		short    = "short"
	)
	long := strings.SplitAfter(longText, ". ")
	for _, c := range []struct {
		name, id, shown, want string
		passages              int
	}{
		{"whole", "D1:1", shortText, credited, 1},
		{"whole, lines broken elsewhere", "D1:1", strings.ReplaceAll(shortText, ". ", ".\n\n"), credited, 1},
		{"excerpt in order", "D1:1", "Mira: We finally opened the bakery on Harbour Street last Saturday.\n[…]\n" +
			"told us stories about the storm of 1987 for an hour.", credited, 2},
		{"excerpt with the title and inline markers", "D1:1", shortTitle + "\n(...) The first customer was an old fisherman who bought three rye loaves ... " +
			"told us stories about the storm of 1987 for an hour.", credited, 2},
		{"pieces reordered", "D1:1", "told us stories about the storm of 1987 for an hour.\n[…]\n" +
			"Mira: We finally opened the bakery on Harbour Street last Saturday.", foreign, 0},
		{"a piece repeated", "D1:1", "The first customer was an old fisherman\n…\nThe first customer was an old fisherman", foreign, 0},
		{"a note on what was left out", "D1:1", "Mira: We finally opened the bakery on Harbour Street last Saturday.\n[… 30 tokens left out]", foreign, 0},
		{"a summary in other words", "D1:1", "Mira opened a bakery and met a fisherman.", foreign, 0},
		{"title alone", "D1:1", shortTitle, citation, 0},
		{"empty", "D1:1", "", citation, 0},
		{"markers alone", "D1:1", "[…]\n…", citation, 0},
		{"under half the tokens", "D1:1", "The first customer was an old fisherman who bought three rye loaves", short, 1},
		{"no passage of 8 words", "D1:1", "Mira: We finally opened the bakery […] on Harbour Street last Saturday. […] The first customer was an old […] " +
			"fisherman who bought three rye loaves […] and told us stories about […] the storm of 1987 for an hour.", short, 6},
		{"words cut at the ends", "D1:1", "ira: We finally opened the bakery on Harbour Street last Saturday. " +
			"The first customer was an old fisherman who bought three rye loaves and told us stories about the storm of 1987 for an ho", credited, 1},
		{"a long turn by two sentences", "D2:1", long[0] + "\n…\n" + long[3], short, 2},
		{"a long turn by 100 tokens and more", "D2:1", long[0] + long[1] + long[2] + "\n[...]\n" + long[5] + long[6], credited, 2},
		{"a short turn of under 8 words, whole", "D2:2", "Mira: How lovely!", credited, 1},
		{"a short turn of under 8 words, in part", "D2:2", "Mira: How", short, 1},
	} {
		v := ns.checkShown(c.id, c.shown)
		got := credited
		switch {
		case v.foreign:
			got = foreign
		case len(v.passages) == 0:
			got = citation
		case !v.credited():
			got = short
		}
		if got != c.want || len(v.passages) != c.passages {
			t.Errorf("%s: %s with %d passages (%d tokens of %d, words %v); want %s with %d\n%q",
				c.name, got, len(v.passages), v.tokens, ns.textTokens(c.id), v.words, c.want, c.passages, v.passages)
		}
	}
}

// TestCutShown follows a packet through the scorer's cut: costs by the
// text shown, credit by the rules, repeats and unknown ids dropped.
func TestCutShown(t *testing.T) {
	ns := shownFixture(t)
	excerpt := "Tomas: The lighthouse on the north cape was built in 1868 from granite quarried on the island itself.\n[…]"
	entries := []packet.Entry{
		{ID: "D1:1", Form: "full", Text: shortText},
		{ID: "D9:9", Form: "full", Text: "not in the set"},
		{ID: "D2:1", Form: "excerpt", Text: excerpt},
		{ID: "D2:2", Form: "title", Text: "Mira: How lovely!"}, // a title form shows no body, whatever its text
		{ID: "D1:1", Form: "full", Text: shortText},
	}
	q := evalQuery{Evidence: []string{"D1:1", "D2:1"}}
	c := ns.cutShown(entries, 10000, q)
	if !slices.Equal(c.kept, []string{"D1:1", "D2:1", "D2:2"}) || !slices.Equal(c.forms, []string{"full", "excerpt", "title"}) {
		t.Fatalf("kept %v as %v; want D1:1 D2:1 D2:2 as full, excerpt, title", c.kept, c.forms)
	}
	if !slices.Equal(c.credited, []string{"D1:1"}) || !slices.Equal(c.uncredited, []string{"D2:1", "D2:2"}) {
		t.Errorf("credited %v, not %v; want D1:1, not D2:1 D2:2", c.credited, c.uncredited)
	}
	if c.unknown != 1 || c.short != 1 || c.citations != 1 || c.foreign != 0 || c.cut {
		t.Errorf("unknown %d, short %d, citations %d, foreign %d, cut %v; want 1, 1, 1, 0, false", c.unknown, c.short, c.citations, c.foreign, c.cut)
	}
	want := ns.cost["D1:1"] + ns.count.Count(longTitle+"\n"+excerpt) + scorerOverhead + ns.count.Count("Mira session 2 (9 March, 2024)\n") + scorerOverhead
	if c.used != want || ns.cost["D2:1"] <= ns.count.Count(longTitle+"\n"+excerpt)+scorerOverhead {
		t.Errorf("cost %d; want %d: the whole short turn, the excerpt and the title alone", c.used, want)
	}
	if r := recall(c.credited, q.Evidence); r != 0.5 {
		t.Errorf("recall %.2f; want 0.5: the excerpt of the long turn is too short for credit", r)
	}

	// The cut falls before the first record that would pass the budget.
	if c := ns.cutShown(entries, ns.cost["D1:1"]+10, q); !slices.Equal(c.kept, []string{"D1:1"}) || !c.cut {
		t.Errorf("at the cost of D1:1 and 10, kept %v (cut %v); want D1:1 alone, cut", c.kept, c.cut)
	}
}

func TestAnswerRecall(t *testing.T) {
	ns := shownFixture(t)
	nss := map[string]*evalNS{"bake": ns}
	queries := []evalQuery{
		{Namespace: "bake", QID: "rye", Evidence: []string{"D1:1"}, Answer: "Three rye-loaves"},
		{Namespace: "bake", QID: "year", Evidence: []string{"D1:1"}, Answer: 1987.0}, // a JSON number
		{Namespace: "bake", QID: "elsewhere", Evidence: []string{"D2:1"}, Answer: "rye loaves"},
		{Namespace: "bake", QID: "inferred", Evidence: []string{"D1:1"}, Answer: "a good start"},
		{Namespace: "bake", QID: "part of a word", Evidence: []string{"D1:1"}, Answer: "bake"},
		{Namespace: "bake", QID: "none", Evidence: []string{"D1:1"}, Answer: nil},
	}
	markExtractive(nss, queries)
	for i, want := range []bool{true, true, false, false, false, false} {
		if queries[i].extractive != want {
			t.Errorf("%s: extractive %v; want %v", queries[i].QID, queries[i].extractive, want)
		}
	}
	rye, year := queries[0], queries[1]
	if answerRecall(queries[2], true) != nil {
		t.Error("a question that is not extractive has an answer recall")
	}
	if !ns.answerInWhole([]string{"D2:1", "D1:1"}, rye) || ns.answerInWhole([]string{"D2:1"}, rye) {
		t.Error("a whole record: the answer is found only in the turn that holds it")
	}
	for _, c := range []struct {
		name, shown string
		q           evalQuery
		want        bool
	}{
		{"in an excerpt", "an old fisherman who bought three rye loaves and told us\n…", rye, true},
		{"in a short excerpt", "three rye loaves", rye, true},
		{"left out", "Mira: We finally opened the bakery on Harbour Street last Saturday.\n…", rye, false},
		{"across a gap marker", "an old fisherman who bought three\n[…]\nrye loaves and told us stories", rye, false},
		{"across a line break", "an old fisherman who bought three\nrye loaves and told us stories", rye, true},
		{"in foreign text", "an old fisherman who bought three rye loaves\n[…]\nMira: We finally", rye, false},
		{"a number", "told us stories about the storm of 1987 for an hour.", year, true},
		{"a number cut", "told us stories about the storm of 198", year, false},
	} {
		e := []packet.Entry{{ID: "D1:1", Form: "excerpt", Text: c.shown}}
		if got := ns.cutShown(e, 10000, c.q).answer; got != c.want {
			t.Errorf("%s: answer found %v; want %v", c.name, got, c.want)
		}
	}
	if c := ns.cutShown([]packet.Entry{{ID: "D2:1", Form: "full", Text: longText}, {ID: "D1:1", Form: "full", Text: shortText}}, 10000, rye); !c.answer {
		t.Error("records shown whole: the answer in the second is not found")
	}
}
