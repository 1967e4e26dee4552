package facts

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lorekeep/lore/store"
)

func TestNegatedClaims(t *testing.T) {
	for _, c := range []struct {
		text     string
		subjects []string // one per claim, in order
		terms    [][]string
	}{
		{"I've never met Raymond at any tech event.", []string{"I"}, [][]string{{"meet", "raymond", "tech", "event"}}},
		{"Mira had never seen the sea.", []string{"Mira"}, [][]string{{"see", "sea"}}},
		{"Captain Voss has never lost a ship, they say.", []string{"Captain Voss"}, [][]string{{"lose", "ship"}}},
		{"user: I have never actually solved a geometric series problem, so help me.", []string{"I"}, [][]string{{"solv", "geometr", "seri", "problem"}}},
		// "never X or Y" denies both; Y takes X's verb when it has none.
		{"I've never worn orthotic insoles or used any foot support.", []string{"I", "I"}, [][]string{{"wear", "orthot", "insol"}, {"us", "foot", "support"}}},
		{"We've never met her parents or any of her family.", []string{"we", "we"}, [][]string{{"meet", "parent"}, {"meet", "famili"}}},
		// Not read: a pronoun, a verb alone, no "never".
		{"She had never seen the sea.", nil, nil},
		{"I never do.", nil, nil},
		{"I always meet Raymond.", nil, nil},
		{"The never-ending story.", nil, nil},
	} {
		got := NegatedClaims(c.text)
		if len(got) != len(c.subjects) {
			t.Errorf("NegatedClaims(%q) = %d claims %+v; want %d", c.text, len(got), got, len(c.subjects))
			continue
		}
		for i, cl := range got {
			if cl.Subject != c.subjects[i] || !slices.Equal(cl.Terms(), c.terms[i]) {
				t.Errorf("NegatedClaims(%q)[%d] = %q %q; want %q %q", c.text, i, cl.Subject, cl.Terms(), c.subjects[i], c.terms[i])
			}
		}
	}
}

func TestAffirmation(t *testing.T) {
	raymond := NegatedClaims("I've never met Raymond at any tech event.")[0]
	sea := NegatedClaims("Mira had never seen the sea.")[0]
	for _, c := range []struct {
		claim Claim
		text  string
		want  bool
	}{
		{raymond, "I met Raymond at the tech event in January.", true},
		{raymond, "Yesterday I finally met Raymond at a tech event downtown!", true},
		{sea, "From the cliff, Mira saw the sea for the first time.", true},
		{sea, "Mira has seen the sea twice.", true},
		// Not affirmed: a wish, a plan, a question, a condition, a negation,
		// another subject, a deed under way or to come, a word missing.
		{raymond, "I want to meet Raymond at the next tech event.", false},
		{raymond, "How can I meet Raymond at a tech event?", false},
		{raymond, "If I met Raymond at a tech event, what would I say?", false},
		{raymond, "I didn't meet Raymond at the tech event.", false},
		{raymond, "My sister met Raymond at a tech event.", false},
		{raymond, "I'm meeting Raymond at the tech event on Sunday.", false},
		{raymond, "I met Raymond at the library.", false},
		{sea, "Tomas saw the sea.", false},
		{sea, "Mira never saw the sea.", false},
	} {
		_, got := Affirmation(c.text, c.claim)
		if got != c.want {
			t.Errorf("Affirmation(%q, never %q) = %v; want %v", c.text, c.claim.Predicate, got, c.want)
		}
	}
}

// Planted claims and affirmations among decoys, in records of two
// speakers and of named characters: every planted pair is found, and no
// decoy is (the precision the flags promise).
func TestTextConflictsPlanted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	things := []string{"the lighthouse", "the salt mines", "the northern pass", "the harbour fair", "the glass tower",
		"the river market", "the old chapel", "the drowned village", "the copper gate", "the winter court"}
	names := []string{"Mira", "Tomas", "Oren", "Sefa", "Ilse"}
	var recs []store.Record
	want := map[[2]string]bool{}
	add := func(id, speaker, body string, meta map[string]string) {
		m := map[string]string{}
		for k, v := range meta {
			m[k] = v
		}
		if speaker != "" {
			m["speaker"] = speaker
		}
		recs = append(recs, store.Record{ID: id, Body: body, Meta: m})
	}
	for i := range 60 {
		thing, name := things[i%len(things)], names[i%len(names)]
		visited := fmt.Sprintf("%s %d", thing, i) // each pair its own place
		switch i % 3 {
		case 0: // the user, first person
			add(fmt.Sprintf("n%02d", i), "user", fmt.Sprintf("Honestly, I've never visited %s, so tell me about it.", visited), nil)
			add(fmt.Sprintf("a%02d", i), "user", fmt.Sprintf("Last spring I visited %s with my cousin.", visited), nil)
		case 1: // a character of a novel
			add(fmt.Sprintf("n%02d", i), "", fmt.Sprintf("%s had never visited %s. The road was long.", name, visited), nil)
			add(fmt.Sprintf("a%02d", i), "", fmt.Sprintf("At dawn %s visited %s and counted the bells.", name, visited), nil)
		case 2: // the same, but the affirmation holds later than the claim: no conflict
			add(fmt.Sprintf("n%02d", i), "", fmt.Sprintf("%s had never visited %s.", name, visited), map[string]string{"valid_until": "10"})
			add(fmt.Sprintf("a%02d", i), "", fmt.Sprintf("%s visited %s at last.", name, visited), map[string]string{"valid_from": "12"})
			continue
		}
		want[[2]string{fmt.Sprintf("n%02d", i), fmt.Sprintf("a%02d", i)}] = true
		// Decoys beside each pair: the assistant affirming the user's
		// claim, another subject, a wish, a question, a pronoun.
		add(fmt.Sprintf("d%02da", i), "assistant", fmt.Sprintf("I visited %s once, it is lovely.", visited), nil)
		add(fmt.Sprintf("d%02db", i), "", fmt.Sprintf("%s visited %s.", names[(i+1)%len(names)], visited), nil)
		add(fmt.Sprintf("d%02dc", i), "user", fmt.Sprintf("I want to visit %s next year.", visited), nil)
		add(fmt.Sprintf("d%02dd", i), "user", fmt.Sprintf("Should I visit %s in May?", visited), nil)
		add(fmt.Sprintf("d%02de", i), "", fmt.Sprintf("She had never visited %s.", visited), nil)
	}
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	got := map[[2]string]bool{}
	for _, c := range TextConflicts(recs, nil) {
		if c.Read != ReadText {
			t.Errorf("conflict %+v: Read %q", c, c.Read)
		}
		got[[2]string{c.A, c.B}] = true
		if !want[[2]string{c.A, c.B}] {
			t.Errorf("false conflict: %s %q against %s %q", c.A, c.AValue, c.B, c.BValue)
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf("planted conflict %s / %s not found", p[0], p[1])
		}
	}
	if len(want) != 40 {
		t.Fatalf("planted %d pairs; the test means 40", len(want))
	}
	// A supersession is a change, not a contradiction.
	if cs := TextConflicts(recs, func(a, b string) bool { return true }); len(cs) != 0 {
		t.Errorf("with every pair superseding, %d conflicts remain", len(cs))
	}
}
