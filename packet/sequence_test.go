package packet

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// chain returns the neighbours of each id of a "next" chain a, b, c, ...
func chain(ids ...string) hitNeighbors {
	nbs := hitNeighbors{}
	for i, id := range ids {
		if i > 0 {
			nbs[id] = append(nbs[id], store.Neighbor{ID: ids[i-1], Hops: 1, Via: store.Link{From: ids[i-1], Rel: "next", To: id}})
		}
		if i+1 < len(ids) {
			nbs[id] = append(nbs[id], store.Neighbor{ID: ids[i+1], Hops: 1, Via: store.Link{From: id, Rel: "next", To: ids[i+1]}})
		}
	}
	return nbs
}

func tiered(tier int, idScores ...any) []tieredHit {
	var out []tieredHit
	for i := 0; i < len(idScores); i += 2 {
		h := index.Hit{ID: idScores[i].(string), Score: idScores[i+1].(float64)}
		out = append(out, tieredHit{Hit: h, tier: tier, score: h.Score})
	}
	return out
}

func hitIDs(hs []tieredHit) []string {
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

// A weak hit two steps from the best hit overtakes a stronger hit that
// stands alone; records the search did not find add nothing.
func TestSequenceContextRaisesHitsNearStrongOnes(t *testing.T) {
	nbs := chain("t1", "t2", "t3", "t4", "t5")
	hits := tiered(0, "t1", 10.0, "lone", 3.0, "t3", 2.0)
	got := withSequenceContext(hits, nbs, DefaultConfig(), whole, whole)
	if want := []string{"t1", "t3", "lone"}; !slices.Equal(hitIDs(got), want) {
		t.Fatalf("order %v, want %v", hitIDs(got), want)
	}
	// t3 is two steps from t1 (they share t2): 2 + 50% of 10.
	if s := got[1].score; s != 7 {
		t.Errorf("t3 scores %v, want 7 (2 + 0.5 x 10)", s)
	}
	// t1 has no hit beside it or two steps off but t3: 10 + 0.5 x 2.
	if s := got[0].score; s != 11 {
		t.Errorf("t1 scores %v, want 11", s)
	}
	off := DefaultConfig()
	off.ContextShare, off.WindowShare = -1, -1
	if got := withSequenceContext(hits, nbs, off, whole, whole); !slices.Equal(hitIDs(got), []string{"t1", "lone", "t3"}) {
		t.Errorf("with both shares off the search order must stay: %v", hitIDs(got))
	}
}

// Deeper tiers never change the scores or the order of shallower ones,
// and come after them: what makes a bigger budget keep a smaller one's
// packet.
func TestSequenceContextTiersKeepShallowerOrder(t *testing.T) {
	nbs := chain("a", "b", "c", "d", "e", "f", "g")
	shallow := tiered(0, "a", 5.0, "d", 4.0, "g", 1.0)
	deep := append(slices.Clone(shallow), tiered(1, "b", 0.9, "f", 0.8, "c", 0.7)...)
	got1 := withSequenceContext(shallow, nbs, DefaultConfig(), whole, whole)
	got2 := withSequenceContext(deep, nbs, DefaultConfig(), whole, whole)
	if !slices.Equal(hitIDs(got2[:len(got1)]), hitIDs(got1)) {
		t.Fatalf("tier 0 order %v changed to %v by a deeper tier", hitIDs(got1), hitIDs(got2))
	}
	for i := range got1 {
		if got1[i].score != got2[i].score {
			t.Errorf("%s: score %v changed to %v by a deeper tier", got1[i].ID, got1[i].score, got2[i].score)
		}
	}
	for _, h := range got2[len(got1):] {
		if h.tier != 1 {
			t.Errorf("%s (tier %d) sorted among the deeper tier", h.ID, h.tier)
		}
	}
	if got, want := []int{hitTier(0, 320), hitTier(319, 320), hitTier(320, 320), hitTier(1279, 320), hitTier(1280, 320)}, []int{0, 0, 1, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("tiers %v, want %v", got, want)
	}
}

// On a real store: the reply that answers a question ("Last May, with my
// sister") matches one word of it, as does an unrelated turn; the reply
// beside the turn that matches best comes first in the packet.
func TestAgentPacketPrefersTheReplyBesideTheBestHit(t *testing.T) {
	ns := "conv"
	bodies := []string{
		"Ana: I finally visited the old lighthouse on the cape, the one from the postcards.",
		"Ben: No way! When did you go?",
		"Ana: Last May, with my sister. We walked there at dawn.",
		"Ben: My sister moved to the city in spring.",
		"Ana: Did she like her new flat?",
	}
	recs, links := fxTurns(ns, "D1:%d", bodies)
	// A turn far away in another session that shares "sister" too.
	recs = append(recs, store.Record{NS: ns, ID: "D9:1", Kind: "turn", Order: 90, Body: "Ana: My sister says hi."})
	env := fxOpen(t, recs, links, true)
	p, _ := fxBuild(t, env, Request{NS: ns, Query: "When did Ana visit the lighthouse with her sister?", Budget: 2000, Profile: "agent"})
	ids := entryIDs(p)
	at := func(id string) int {
		i := slices.Index(ids, id)
		if i < 0 {
			t.Fatalf("%s missing from the packet: %v", id, ids)
		}
		return i
	}
	if at("D1:3") > at("D9:1") {
		t.Errorf("the answer D1:3 must come before the lone hit D9:1: %v", ids)
	}
}

// Hits that are no sequence's turns (no "next" link among the first
// ones) skip sequence context: their linked records still come as
// neighbours, each right behind the hit that brought it, and a bigger
// budget holds every record a smaller one does.
func TestAgentHitsWithoutSequence(t *testing.T) {
	ns := "graph"
	var recs []store.Record
	var links []store.Link
	for i := range 60 {
		id := fmt.Sprintf("e%02d", i)
		body := fmt.Sprintf("Entity %d keeps notes about the harbour.", i)
		if i%2 == 1 {
			body = fmt.Sprintf("Entity %d grows apples far inland.", i)
		}
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "entity", Title: id, Body: body})
		if i%2 == 0 {
			links = append(links, store.Link{NS: ns, From: id, Rel: "knows", To: fmt.Sprintf("e%02d", i+1)})
		}
	}
	env := fxOpen(t, recs, links, true)
	var prev []string
	for _, budget := range []int{200, 400, 800, 1600} {
		p, _ := fxBuild(t, env, Request{NS: ns, Query: "harbour notes", Budget: budget, Profile: "agent"})
		ids := entryIDs(p)
		for _, id := range prev {
			if !slices.Contains(ids, id) {
				t.Errorf("budget %d lacks %s, which the smaller budget held", budget, id)
			}
		}
		prev = ids
		for _, e := range p.Records {
			if strings.Contains(e.Text, "apples") && !strings.HasPrefix(e.Why, "linked to e") {
				t.Errorf("budget %d: %s (no hit) is in as %q; want a neighbour of the hit that links it", budget, e.ID, e.Why)
			}
		}
	}
	if !slices.Contains(prev, "e01") {
		t.Errorf("at 1,600 tokens, e01 (linked from the hit e00) is missing: %v", prev)
	}
}

