package packet

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// BenchmarkBuildMentions builds a scene packet in a namespace of 10,000
// characters with 3 aliases each (and a title), the scene 5,000 words
// that name about a hundred of them, unlinked: "mentions" is the novel
// profile; "no-mentions" the same profile without its mention rules, the
// baseline from the same run. The difference is what mentions cost a
// cold packet: listing every head, building the matcher, scanning.
func BenchmarkBuildMentions(b *testing.B) {
	const ns, n = "big", 10000
	rng := rand.New(rand.NewPCG(3, 3))
	syl := []string{"ka", "ro", "vel", "an", "mi", "dor", "sa", "lin", "tu", "wen", "es", "bra"}
	word := func(k int) string {
		var s strings.Builder
		for range k {
			s.WriteString(syl[rng.IntN(len(syl))])
		}
		t := s.String()
		return strings.ToUpper(t[:1]) + t[1:]
	}
	seen := map[string]bool{}
	fresh := func(f func() string) string { // aliases unique, so none is ambiguous
		for {
			if a := f(); !seen[strings.ToLower(a)] {
				seen[strings.ToLower(a)] = true
				return a
			}
		}
	}
	recs := make([]store.Record, 0, n+1)
	var said []string
	for i := range n {
		r := store.Record{NS: ns, ID: fmt.Sprintf("c-%05d", i), Kind: "character", Title: word(2) + " " + word(3),
			Aliases: []string{fresh(func() string { return word(4) }), fresh(func() string { return "the " + word(4) }),
				fresh(func() string { return word(3) + " of " + word(2) })}, Body: "A character of the coast."}
		recs = append(recs, r)
		if i%100 == 0 {
			said = append(said, r.Aliases[i%3], r.Title)
		}
	}
	var scene strings.Builder
	common := strings.Fields("the a of and to in she he it was at by on with her his light sea rock said stood under")
	for i := range 5000 {
		if i > 0 {
			scene.WriteByte(' ')
		}
		if i%50 == 0 {
			scene.WriteString(said[(i/50)%len(said)])
			continue
		}
		scene.WriteString(strings.ToLower(common[rng.IntN(len(common))]))
	}
	recs = append(recs, store.Record{NS: ns, ID: "scene", Kind: "scene", Order: 1, Body: scene.String()})
	env := fxOpen(b, recs, nil, true)
	plain := DefaultConfig()
	novel := plain.Profiles["novel"]
	novel.Rules = slices.DeleteFunc(slices.Clone(novel.Rules), func(r Rule) bool { return r.Match == MatchMention1 || r.Match == MatchMention })
	plain.Profiles = map[string]Profile{"novel": novel, "agent": plain.Profiles["agent"]}
	for _, tc := range []struct {
		name string
		cfg  *Config
	}{{"mentions", nil}, {"no-mentions", &plain}} {
		b.Run(tc.name, func(b *testing.B) {
			req := Request{NS: ns, Focus: []string{"scene"}, Budget: 100000, Counter: fxCounter(b), Config: tc.cfg}
			b.ReportAllocs()
			for b.Loop() {
				p, err := Build(context.Background(), env.st, env.ix, req)
				if err != nil {
					b.Fatal(err)
				}
				if tc.cfg == nil && len(p.Records) < 50 {
					b.Fatalf("only %d records: the mentions were not found", len(p.Records))
				}
			}
		})
	}
}
