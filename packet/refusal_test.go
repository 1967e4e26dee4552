package packet

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/shellwords"
	"github.com/lorekeep/lore/store"
)

// genCanon is a random small novel canon in ns "gen" around ordered
// scenes: characters (some with summaries, some pinned, some with long
// titles), places, canon facts, kin two hops out, obligations, timeline
// entries, and unprotected records of ranks 6 to 10, of sizes from a few
// words to a few thousand; and a configuration that, half the time,
// gives one kind the overflow action fail (and another truncate).
func genCanon(seed uint64) ([]store.Record, []store.Link, *Config) {
	r := rand.New(rand.NewPCG(seed, 37))
	ns := "gen"
	words := func(lo, hi int) int {
		if r.IntN(8) == 0 {
			return 600 + r.IntN(1400) // now and then a long one
		}
		return lo + r.IntN(hi-lo)
	}
	prose := func(k uint64, lo, hi int) string { return fxProse(seed*10000+k, words(lo, hi)) }
	title := func(s string) string {
		if r.IntN(6) == 0 {
			return strings.Repeat(s+" the long-titled ", 40) // a very long title
		}
		return s
	}
	var recs []store.Record
	var links []store.Link
	l := func(from, rel, to string) { links = append(links, store.Link{NS: ns, From: from, Rel: rel, To: to}) }
	nScenes := 2 + r.IntN(3)
	nChars := 1 + r.IntN(4)
	for s := 1; s <= nScenes; s++ {
		id := fmt.Sprintf("scene-%d", s)
		rec := store.Record{NS: ns, ID: id, Kind: "scene", Title: title("Scene " + strconv.Itoa(s)), Order: int64(s * 10),
			Body: prose(uint64(s), 20, 400), Meta: map[string]string{"pov": fmt.Sprintf("char-%d", r.IntN(nChars))}}
		if r.IntN(2) == 0 {
			rec.Summary = prose(uint64(100+s), 4, 20)
		}
		recs = append(recs, rec)
		if s > 1 {
			l(fmt.Sprintf("scene-%d", s-1), "precedes", id)
		}
	}
	for c := range nChars {
		id := fmt.Sprintf("char-%d", c)
		rec := store.Record{NS: ns, ID: id, Kind: "character", Title: title("Character " + strconv.Itoa(c)), Body: prose(uint64(200+c), 10, 300),
			Pinned: r.IntN(7) == 0}
		if r.IntN(3) > 0 {
			rec.Summary = prose(uint64(300+c), 3, 15)
		}
		recs = append(recs, rec)
		l(id, "appears_in", fmt.Sprintf("scene-%d", 1+r.IntN(nScenes)))
		if r.IntN(2) == 0 {
			kin := fmt.Sprintf("kin-%d", c)
			recs = append(recs, store.Record{NS: ns, ID: kin, Kind: "character", Title: "Kin " + kin, Body: prose(uint64(400+c), 10, 200),
				Summary: prose(uint64(500+c), 3, 10)})
			l(kin, "related_to", id)
		}
	}
	for p := range 1 + r.IntN(2) {
		id := fmt.Sprintf("place-%d", p)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "location", Title: title("Place " + strconv.Itoa(p)), Body: prose(uint64(600+p), 10, 250),
			Summary: prose(uint64(700+p), 3, 12)})
		l(fmt.Sprintf("scene-%d", 1+r.IntN(nScenes)), "set_in", id)
	}
	for f := range r.IntN(3) {
		id := fmt.Sprintf("canon-%d", f)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "canon", Title: "Canon " + id, Body: prose(uint64(800+f), 10, 200)})
		l(id, "about", fmt.Sprintf("scene-%d", 1+r.IntN(nScenes)))
	}
	for o := range r.IntN(3) {
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("owed-%d", o), Kind: "obligation", Title: "Owed", Body: prose(uint64(900+o), 10, 120),
			Meta: map[string]string{"due": strconv.Itoa(10 + 10*r.IntN(nScenes+1)), "status": "open"}})
	}
	for tl := range 1 + r.IntN(3) {
		rec := store.Record{NS: ns, ID: fmt.Sprintf("tl-%d", tl), Kind: "timeline", Title: "Timeline", Order: int64(5 + 10*r.IntN(nScenes+1)),
			Body: prose(uint64(1000+tl), 10, 200)}
		if r.IntN(2) == 0 {
			rec.Summary = prose(uint64(1100+tl), 3, 10)
		}
		recs = append(recs, rec)
	}
	for k, kind := range []string{"relationship", "power", "style", "reader-knowledge", "theme"} {
		for j := range r.IntN(3) {
			id := fmt.Sprintf("%s-%d", kind, j)
			recs = append(recs, store.Record{NS: ns, ID: id, Kind: kind, Title: "A " + kind, Body: prose(uint64(1200+10*k+j), 10, 300),
				Pinned: r.IntN(12) == 0})
			switch kind {
			case "relationship":
				l(id, "in_play", fmt.Sprintf("scene-%d", 1+r.IntN(nScenes)))
			case "theme":
				l(id, "evokes", fmt.Sprintf("scene-%d", 1+r.IntN(nScenes)))
			}
		}
	}
	cfg := &Config{}
	if r.IntN(2) == 0 {
		kinds := []string{"theme", "power", "relationship", "canon", "character", "scene"}
		cfg.Overflow = map[string]budget.Action{kinds[r.IntN(len(kinds))]: budget.Fail}
		if r.IntN(2) == 0 {
			cfg.Overflow["style"] = budget.Truncate
		}
	}
	return recs, links, cfg
}

