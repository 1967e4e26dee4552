package packet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// hiddenBridge reports whether the record id, met on the way to another,
// is outside story time (a focus never is), and why.
func (g *gatherer) hiddenBridge(id string) (string, bool) {
	if slices.Contains(g.req.Focus, id) {
		return "", false
	}
	h, ok := g.heads[id]
	if !ok {
		return "", false
	}
	why, visible := g.storyTime(h)
	return why, !visible
}

// dropHiddenBridges walks hop by hop: a relation that passes through a
// record story time hides (a second hop, a hit's neighbour, a link of a
// character in play) does not count, since that record is not loaded. A
// second-hop neighbour keeps another path through a visible first-hop
// neighbour when it has one; a candidate left with no relation is
// skipped, with the reason.
func (g *gatherer) dropHiddenBridges() error {
	alt := map[string]map[string]relation{} // per focus: second hop -> a path through a visible neighbour
	// Most records are the bridge of several relations (a hit, of its
	// neighbours'), and most candidates have none hidden: each bridge is
	// judged once, and a candidate's relations are rebuilt only when one
	// of them is hidden.
	type bridge struct {
		why    string
		hidden bool
	}
	bridges := map[string]bridge{}
	judge := func(r relation) (string, bool) { // hiddenBridge of r's bridge, if it has one
		if r.via == "" {
			return "", false
		}
		b, ok := bridges[r.via]
		if !ok {
			b.why, b.hidden = g.hiddenBridge(r.via)
			bridges[r.via] = b
		}
		return b.why, b.hidden
	}
	for _, id := range sortedKeys(g.cands) {
		c := g.cands[id]
		if !slices.ContainsFunc(c.rels, func(r relation) bool { _, hidden := judge(r); return hidden }) {
			continue
		}
		var kept []relation
		lost, lostWhy := "", ""
		for _, r := range c.rels {
			why, hidden := judge(r)
			if !hidden {
				kept = append(kept, r)
				continue
			}
			if r.match == MatchNeighbor && r.hops == 2 {
				paths, ok := alt[r.from]
				if !ok {
					var err error
					if paths, err = g.secondHops(r.from); err != nil {
						return err
					}
					alt[r.from] = paths
				}
				if a, ok := paths[id]; ok {
					kept = append(kept, a)
					continue
				}
			}
			if lost == "" {
				lost, lostWhy = r.via, why
			}
		}
		c.rels = kept
		if len(kept) == 0 {
			g.skips = append(g.skips, Skip{ID: id, Kind: c.rec.Kind, Reason: fmt.Sprintf("reached only through %s, which is not loaded (%s)", lost, lostWhy)})
			delete(g.cands, id)
		}
	}
	return nil
}

// secondHops maps each record two hops from focus, through a first-hop
// neighbour that story time does not hide, to that relation (the first
// such neighbour by id).
func (g *gatherer) secondHops(focus string) (map[string]relation, error) {
	first, err := g.src.Neighbors(g.req.NS, focus, 1, nil)
	if err != nil {
		return nil, badvalue.Errorf(focus, "neighbours of %q: %w", focus, err)
	}
	ids := make([]string, 0, len(first))
	for _, n := range first {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := map[string]relation{}
	for _, mid := range ids {
		if _, hidden := g.hiddenBridge(mid); hidden || slices.Contains(g.req.Focus, mid) {
			continue
		}
		if _, ok := g.heads[mid]; !ok {
			continue // dangling: no record to pass through
		}
		next, err := g.src.Neighbors(g.req.NS, mid, 1, nil)
		if err != nil {
			return nil, badvalue.Errorf(mid, "neighbours of %q: %w", mid, err)
		}
		for _, n := range next {
			if _, ok := out[n.ID]; ok || n.ID == focus {
				continue
			}
			out[n.ID] = relation{match: MatchNeighbor, hops: 2, from: focus, via: mid,
				why: fmt.Sprintf("2 hops from %s via %s (%s)", focus, mid, n.Via.Rel)}
		}
	}
	return out, nil
}

// position resolves a story position: a number, or the id of a record
// with an order.
func (g *gatherer) position(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	if store.ValidID(s) != nil {
		return 0, false
	}
	h, ok := g.heads[s]
	if !ok {
		heads, err := g.src.Heads(g.req.NS, []string{s})
		if err != nil || len(heads) == 0 {
			return 0, false
		}
		h = heads[0]
		g.heads[s] = h
	}
	return h.Order, h.Order > 0
}

// visible reports whether r holds at the as-of position: with AsOf, a
// record whose meta.from is after it, or whose meta.until is before it,
// does not (both bounds are inclusive: "until 5" still holds at 5).
func (g *gatherer) visible(r store.Record) bool {
	_, ok := g.validity(r)
	return ok
}

// storyTime returns why r is outside story time, and false when it is:
// not valid at the as-of position, or later in the story.
func (g *gatherer) storyTime(r store.Record) (string, bool) {
	if why, ok := g.validity(r); !ok {
		return why, false
	}
	return g.laterInStory(r)
}

// laterInStory hides an ordered record (a scene, a chapter, a timeline
// entry, any record with an order) that lies after the as-of position
// while drafting or revising (no task counts as drafting): a scene not
// yet written is not shown. plan and audit see ahead. The timeline
// entries that bound the focus are pulled by their own rule and stay.
func (g *gatherer) laterInStory(r store.Record) (string, bool) {
	drafting := g.req.Task == "" || g.req.Task == "draft" || g.req.Task == "revise"
	if g.req.AsOf == 0 || !drafting || r.Order <= g.req.AsOf {
		return "", true
	}
	return fmt.Sprintf("story time: later in the story (order %d > as of %d)", r.Order, g.req.AsOf), false
}

// validity returns why r does not hold at the as-of position (meta.from
// and meta.until), and false when it does not.
func (g *gatherer) validity(r store.Record) (string, bool) {
	if why, ok := g.timeValidity(r); !ok {
		return why, false
	}
	if g.req.AsOf == 0 {
		return "", true
	}
	for _, key := range []string{"from", facts.MetaValidFrom} {
		from := r.Meta[key]
		if _, isTime := facts.ParseTime(from); from == "" || isTime {
			continue
		}
		if at, ok := g.position(from); ok && at > g.req.AsOf {
			return fmt.Sprintf("story time: valid from %s, after as-of %d", from, g.req.AsOf), false
		} else if !ok {
			g.warns = append(g.warns, fmt.Sprintf("record %q: meta.%s %q is not a position, a record with an order or a time; story time ignores it", r.ID, key, from))
		}
	}
	for _, key := range []string{"until", facts.MetaValidUntil} {
		until := r.Meta[key]
		if _, isTime := facts.ParseTime(until); until == "" || isTime {
			continue
		}
		if at, ok := g.position(until); ok && at < g.req.AsOf {
			return fmt.Sprintf("story time: valid until %s, before as-of %d", until, g.req.AsOf), false
		} else if !ok {
			g.warns = append(g.warns, fmt.Sprintf("record %q: meta.%s %q is not a position, a record with an order or a time; story time ignores it", r.ID, key, until))
		}
	}
	return "", true
}