// whole is the shortness of a record of any size that counts as short.
func whole(string) float64 { return 1 }

// A long reply that matches the question lifts the short message after
// it (the window and the context share) above hits that match better on
// their own: those keep their places (keepOwnPlaces). Where the same
// records are short, the lift is the same exchange and stands.
func TestSequenceContextLongReplyDoesNotPassOwnBest(t *testing.T) {
	nbs := chain("q1", "r1", "q2", "r2", "q3")
	hits := tiered(0, "r1", 10.0, "f1", 5.0, "f2", 5.0, "f3", 5.0, "f4", 5.0, "f5", 5.0, "s", 3.0, "q2", 1.0)
	longReply := func(f float64) func(string) float64 {
		return func(id string) float64 {
			if strings.HasPrefix(id, "r") {
				return f
			}
			return 1
		}
	}
	got := hitIDs(withSequenceContext(hits, nbs, DefaultConfig(), longReply(0.1), longReply(0.3)))
	if want := []string{"r1", "f1", "f2", "f3", "f4", "f5", "s", "q2"}; !slices.Equal(got, want) {
		t.Errorf("with long replies: order %v, want %v", got, want)
	}
	got = hitIDs(withSequenceContext(hits, nbs, DefaultConfig(), whole, whole))
	if want := []string{"r1", "q2", "f1", "f2", "f3", "f4", "f5", "s"}; !slices.Equal(got, want) {
		t.Errorf("with short records: order %v, want %v", got, want)
	}
}