// genRequests are the requests asked of a generated canon: a scene, two
// scenes, a question, and the agent profile's question, at random hops,
// tasks and conditions, in the formats by turn.
func genRequests(seed uint64, recs []store.Record) []Request {
	r := rand.New(rand.NewPCG(seed, 41))
	var scenes []string
	for _, rec := range recs {
		if rec.Kind == "scene" {
			scenes = append(scenes, rec.ID)
		}
	}
	tasks := []string{"", "draft", "plan"}
	when := [][]string{nil, {"power"}, {"power", "info-control", "thematic"}}
	query := func() string { return fxWords[r.IntN(len(fxWords))] + " " + fxWords[r.IntN(len(fxWords))] }
	a, b := r.IntN(len(scenes)), r.IntN(len(scenes)-1)
	if b >= a {
		b++
	}
	reqs := []Request{
		{Focus: []string{scenes[a]}},
		{Focus: []string{scenes[a], scenes[b]}},
		{Query: query()},
		{Query: query(), Profile: "agent"},
	}
	for k := range reqs {
		reqs[k].NS = "gen"
		reqs[k].Format = validFormats[(int(seed)+k)%3]
		if reqs[k].Profile == "" {
			reqs[k].Hops = 1 + r.IntN(2)
			reqs[k].Task = tasks[r.IntN(len(tasks))]
			reqs[k].When = when[r.IntN(len(when))]
		}
		if r.IntN(3) == 0 {
			reqs[k].Scope = "scene"
		}
	}
	return reqs
}

// countWaver is how far a packet's count may waver from one budget to
// the next with the same records in: the stated total, the budget its
// handles quote and the hash of it all tokenize a little differently.
const countWaver = 16

// refusalStats counts what checkRefusal saw.
type refusalStats struct{ refused, written, proposals int }

