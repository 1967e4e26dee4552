package lore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// The generated canon (seeded, so the same every run):
//   - 100 characters, each a page whose own fields state 5 attributes
//     (eyes, hair, home, trade, boat): 500 facts;
//   - 1,500 canon notes, each about one character (meta.subject) stating
//     one of its attributes again (fact.ATTRIBUTE), with the page's value
//     in another case or spacing, some bounded in story time: 1,500 facts,
//     2,000 consistent facts in all;
//   - 200 planted contradictions: a note stating another value of one
//     attribute of one character, at a story position its page holds;
//   - decoys that must not be flagged: 100 pairs of notes with different
//     values of "mood" in story spans that do not meet, and 50 pairs with
//     different values where the second supersedes the first.
func TestContradictionsOnAGeneratedCanon(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 200))
	attrs := []string{"eyes", "hair", "home", "trade", "boat"}
	value := func(c, a int) string { return fmt.Sprintf("%s-%d-%d", attrs[a], c, (c*7+a)%5) }
	var recs []store.Record
	var links []store.Link
	ns := "canon"
	for c := range 100 {
		meta := map[string]string{}
		for a := range attrs {
			meta[attrs[a]] = value(c, a)
		}
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("c%03d", c), Kind: "character", Title: fmt.Sprintf("Character %d", c), Body: "A character.", Meta: meta})
	}
	for i := range 1500 {
		c, a := rng.IntN(100), rng.IntN(len(attrs))
		v := value(c, a)
		if i%2 == 0 {
			v = strings.ToUpper(v[:1]) + v[1:] + " "
		}
		meta := map[string]string{"subject": fmt.Sprintf("c%03d", c), "fact." + attrs[a]: v}
		if i%3 == 0 {
			meta["valid_from"] = fmt.Sprint(rng.IntN(20) + 1)
		}
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("note-%04d", i), Kind: "canon", Body: "A note.", Meta: meta})
	}
	planted := map[string]bool{}
	for i := range 200 {
		c, a := i/2, i%len(attrs)
		id := fmt.Sprintf("wrong-%03d", i)
		planted[id] = true
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "canon", Body: "A slip.",
			Meta: map[string]string{"subject": fmt.Sprintf("c%03d", c), "fact." + attrs[a]: "not-" + value(c, a), "valid_from": fmt.Sprint(rng.IntN(30) + 1)}})
	}
	for i := range 100 {
		subject := fmt.Sprintf("c%03d", rng.IntN(100))
		recs = append(recs,
			store.Record{NS: ns, ID: fmt.Sprintf("mood-a-%03d", i), Kind: "canon", Body: "Calm.", Meta: map[string]string{"subject": subject, "fact.mood": "calm", "valid_until": "10"}},
			store.Record{NS: ns, ID: fmt.Sprintf("mood-b-%03d", i), Kind: "canon", Body: "Angry.", Meta: map[string]string{"subject": subject, "fact.mood": "angry", "valid_from": "11"}})
	}
	for i := range 50 {
		subject := fmt.Sprintf("c%03d", i)
		old, nw := fmt.Sprintf("rank-old-%02d", i), fmt.Sprintf("rank-new-%02d", i)
		recs = append(recs,
			store.Record{NS: ns, ID: old, Kind: "canon", Body: "Mate.", Meta: map[string]string{"subject": subject, "fact.rank": "mate"}},
			store.Record{NS: ns, ID: nw, Kind: "canon", Body: "Captain.", Meta: map[string]string{"subject": subject, "fact.rank": "captain"}})
		links = append(links, store.Link{NS: ns, From: nw, Rel: "supersedes", To: old})
	}
	l, _ := openTemp(t)
	if _, err := l.PutMany(context.Background(), recs, links); err != nil {
		t.Fatal(err)
	}
	cs, err := l.Contradictions("")
	if err != nil {
		t.Fatal(err)
	}
	found, falseFlags := map[string]bool{}, 0
	for _, c := range cs {
		switch {
		case planted[c.A]:
			found[c.A] = true
		case planted[c.B]:
			found[c.B] = true
		default:
			falseFlags++
			if falseFlags <= 3 {
				t.Logf("a false flag: %+v", c)
			}
		}
	}
	t.Logf("%d contradictions reported: %d of 200 planted found, %d false", len(cs), len(found), falseFlags)
	if len(found) < 190 || falseFlags > 10 {
		t.Errorf("found %d of 200 planted (want 190 or more), %d false flags (want 10 at most)", len(found), falseFlags)
	}
}

