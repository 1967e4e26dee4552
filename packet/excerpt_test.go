package packet

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// longBody is prose of many lines with needle as one sentence in the
// middle of line at.
func longBody(seed uint64, lines, at int, needle string) string {
	var b strings.Builder
	for i := range lines {
		b.WriteString(fxProse(seed*100+uint64(i), 30))
		if i == at {
			b.WriteString(" " + needle)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// excerptPieces cuts an excerpt at its gap markers, trimmed, empty ones
// left out.
func excerptPieces(text string) []string {
	var out []string
	for _, p := range strings.Split(text, gapMarker) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// checkOwnText fails unless every piece of text is body's own, in body's
// order, none overlapping the one before.
func checkOwnText(t *testing.T, body, text string) {
	t.Helper()
	from := 0
	for _, p := range excerptPieces(text) {
		i := strings.Index(body[from:], p)
		if i < 0 {
			t.Fatalf("piece %q is not the body's own after byte %d:\n%s", p, from, text)
		}
		from += i + len(p)
	}
}

// An excerpt is one stretch of the record's own text around the sentence
// the query matches, marked where text is left out on either side, and
// holding about the size asked.
func TestExcerptIsTheRecordsOwnPassage(t *testing.T) {
	c := fxCounter(t)
	needle := "The ferryman hid the silver key under the third stone of the quay."
	body := longBody(1, 40, 22, needle)
	n := c.Count(body)
	ex, ok := makeExcerpt(body, n, queryTerms("where did the ferryman hide the silver key?"), 100, c)
	if !ok {
		t.Fatalf("no excerpt of a body of %d tokens", n)
	}
	checkOwnText(t, body, ex.text)
	if !strings.Contains(ex.text, needle) {
		t.Errorf("the excerpt lacks the sentence the query matches:\n%s", ex.text)
	}
	if !strings.HasPrefix(ex.text, gapMarker+" ") || !strings.HasSuffix(ex.text, " "+gapMarker) {
		t.Errorf("an excerpt from the middle is not marked at both ends:\n%s", ex.text)
	}
	shown := c.Count(strings.Join(excerptPieces(ex.text), "\n"))
	if shown < 100 || shown > 200 {
		t.Errorf("the excerpt shows %d tokens; want about 100", shown)
	}
	if ex.omitted <= 0 || ex.omitted >= n {
		t.Errorf("omitted %d of %d tokens", ex.omitted, n)
	}
	// The same body and query give the same excerpt.
	again, _ := makeExcerpt(body, n, queryTerms("where did the ferryman hide the silver key?"), 100, c)
	if again != ex {
		t.Errorf("a second excerpt differs:\n%s\n---\n%s", ex.text, again.text)
	}
}

// A body the query does not match opens the excerpt at its start; a
// body not much longer than the excerpt is shown whole.
func TestExcerptUnmatchedAndShortBodies(t *testing.T) {
	c := fxCounter(t)
	body := longBody(2, 30, -1, "")
	ex, ok := makeExcerpt(body, c.Count(body), queryTerms("zeppelin"), 100, c)
	if !ok {
		t.Fatal("no excerpt of an unmatched long body")
	}
	checkOwnText(t, body, ex.text)
	if strings.HasPrefix(ex.text, gapMarker) || !strings.HasPrefix(body, excerptPieces(ex.text)[0]) {
		t.Errorf("an unmatched body's excerpt does not open at its start:\n%s", ex.text)
	}
	short := fxProse(3, 80)
	if _, ok := makeExcerpt(short, c.Count(short), queryTerms("mill"), 100, c); ok {
		t.Errorf("a body of %d tokens got an excerpt of 100", c.Count(short))
	}
}

// excerptStore is a conversation where one long message holds the
// answer among short turns that mention the query's words.
func excerptStore(t *testing.T, needle string) fxEnv {
	ns := "chat"
	var recs []store.Record
	for i := range 12 {
		body := fmt.Sprintf("user: the ferryman and the quay, turn %d. %s", i, fxProse(uint64(i), 12))
		if i == 5 {
			body = "assistant: " + longBody(9, 60, 41, needle)
		}
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("m%02d", i), Kind: "turn", Title: fmt.Sprintf("turn %d", i), Body: body})
	}
	return fxOpen(t, recs, nil, true)
}

// In an agent packet, a long record is shown by the passage the query
// matches, marked as an excerpt with the tokens left out and a handle,
// in every format; the records after it still come in.
func TestAgentPacketShowsExcerpts(t *testing.T) {
	needle := "The ferryman hid the silver key under the third stone of the quay."
	env := excerptStore(t, needle)
	for _, format := range validFormats {
		req := Request{NS: "chat", Query: "where did the ferryman hide the silver key", Budget: 700, Profile: "agent", Format: format}
		p, out := fxBuild(t, env, req)
		e, ok := findEntry(p, "m05")
		if !ok || e.Form != formExcerpt {
			t.Fatalf("%s: m05 is %+v (in: %v); want its excerpt\n%s", format, e.Form, ok, out)
		}
		if !strings.Contains(e.Text, needle) || e.Omitted <= 0 || e.Fetch == "" {
			t.Errorf("%s: excerpt %q, omitted %d, fetch %q", format, e.Text, e.Omitted, e.Fetch)
		}
		if len(p.Records) < 4 {
			t.Errorf("%s: %d records; want the short turns beside the excerpt", format, len(p.Records))
		}
		if got := fxCounter(t).Count(string(out)); got > req.Budget {
			t.Errorf("%s: %d tokens over the budget %d", format, got, req.Budget)
		}
		switch format {
		case "md":
			if !strings.Contains(string(out), "· excerpt") || !strings.Contains(string(out), "Whole records: `lore get --ns chat ID`") {
				t.Errorf("md: the excerpt is not marked, or has no handle:\n%s", out)
			}
		case "json":
			var doc struct {
				Records []Entry `json:"records"`
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range doc.Records {
				found = found || r.ID == "m05" && r.Form == formExcerpt && r.Omitted > 0 && strings.Contains(r.Text, needle)
			}
			if !found {
				t.Errorf("json: no excerpt of m05 with its omitted count:\n%s", out)
			}
		}
	}
}

// Shown whole (no excerpts), the long record does not fit, and the
// records after it in the packet order fill the budget all the same.
func TestLongRecordBlocksNothing(t *testing.T) {
	env := excerptStore(t, "The ferryman hid the silver key under the third stone of the quay.")
	cfg := DefaultConfig()
	agent := cfg.Profiles["agent"]
	agent.Excerpt = 0
	cfg.Profiles["agent"] = agent
	req := Request{NS: "chat", Query: "where did the ferryman hide the silver key", Budget: 700, Profile: "agent", Config: &cfg}
	p, out := fxBuild(t, env, req)
	if _, ok := findEntry(p, "m05"); ok {
		t.Fatalf("m05 whole fits in 700 tokens: the test needs it not to\n%s", out)
	}
	if len(p.Records) < 6 {
		t.Errorf("%d records behind the long one; want the short turns\n%s", len(p.Records), out)
	}
}

// A unit is scored by the terms the index files its words under, also
// where the term is not a prefix of the word: stemmed ("happy" is
// "happi"), short and rewritten ("lady" is "ladi": a prefilter that
// looked for the term in the text passed such lines over), or an
// irregular form of the query's verb ("met" for "meet").
func TestExcerptScoresTermsNotInTheText(t *testing.T) {
	for _, c := range []struct{ line, query string }{
		{"She was happy at the mill.", "Was she happy?"},
		{"The lady sat down by the bank.", "Which lady?"},
		{"We met at the mill.", "Where did we meet?"},
	} {
		body := "The road was long and grey.\n" + c.line + "\nThe river ran on."
		units := scoreUnits(body, queryTerms(c.query))
		if len(units) != 3 || units[1].score <= 0 || units[0].score != 0 || units[2].score != 0 {
			t.Errorf("%q: scores %+v; want the second line alone scored", c.query, units)
		}
	}
}

// Prose wrapped at a width is cut into its sentences, across the lines
// they run over, so an excerpt starts and ends at a sentence; a list
// keeps its lines.
func TestExcerptOfWrappedProseKeepsSentences(t *testing.T) {
	body := "The miller rose early, as he did on every market day, and\n" +
		"went down to the river. \"The water is high,\" he said, and he\n" +
		"looked at the wheel. The ferryman hid the silver key under the\n" +
		"third stone of the quay, where nobody would look for it. Then\n" +
		"the miller went home.\n\n" +
		"- a list item that is one line\n" +
		"- another list item, about the silver key\n"
	units := splitUnits(body)
	var got []string
	for _, u := range units {
		got = append(got, body[u.start:u.end])
	}
	want := []string{
		"The miller rose early, as he did on every market day, and\nwent down to the river.",
		"\"The water is high,\" he said, and he\nlooked at the wheel.",
		"The ferryman hid the silver key under the\nthird stone of the quay, where nobody would look for it.",
		"Then\nthe miller went home.",
		"- a list item that is one line",
		"- another list item, about the silver key",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("units:\n%q\nwant:\n%q", got, want)
	}
	units = scoreUnits(body, queryTerms("where did the ferryman hide the key"))
	if seedUnit(units) != 2 {
		t.Errorf("seed %d; want the ferryman's sentence (2)", seedUnit(units))
	}
	for _, text := range []string{
		"One line only, with no sentence end",
		"1. a numbered list\n2. wrapped over two lines",
		"# A heading\nand the line under it.",
		"    indented code\n    more code",
	} {
		if n := len(splitUnits(text)); n != strings.Count(text, "\n")+1 {
			t.Errorf("%q: %d units; want one a line", text, n)
		}
	}
}

// ferrymanChat is 12 turns of a chat in ns, short ones by short(i),
// but for two long assistant messages: m05, which holds the sentence
// that answers "where did the ferryman hide the silver key" in its 42nd
// line of 60, and m08, which names the ferryman alone.
func ferrymanChat(ns string, short func(i int) string) []store.Record {
	needle := "The ferryman hid the silver key under the third stone of the quay."
	var recs []store.Record
	for i := range 12 {
		body := short(i)
		switch i {
		case 5:
			body = "assistant: " + longBody(9, 60, 41, needle)
		case 8:
			body = "assistant: " + longBody(10, 60, 30, "The ferryman rowed on.")
		}
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("m%02d", i), Kind: "turn", Title: fmt.Sprintf("turn %d", i), Body: body})
	}
	return recs
}

// Where the budget holds every record and room is left, an excerpted
// record is shown whole, the most important first, and at every bigger
// budget too: between the budget that holds every excerpt and the one
// that holds every body, the record the query matches best is whole and
// the other still an excerpt.
func TestExcerptShownWholeWhereRoomIsLeft(t *testing.T) {
	ns := "chat"
	recs := ferrymanChat(ns, func(i int) string {
		return fmt.Sprintf("user: the ferryman and the quay, turn %d. %s", i, fxProse(uint64(i), 12))
	})
	env := fxOpen(t, recs, nil, true)
	build := func(b int) (*Packet, error) {
		return Build(t.Context(), env.st, env.ix, Request{NS: ns, Query: "where did the ferryman hide the silver key", Budget: b,
			Profile: "agent", Counter: fxCounter(t)})
	}
	checkMonotoneForms(t, "two long messages", true, 300, 4000, func(int) int { return 37 }, build)
	seen := false
	for b := 300; b <= 4000 && !seen; b += 37 {
		p, err := build(b)
		if err != nil {
			continue
		}
		m05, ok5 := findEntry(p, "m05")
		m08, ok8 := findEntry(p, "m08")
		if ok5 && ok8 && m05.Form == "full" && m08.Form == formExcerpt {
			seen = true
			if m05.Text != recs[5].Body || m05.Omitted != 0 || m05.Fetch != "" {
				t.Errorf("at %d m05 is full but shows %d of its %d bytes, omitted %d, fetch %q", b, len(m05.Text), len(recs[5].Body), m05.Omitted, m05.Fetch)
			}
			if p.Tokens > b {
				t.Errorf("at %d the packet counts %d", b, p.Tokens)
			}
		}
	}
	if !seen {
		t.Error("no budget shows m05 whole beside m08's excerpt")
	}
}

// A body that matches the question as well in two places far apart is
// shown at both, in its order, with a gap marker before, between and
// after them; one that matches best in one place is shown there alone.
func TestExcerptShowsTwoPlacesThatMatchAlike(t *testing.T) {
	c := fxCounter(t)
	first := "The ferryman hid the silver key under the quay."
	second := "Years later the ferryman found the silver key again."
	var b strings.Builder
	for i := range 40 {
		b.WriteString(fxProse(700+uint64(i), 30))
		switch i {
		case 8:
			b.WriteString(" " + first)
		case 30:
			b.WriteString(" " + second)
		}
		b.WriteString("\n\n")
	}
	body := b.String()
	n := c.Count(body)
	q := queryTerms("ferryman silver key")
	ex, ok := makeExcerpt(body, n, q, 100, c)
	if !ok {
		t.Fatalf("no excerpt of a body of %d tokens", n)
	}
	checkOwnText(t, body, ex.text)
	pieces := excerptPieces(ex.text)
	if len(pieces) != 2 || !strings.Contains(pieces[0], first) || !strings.Contains(pieces[1], second) {
		t.Fatalf("want two passages, the first place's then the second's; got %d:\n%s", len(pieces), ex.text)
	}
	if got := strings.Count(ex.text, gapMarker); got != 3 {
		t.Errorf("%d gap markers; want 3 (before, between, after):\n%s", got, ex.text)
	}
	shown := 0
	for _, p := range pieces {
		shown += c.Count(p)
	}
	if shown < 100 || shown > 200 {
		t.Errorf("the passages hold %d tokens together; want about 100:\n%s", shown, ex.text)
	}
	// Ask for the first place alone: one passage, around it.
	one, ok := makeExcerpt(body, n, queryTerms("where was the silver key hidden under the quay"), 100, c)
	if !ok {
		t.Fatal("no excerpt for the first place's question")
	}
	if pieces := excerptPieces(one.text); len(pieces) != 1 || !strings.Contains(pieces[0], first) {
		t.Errorf("want one passage around the first place:\n%s", one.text)
	}
}

// The lead record (the first in packet order: here the best hit, the
// only one to hold every word of the question) is shown by an excerpt a
// third larger than the profile's, the same at every budget; another
// long record by one of the profile's size.
func TestLeadRecordsExcerptIsLarger(t *testing.T) {
	ns := "chat"
	recs := ferrymanChat(ns, func(i int) string { return fmt.Sprintf("user: a short turn, number %d, about the weather.", i) })
	env := fxOpen(t, recs, nil, true)
	c := fxCounter(t)
	query := "where did the ferryman hide the silver key"
	size := DefaultConfig().Profiles["agent"].Excerpt
	want := func(i, size int) string {
		ex, ok := makeExcerpt(recs[i].Body, c.Count(recs[i].Body), queryTerms(query), size, c)
		if !ok {
			t.Fatalf("m%02d: no excerpt of %d tokens", i, size)
		}
		return ex.text
	}
	lead, other := want(5, leadExcerptSize(size)), want(8, size)
	if lead == want(5, size) {
		t.Fatal("m05's excerpt is the same at both sizes: the test cannot tell them apart")
	}
	// (From about 3,000 tokens m05's rest comes in and it is shown whole.)
	for _, budget := range []int{600, 700, 1000, 1500} {
		p, out := fxBuild(t, env, Request{NS: ns, Query: query, Budget: budget, Profile: "agent", Counter: c})
		if e, ok := findEntry(p, "m05"); !ok || e.Form != formExcerpt || e.Text != lead {
			t.Errorf("at %d m05 (in: %v) is %s of %d tokens; want the excerpt of %d tokens (%d)\n%s", budget, ok, e.Form, c.Count(e.Text), leadExcerptSize(size), c.Count(lead), out)
		}
		if e, ok := findEntry(p, "m08"); !ok || e.Form != formExcerpt || e.Text != other {
			t.Errorf("at %d m08 (in: %v) is %s of %d tokens; want the excerpt of %d tokens (%d)\n%s", budget, ok, e.Form, c.Count(e.Text), size, c.Count(other), out)
		}
	}
}

// FuzzExcerpt: for any body and question an excerpt never fails or
// panics, and where there is one, it is at most two passages of the
// body's own text, in its order.
func FuzzExcerpt(f *testing.F) {
	f.Add(longBody(3, 12, 5, "The ferryman hid the silver key."), "ferryman key", uint8(40))
	f.Add("a.\nb.\n\nc. d. e.\n```\ncode\n```\n- item one\n- item two", "item code", uint8(3))
	f.Add("The key. The key. The key. The key. The key. The key.", "key", uint8(1))
	c := fxCounter(f)
	f.Fuzz(func(t *testing.T, body, query string, size uint8) {
		if !utf8.ValidString(body) || strings.Contains(body, gapMarker) {
			// Stored bodies are UTF-8 (the store refuses others), and a
			// body holding the gap marker itself cannot be cut into its
			// pieces by checkOwnText: neither is an excerpt to judge.
			t.Skip("body not UTF-8, or holds the gap marker")
		}
		n := c.Count(body)
		ex, ok := makeExcerpt(body, n, queryTerms(query), minExcerpt+int(size), c)
		if !ok {
			return
		}
		checkOwnText(t, body, ex.text)
		if pieces := excerptPieces(ex.text); len(pieces) == 0 || len(pieces) > 2 {
			t.Fatalf("%d passages:\n%s", len(pieces), ex.text)
		}
		if ex.tokens != c.Count(ex.text) || ex.omitted < 0 || ex.omitted >= n {
			t.Fatalf("tokens %d (counted %d), omitted %d of %d", ex.tokens, c.Count(ex.text), ex.omitted, n)
		}
	})
}

// newBodies numbers the bodies BenchmarkExcerpt makes new, across its
// runs.
var newBodies int

// BenchmarkExcerpt makes the excerpt of a long message (about 2,400
// tokens of prose, 60 lines) for a question of three words that many of
// its lines hold: what a long-chat packet does for each of its long
// candidates, up to maxExcerpts a packet. "kept": the body's terms are
// kept from a packet before (excerpt_terms.go); "new": a body never
// seen.
func BenchmarkExcerpt(b *testing.B) {
	body := longBody(9, 60, 41, "The ferryman kept the lantern by the harbour wall.")
	counter := fxCounter(b)
	bodyTokens := counter.Count(body)
	q := queryTerms("Where did the ferryman keep the lantern?")
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := makeExcerpt(body, bodyTokens, q, defaultExcerpt, counter); !ok {
				b.Fatal("no excerpt")
			}
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			newBodies++
			if _, ok := makeExcerpt(body+strconv.Itoa(newBodies), bodyTokens, q, defaultExcerpt, counter); !ok {
				b.Fatal("no excerpt")
			}
		}
	})
}