// checkRefusal builds req and, when it is refused, checks the refusal:
// the least budget it names writes the packet and one token less is
// refused, budgets between the two sampled are refused, and every command
// line of every proposal, read as the CLI reads it and built, is written
// (exit 0 or 2).
func checkRefusal(t *testing.T, env fxEnv, req Request, label string, st *refusalStats) {
	t.Helper()
	ctx := context.Background()
	p, err := Build(ctx, env.st, env.ix, req)
	var se *SplitError
	switch {
	case err == nil:
		st.written++
		if p.Tokens > req.Budget {
			t.Errorf("%s: written in %d tokens, over the budget", label, p.Tokens)
		}
		for _, n := range p.Deferred {
			if req.Config != nil && req.Config.Overflow[n.Kind] == budget.Fail && (n.Action == "dropped" || n.Action == "truncated") {
				t.Errorf("%s: written with %s (kind %s, overflow action fail) %s", label, n.ID, n.Kind, n.Action)
			}
		}
		return
	case !errors.As(err, &se):
		t.Fatalf("%s: %v", label, err)
	}
	st.refused++
	if se.Need <= req.Budget {
		t.Fatalf("%s: refused naming %d, not over the budget: %v", label, se.Need, err)
	}
	at := req
	at.Budget = se.Need
	if q, err := Build(ctx, env.st, env.ix, at); err != nil || q.Tokens > se.Need {
		t.Errorf("%s: refused naming %d, and at %d: %v", label, se.Need, se.Need, err)
	}
	if se.Need-1 > req.Budget {
		at.Budget = se.Need - 1
		if _, err := Build(ctx, env.st, env.ix, at); !errors.Is(err, ErrCannotFit) {
			t.Errorf("%s: refused naming %d, yet one token less is written (%v)\n%s", label, se.Need, err, se.Report())
		}
	}
	// Between the refused budget and the need, the budgets are refused
	// (the property the search rests on), sampled: all but the last few
	// tokens, where a packet's count wavers with the digits of its budget
	// (the stated total, and the handles and hash that quote it).
	for _, frac := range []int{1, 2, 3} {
		mid := req.Budget + (se.Need-req.Budget)*frac/4
		if mid <= req.Budget || mid >= se.Need-countWaver {
			continue
		}
		at.Budget = mid
		if _, err := Build(ctx, env.st, env.ix, at); !errors.Is(err, ErrCannotFit) {
			t.Errorf("%s: refused at %d naming %d, yet written at %d (%v)", label, req.Budget, se.Need, mid, err)
		}
	}
	for _, prop := range se.Proposals {
		lines := proposalLines(prop)
		if len(lines) == 0 {
			t.Errorf("%s: proposal without a command line: %q", label, prop)
		}
		for _, line := range lines {
			st.proposals++
			r := requestOfLine(t, line, req)
			q, err := Build(ctx, env.st, env.ix, r)
			if err != nil {
				t.Errorf("%s: proposed %q is not written: %v\n%s", label, line, err, se.Report())
			} else if q.Tokens > r.Budget {
				t.Errorf("%s: proposed %q counts %d tokens", label, line, q.Tokens)
			}
		}
	}
}

