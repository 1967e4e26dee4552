package packet

import (
	"cmp"
	"fmt"
	"slices"
)

// holds reports whether rule r's condition holds for a record of kind.
func (g *gatherer) holds(r Rule, kind string) bool {
	if slices.Contains(splitWhen(r.When), conditionNever) {
		return kind != "" && slices.Contains(g.req.Kinds, kind)
	}
	return g.req.holds(r.When)
}

func matches(r Rule, rel relation, kind string) bool {
	if len(r.Kinds) > 0 && !slices.Contains(r.Kinds, kind) {
		return false
	}
	switch r.Match {
	case MatchAny:
		return true
	case MatchNeighbor1:
		return rel.match == MatchNeighbor && rel.hops == 1
	case MatchMention1:
		return rel.match == MatchMention && rel.hops == 1
	default:
		return rel.match == r.Match
	}
}

// rank filters the candidates and gives each its rank (pipeline step 2).
// It returns the loaded candidates sorted by rank, then score (highest
// first), then story order, then id.
func (g *gatherer) rank() []*candidate {
	var out []*candidate
	for _, id := range sortedKeys(g.cands) {
		c := g.cands[id]
		kind := c.rec.Kind
		focus := slices.Contains(g.req.Focus, id)
		inPlayOnly := !slices.ContainsFunc(c.rels, func(r relation) bool { return !throughCharacter(r.match) })
		if inPlayOnly && !slices.ContainsFunc(g.prof.Rules, func(r Rule) bool {
			return throughCharacter(r.Match) && (len(r.Kinds) == 0 || slices.Contains(r.Kinds, kind))
		}) {
			continue // reached only through a character in play, and no rule wants its kind
		}
		if !focus && !g.admit(id, c) {
			continue
		}
		if slices.ContainsFunc(c.rels, func(r relation) bool { return !r.deep }) {
			// What only a deeper search brings leaves a record that a
			// smaller budget has anyway as it is there: its rank and
			// score do not depend on the budget.
			c.rels = slices.DeleteFunc(c.rels, func(r relation) bool { return r.deep })
		}
		sortRelations(c.rels)
		rule, via := g.ruleFor(c)
		if rule == nil {
			// A record reached only through a character in play is looked
			// at for its kind alone: not a candidate unless a rule takes it.
			if !inPlayOnly {
				g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: "no rank rule of profile " + g.req.ranking + " matches"})
			}
			continue
		}
		if !g.holds(*rule, kind) {
			g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: fmt.Sprintf("rank %d condition false: %s", rule.Rank, describeWhen(rule.When))})
			continue
		}
		g.place(id, c, rule, via, focus)
		out = append(out, c)
	}
	slices.SortFunc(out, compareCandidates)
	return out
}

// throughCharacter reports whether match relates a record through a
// character in play rather than to the focus itself.
func throughCharacter(match string) bool { return match == MatchInPlay || match == MatchPOVLink }

// admit says whether candidate id, not a focus, passes the kind
// filters and story time (the entries bounding the focus stay); one that
// does not is listed as skipped with why.
func (g *gatherer) admit(id string, c *candidate) bool {
	kind := c.rec.Kind
	if len(g.req.Kinds) > 0 && !slices.Contains(g.req.Kinds, kind) {
		g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: fmt.Sprintf("kind %q not among --kinds", kind)})
		return false
	}
	if slices.Contains(g.req.ExcludeKinds, kind) {
		g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: fmt.Sprintf("kind %q excluded", kind)})
		return false
	}
	why, ok := g.storyTime(c.rec)
	if !ok && bounding(c) {
		why, ok = g.validity(c.rec) // the entries bounding the focus stay
	}
	if !ok {
		why = g.noteSuperseded(c.rec, why)
		g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: why})
	}
	return ok
}

// sortRelations puts the nearest, best-scored relations first.
func sortRelations(rels []relation) {
	slices.SortStableFunc(rels, func(a, b relation) int {
		if c := cmp.Compare(a.hops, b.hops); c != 0 {
			return c
		}
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.from, b.from); c != 0 {
			return c
		}
		return cmp.Compare(a.why, b.why)
	})
}

// ruleFor is the first rule of the profile that one of c's relations
// matches, and that relation; nil when none does.
func (g *gatherer) ruleFor(c *candidate) (*Rule, relation) {
	for i := range g.prof.Rules {
		for _, rel := range c.rels {
			if matches(g.prof.Rules[i], rel, c.rec.Kind) {
				return &g.prof.Rules[i], rel
			}
		}
	}
	return nil, relation{}
}

// place gives candidate id its rank by rule, through relation via.
func (g *gatherer) place(id string, c *candidate, rule *Rule, via relation, focus bool) {
	c.rank, c.why, c.hops, c.match = rule.Rank, via.why, via.hops, via.match
	if via.match == matchPull && rule.Label != "" {
		c.why = rule.Label
	}
	c.deep = len(c.rels) > 0
	for _, rel := range c.rels {
		c.score = max(c.score, rel.score)
		c.deep = c.deep && rel.deep
	}
	c.origin, c.side = via.from, via.side
	c.protected = slices.Contains(g.prof.Protected, c.rank)
	c.pinned = c.rec.Pinned
	c.history = slices.Contains(g.cfg.TimelineKinds, c.rec.Kind) && c.rank != 1
	c.fidx = len(g.req.Focus)
	if focus {
		c.fidx = slices.Index(g.req.Focus, id)
	}
}

// compareCandidates is the packet order: most important first.
func compareCandidates(a, b *candidate) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(a.fidx, b.fidx); c != 0 {
		return c // focus records first, in the order asked
	}
	if c := cmp.Compare(mentionOnly(a), mentionOnly(b)); c != 0 {
		return c // explicit links before mere mentions
	}
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	ao, bo := a.rec.Order, b.rec.Order
	if ao <= 0 {
		ao = 1<<63 - 1
	}
	if bo <= 0 {
		bo = 1<<63 - 1
	}
	if c := cmp.Compare(ao, bo); c != 0 {
		return c
	}
	return cmp.Compare(a.rec.ID, b.rec.ID)
}

// mentionOnly is 1 when c's rank came from a mention of its name, else 0.
func mentionOnly(c *candidate) int {
	if c.match == MatchMention {
		return 1
	}
	return 0
}

// bounding reports whether c is a timeline entry that bounds the focus.
func bounding(c *candidate) bool {
	return slices.ContainsFunc(c.rels, func(r relation) bool { return r.match == MatchTimeline })
}