// The excerpts of a packet with many long records are made on every
// core (onCores), each a function of its body and the query: the packet
// is the same, byte for byte, made on one core.
func TestExcerptsTheSameOnOneCore(t *testing.T) {
	needle := "The ferryman hid the silver key under the third stone of the quay."
	var recs []store.Record
	for i := range 3 * minParallelExcerpts {
		body := "assistant: " + longBody(uint64(20+i), 24, i%20, needle)
		recs = append(recs, store.Record{NS: "chat", ID: fmt.Sprintf("m%02d", i), Kind: "turn", Title: fmt.Sprintf("turn %d", i), Body: body})
	}
	env := fxOpen(t, recs, nil, true)
	req := Request{NS: "chat", Query: "where did the ferryman hide the silver key", Budget: 2000, Profile: "agent"}
	build := func(procs int) (*Packet, []byte) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return fxBuild(t, env, req)
	}
	p, many := build(max(2, runtime.GOMAXPROCS(0)))
	excerpts := 0
	for _, e := range p.Records {
		if e.Form == formExcerpt {
			excerpts++
			n, _ := strconv.Atoi(strings.TrimPrefix(e.ID, "m"))
			checkOwnText(t, recs[n].Body, e.Text) // each its own record's
		}
	}
	if excerpts < minParallelExcerpts/2 {
		t.Fatalf("%d excerpts in the packet; want at least %d\n%s", excerpts, minParallelExcerpts/2, many)
	}
	if _, one := build(1); string(one) != string(many) {
		t.Errorf("made on one core, the packet differs:\n%s\n---\n%s", one, many)
	}
}