// proposalLines are the command lines of one proposal.
func proposalLines(prop string) []string {
	var lines []string
	for _, l := range strings.Split(prop, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "lore ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// shellWords splits a proposed command line as a user's shell would.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	w, err := shellwords.Split(line)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// requestOfLine is the Request `lore packet` makes of a proposed command
// line, as cmd/lore's flags and lore.ResolveBudget do: lists are one CSV
// record, --budget sets the tokens and --scope the scope (and the tokens
// when no --budget is given), and nothing else is carried over from the
// refused request but what the CLI takes from the store (the
// configuration and the counter).
func requestOfLine(t *testing.T, line string, from Request) Request {
	t.Helper()
	w := shellWords(t, line)
	if len(w) < 2 || w[0] != "lore" || w[1] != "packet" {
		t.Fatalf("proposal line %q is not a lore packet command", line)
	}
	r := Request{Config: from.Config, Counter: from.Counter}
	list := func(v string) []string {
		items, err := csv.NewReader(strings.NewReader(v)).Read()
		if err != nil {
			t.Fatalf("proposal %q: list %q: %v", line, v, err)
		}
		return items
	}
	num := func(v string) int {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("proposal %q: %q is not a number", line, v)
		}
		return n
	}
	budgetGiven, scope := false, ""
	for k := 2; k < len(w); k++ {
		flag, val, hasVal := strings.Cut(w[k], "=")
		if flag == "--" {
			if k+1 < len(w) {
				r.Query = strings.Join(w[k+1:], " ")
			}
			break
		}
		if !strings.HasPrefix(flag, "-") {
			r.Query = w[k]
			continue
		}
		if flag == "--scan-query" {
			r.ScanQuery = true
			continue
		}
		if !hasVal {
			if k+1 == len(w) {
				t.Fatalf("proposal %q: flag %s has no value", line, flag)
			}
			k++
			val = w[k]
		}
		switch flag {
		case "--ns":
			r.NS = val
		case "--focus":
			r.Focus = list(val)
		case "--budget":
			n, err := budget.ParseBudget(val, nil)
			if err != nil {
				t.Fatalf("proposal %q: %v", line, err)
			}
			r.Budget, budgetGiven = n, true
		case "--scope":
			scope = val
		case "--hops":
			r.Hops = num(val)
		case "--mentions-depth":
			r.MentionsDepth = num(val)
		case "--task":
			r.Task = val
		case "--when":
			r.When = list(val)
		case "--as-of":
			r.AsOf = int64(num(val))
		case "--profile":
			r.Profile = val
		case "--kind":
			r.Kinds = list(val)
		case "--exclude-kind":
			r.ExcludeKinds = list(val)
		case "--format":
			r.Format = val
		case "--encoding":
			r.Encoding = val
		default:
			t.Fatalf("proposal %q: %s is not a flag of lore packet", line, flag)
		}
	}
	if scope != "" {
		r.Scope = scope
		scopes := DefaultConfig().Scopes
		if from.Config != nil && from.Config.Scopes != nil {
			scopes = from.Config.Scopes
		}
		n, ok := scopes[scope]
		if !ok {
			t.Fatalf("proposal %q: scope %q is not configured", line, scope)
		}
		if !budgetGiven {
			r.Budget = n
		}
	}
	return r
}

// TestRefusalMinimumIsExact: over generated canons (a real bbolt file
// and bleve index each, the real tokenizer), requests, budgets and the
// three formats, no refusal names a least budget at which the packet is
// refused, nor one under which it is written, no budget between the
// refused one and the need is written, every command line a refusal
// proposes, run, is written, and no packet written drops a record of a
// kind whose overflow action is fail. Fixed seeds; a handful of canons.
func TestRefusalMinimumIsExact(t *testing.T) {
	counter := fxCounter(t)
	var st refusalStats
	seeds := uint64(8)
	if raceEnabled {
		seeds = 3 // every build is many times slower under -race
	}
	for seed := range seeds {
		recs, links, cfg := genCanon(seed)
		env := fxOpen(t, recs, links, true)
		r := rand.New(rand.NewPCG(seed, 43))
		for k, req := range genRequests(seed, recs) {
			req.Config, req.Counter = cfg, counter
			for _, b := range []int{1 + r.IntN(60), 60 + r.IntN(400), 400 + r.IntN(1600), 2000 + r.IntN(6000)} {
				req.Budget = b
				label := fmt.Sprintf("seed %d request %d (focus %v query %q %s hops %d overflow %v) at %d", seed, k, req.Focus, req.Query, req.Format, req.Hops, cfg.Overflow, b)
				checkRefusal(t, env, req, label, &st)
			}
		}
	}
	t.Logf("%d refused, %d written, %d proposed lines run", st.refused, st.written, st.proposals)
	if st.refused < 20 || st.written < 5 || st.proposals < 20 {
		t.Errorf("%d refused, %d written, %d proposed lines: the canons no longer test refusals", st.refused, st.written, st.proposals)
	}
}

// TestRefusalHostileInputs: the same checks as TestRefusalMinimumIsExact
// on a store made to break them: titles of thousands of characters, a
// focus scene and a pinned record each bigger than every budget tried but
// the largest, ids and kinds with commas, quotes, spaces and a leading
// dash (which the proposed command lines must quote as the CLI reads
// them), a query that starts with a dash, and a kind whose overflow
// action is fail holding one huge record.
func TestRefusalHostileInputs(t *testing.T) {
	ns := "hostile"
	long := strings.Repeat("A title that goes on and on, ", 200)
	recs := []store.Record{
		{NS: ns, ID: "-scene, the first", Kind: "scene", Title: long, Order: 10, Body: fxProse(1, 150),
			Meta: map[string]string{"pov": "o'hara \"jr\""}},
		{NS: ns, ID: "big scene", Kind: "scene", Title: "Big", Order: 20, Body: fxProse(2, 9000)},
		{NS: ns, ID: "o'hara \"jr\"", Kind: "character", Title: long, Body: fxProse(3, 200), Summary: "O'Hara, the younger."},
		{NS: ns, ID: "pinned-giant", Kind: "style", Title: "Style", Body: fxProse(4, 3000), Pinned: true},
		{NS: ns, ID: "lore, kept", Kind: "odd kind, with comma", Title: long, Body: fxProse(5, 2500)},
		{NS: ns, ID: "naïve-é", Kind: "location", Title: "Naïve", Body: fxProse(6, 120), Summary: "A place."},
		{NS: ns, ID: "owed", Kind: "obligation", Title: long, Body: fxProse(7, 80), Meta: map[string]string{"due": "15", "status": "open"}},
		{NS: ns, ID: "tl-'5'", Kind: "timeline", Title: "Before", Order: 5, Body: fxProse(8, 60)},
	}
	l := func(from, rel, to string) store.Link { return store.Link{NS: ns, From: from, Rel: rel, To: to} }
	links := []store.Link{
		l("o'hara \"jr\"", "appears_in", "-scene, the first"),
		l("-scene, the first", "set_in", "naïve-é"),
		l("lore, kept", "about", "-scene, the first"),
		l("-scene, the first", "precedes", "big scene"),
	}
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	cfg := &Config{Overflow: map[string]budget.Action{"odd kind, with comma": budget.Fail}}
	requests := []Request{
		{NS: ns, Focus: []string{"-scene, the first"}, Task: "draft", Hops: 2},
		{NS: ns, Focus: []string{"-scene, the first", "big scene"}, Scope: "scene"},
		{NS: ns, Focus: []string{"o'hara \"jr\""}, Kinds: []string{"odd kind, with comma", "scene"}},
		{NS: ns, Query: "-lantern \"ember\" o'hara"},
		{NS: ns, Query: "stone harbour", Profile: "agent"},
	}
	var st refusalStats
	for k, base := range requests {
		for f, format := range validFormats {
			if raceEnabled && f != k%len(validFormats) {
				continue // one format a request under -race
			}
			for _, b := range []int{1, 300, 3000, 12000} {
				req := base
				req.Budget, req.Format, req.Counter, req.Config = b, format, counter, cfg
				if (k+f)%2 == 1 {
					req.Config = nil // and without the fail kind
				}
				checkRefusal(t, env, req, fmt.Sprintf("request %d (%v %q) %s at %d", k, req.Focus, req.Query, format, b), &st)
			}
		}
	}
	t.Logf("%d refused, %d written, %d proposed lines run", st.refused, st.written, st.proposals)
	if st.refused < 10 || st.written < 3 || st.proposals < 10 {
		t.Errorf("%d refused, %d written, %d proposed lines: the store no longer tests refusals", st.refused, st.written, st.proposals)
	}
}

// TestFailContentNeverDropped: a record of a kind whose overflow action is
// fail is never left out of a written packet, in either profile, at any
// budget of a sweep: below the frame (where everything else is deferred),
// where the agent profile's fill leaves it out, and where the floor packet
// stands in for a refusal. Where it cannot be kept, the packet is refused.
func TestFailContentNeverDropped(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	cfg := &Config{Overflow: map[string]budget.Action{"character": budget.Fail, "timeline": budget.Fail}}
	written, refused := 0, 0
	for _, req := range []Request{
		{NS: "novel-a", Query: "mara mill fire", Profile: "agent"},
		{NS: "novel-a", Query: "the letter and the trial"},
		{NS: "novel-a", Focus: []string{"scene-11"}, Task: "plan"},
	} {
		req.Config, req.Counter = cfg, fxCounter(t)
		for b := 20; b <= 3000; b += 53 {
			req.Budget = b
			p, err := Build(context.Background(), env.st, env.ix, req)
			if errors.Is(err, ErrCannotFit) {
				refused++
				continue
			}
			if err != nil {
				t.Fatalf("%v %q at %d: %v", req.Focus, req.Query, b, err)
			}
			written++
			for _, n := range p.Deferred {
				if cfg.Overflow[n.Kind] == budget.Fail && (n.Action == "dropped" || n.Action == "truncated") {
					t.Errorf("%v %q %s at %d: written with %s (kind %s, overflow action fail) %s", req.Focus, req.Query, req.Profile, b, n.ID, n.Kind, n.Action)
				}
			}
		}
	}
	if written < 10 || refused < 10 {
		t.Errorf("%d written, %d refused: the sweep no longer tests both", written, refused)
	}
}