// A packet that holds two records disagreeing marks both in place (the
// subject named in another case is the same subject); a change recorded
// as supersession is not a contradiction.
func TestPacketFlagsContradictions(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	ns := "novel"
	recs := []store.Record{
		{NS: ns, ID: "mara", Kind: "character", Title: "Mara Quell", Body: "Mara keeps the lighthouse.", Meta: map[string]string{"eyes": "green"}},
		{NS: ns, ID: "ch9-eyes", Kind: "canon", Title: "Mara's eyes in chapter nine", Body: "Mara's grey eyes watched the lighthouse.", Meta: map[string]string{"subject": " Mara ", "fact.eyes": "grey"}}, // the subject as a writer types it: Key compares it in lower case
		{NS: ns, ID: "boat-old", Kind: "canon", Title: "Mara's boat", Body: "Mara's lighthouse boat is the Heron.", Meta: map[string]string{"subject": "mara", "fact.boat": "Heron"}},
		{NS: ns, ID: "boat-new", Kind: "canon", Title: "Mara's new boat", Body: "Mara's lighthouse boat is the Wren now.", Meta: map[string]string{"subject": "mara", "fact.boat": "Wren"}},
	}
	if _, err := l.PutMany(ctx, recs, []store.Link{{NS: ns, From: "boat-new", Rel: "supersedes", To: "boat-old"}}); err != nil {
		t.Fatal(err)
	}
	p, err := l.Packet(ctx, packet.Request{NS: ns, Query: "Mara lighthouse eyes boat", Budget: 2000, Profile: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string][]string{}
	for _, e := range p.Records {
		flags[e.ID] = e.Contradicts
	}
	if !slices.Equal(flags["mara"], []string{"ch9-eyes on eyes"}) || !slices.Equal(flags["ch9-eyes"], []string{"mara on eyes"}) {
		t.Errorf("flags %v; want mara and ch9-eyes flagged on eyes", flags)
	}
	if len(flags["boat-old"])+len(flags["boat-new"]) > 0 {
		t.Errorf("a supersession flagged: %v", flags)
	}
	md, err := p.Render("md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), " · contradicts ch9-eyes on eyes") || p.Tokens > p.Budget {
		t.Errorf("md packet (%d of %d tokens) without the flag:\n%s", p.Tokens, p.Budget, md)
	}
	if !strings.Contains(p.Explain(), "contradicts mara on eyes") {
		t.Errorf("--explain without the flag:\n%s", p.Explain())
	}
	cs, err := l.Contradictions(ns)
	if err != nil || len(cs) != 1 || cs[0].A != "ch9-eyes" || cs[0].B != "mara" {
		t.Errorf("contradictions %+v %v; want ch9-eyes and mara", cs, err)
	}
}

// Read from free text: a user who says they never met someone, and said
// before that they met him, is flagged in the agent's packet and by
// Contradictions; the assistant saying it met him is not the user, and a
// wish is not a deed.
func TestTextContradictions(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	ns := "chat"
	turn := func(id, speaker, body string) store.Record {
		return store.Record{NS: ns, ID: id, Kind: "turn", Title: speaker + " turn " + id, Body: speaker + ": " + body, Meta: map[string]string{"speaker": speaker}}
	}
	recs := []store.Record{
		turn("m1", "user", "I met Raymond at the library tech talk in January; he loves phones."),
		turn("m2", "assistant", "Good to hear. I met Raymond at a tech talk too, in a way."),
		turn("m3", "user", "I want to meet Raymond at a tech talk again soon."),
		turn("m4", "user", "I've never met Raymond at any tech talk, but can you suggest a phone he'd like?"),
		turn("m5", "assistant", "Here are three phones for a gamer."),
	}
	var links []store.Link
	for i := 1; i < len(recs); i++ {
		links = append(links, store.Link{NS: ns, From: recs[i-1].ID, Rel: "next", To: recs[i].ID})
	}
	if _, err := l.PutMany(ctx, recs, links); err != nil {
		t.Fatal(err)
	}
	cs, err := l.Contradictions(ns)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].A != "m4" || cs[0].B != "m1" || cs[0].Read != facts.ReadText || cs[0].Subject != "user" {
		t.Fatalf("contradictions %+v; want m4 (never met Raymond) against m1, read from text, of the user", cs)
	}
	p, err := l.Packet(ctx, packet.Request{NS: ns, Query: "Have I ever met Raymond at a tech talk?", Budget: 2000, Profile: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string][]string{}
	for _, e := range p.Records {
		flags[e.ID] = e.Contradicts
	}
	if len(flags["m1"]) != 1 || !strings.HasPrefix(flags["m1"][0], "m4 on never met Raymond") ||
		len(flags["m4"]) != 1 || !strings.HasPrefix(flags["m4"][0], "m1 on never met Raymond") {
		t.Errorf("flags %v; want m1 and m4 flagged against each other", flags)
	}
	for _, id := range []string{"m2", "m3", "m5"} {
		if len(flags[id]) > 0 {
			t.Errorf("%s flagged: %v", id, flags[id])
		}
	}
	// Recorded as a change, it is no longer a contradiction.
	if _, err := l.Link(ctx, store.Link{NS: ns, From: "m4", Rel: "supersedes", To: "m1"}); err != nil {
		t.Fatal(err)
	}
	if cs, err := l.Contradictions(ns); err != nil || len(cs) != 0 {
		t.Errorf("after m4 supersedes m1: %+v %v", cs, err)
	}
}