// onCores calls each index once, on one goroutine or on several, each
// with a state of its own.
func TestOnCoresCallsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 3, 8, 100} {
		for _, procs := range []int{1, 2, 4} {
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				calls := make([]atomic.Int32, n)
				var states atomic.Int32
				onCores(n, 8, func() *int { states.Add(1); return new(int) }, func(i int, s *int) {
					*s++ // a state shared between goroutines would race here
					calls[i].Add(1)
				})
				for i := range calls {
					if c := calls[i].Load(); c != 1 {
						t.Errorf("n %d, %d cores: index %d called %d times", n, procs, i, c)
					}
				}
				if n < 8 && states.Load() != 1 {
					t.Errorf("n %d under the threshold: %d states; want one goroutine's", n, states.Load())
				}
			}()
		}
	}
}

// Fit's re-count renders an excerpted record whole when the rest of its
// body is among the kept (an item that Extends it), before foldUpgrades
// folds the two: else the re-count would count the excerpt and the
// packet it lets through would count over.
func TestRestKeptRendersTheRecordWhole(t *testing.T) {
	env := fxOpen(t, ferrymanChat("long", func(i int) string {
		return fmt.Sprintf("user: the ferryman and the quay, turn %d. %s", i, fxProse(uint64(i), 12))
	}), nil, true)
	req, cfg, err := Request{NS: "long", Query: "where did the ferryman hide the silver key", Budget: 700, Profile: "agent", Counter: fxCounter(t)}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	req.work = &requestWork{}
	bg := startHelpers(t.Context())
	defer bg.stop()
	b, _, err := prepare(t.Context(), bg, env.st, memoized(env.ix), req, cfg)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(b.cands, func(c *candidate) bool { return c.excerpt != nil })
	if i < 0 {
		t.Fatal("no candidate has an excerpt: the test needs one")
	}
	c := b.cands[i]
	form := func(kept []budget.Fitted) Entry {
		t.Helper()
		b.upgraded = nil // as in Fit's renders
		p, err := b.assemble(kept, nil)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := findEntry(p, c.rec.ID)
		if !ok {
			t.Fatalf("%s is not in the packet of %v", c.rec.ID, kept)
		}
		return e
	}
	own := budget.Fitted{Item: budget.Item{ID: c.rec.ID}, Tokens: c.tc.Body}
	if e := form([]budget.Fitted{own}); e.Form != formExcerpt {
		t.Errorf("kept alone, %s is shown as %q; want its excerpt", c.rec.ID, e.Form)
	}
	rest := budget.Fitted{Item: budget.Item{ID: c.rec.ID + upgradeSuffix, Extends: c.rec.ID}, Tokens: 10}
	if e := form([]budget.Fitted{own, rest}); e.Form != formFull.String() || e.Text != c.excerpt.body {
		t.Errorf("with its rest kept, %s is shown as %q (%d bytes); want it whole (%d bytes)", c.rec.ID, e.Form, len(e.Text), len(c.excerpt.body))
	}
}
