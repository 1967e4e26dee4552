package packet

import (
	"fmt"
	"slices"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// Records next to the focus in story order: the timeline entries that
// bound it, and the scenes on either side of it.

// timeline pulls the nearest timeline entries before (or at) and after the
// focus position.
func (g *gatherer) timeline() error {
	before, after, err := g.nearest(g.cfg.TimelineKinds, g.pos, g.pos+1)
	if err != nil {
		return err
	}
	if before != nil {
		g.add(before.ID, relation{match: MatchTimeline, why: fmt.Sprintf("timeline before the focus (order %d)", before.Order)})
	}
	if after != nil {
		g.add(after.ID, relation{match: MatchTimeline, why: fmt.Sprintf("timeline after the focus (order %d)", after.Order)})
	}
	return nil
}

// adjacent pulls, for each focus with a story position, the record of its
// kind just before it in story order (the scene a draft continues from),
// and, for plan and audit, the one just after it (story time hides it
// while drafting or revising).
func (g *gatherer) adjacent() error {
	ahead := g.req.Task == "plan" || g.req.Task == "audit"
	for _, f := range g.req.Focus {
		h := g.heads[f]
		if h.Order <= 0 {
			continue
		}
		before, after, err := g.nearest([]string{h.Kind}, h.Order-1, h.Order+1)
		if err != nil {
			return err
		}
		for _, r := range []*store.Record{before, after} {
			if r != nil {
				g.heads[r.ID] = *r
			}
		}
		if before != nil {
			g.add(before.ID, relation{match: MatchAdjacent, hops: 1, from: f, side: -1,
				why: fmt.Sprintf("%s before %s in story order (order %d)", h.Kind, f, before.Order)})
		}
		if after != nil && ahead {
			g.add(after.ID, relation{match: MatchAdjacent, hops: 1, from: f, side: 1,
				why: fmt.Sprintf("%s after %s in story order (order %d)", h.Kind, f, after.Order)})
		}
	}
	return nil
}

// nearest finds, among the records of kinds that hold at the as-of
// position and are not a focus, the one with the greatest order up to
// back and the one with the least order from ahead (ties: the smaller
// id), through an OrderSeeker where the source has one, else by listing
// the kinds.
func (g *gatherer) nearest(kinds []string, back, ahead int64) (before, after *store.Record, err error) {
	before, after, ok, err := g.nearestSeek(kinds, back, ahead)
	if err != nil || ok {
		return before, after, err
	}
	return g.nearestWalk(kinds, back, ahead)
}

// usableOrdered reports whether h may be a nearest record: ordered, of
// the request's namespace, not a focus, and holding at the as-of position.
func (g *gatherer) usableOrdered(h store.Record) bool {
	return h.Order > 0 && (h.NS == "" || h.NS == g.req.NS) && !slices.Contains(g.req.Focus, h.ID) && g.visible(h)
}

// nearestSeek is nearest through an OrderSeeker: per kind, the first
// usable record each way; ok is false when the source has no seeker or
// cannot seek.
func (g *gatherer) nearestSeek(kinds []string, back, ahead int64) (before, after *store.Record, ok bool, err error) {
	seek, is := g.src.(OrderSeeker)
	if !is {
		return nil, nil, false, nil
	}
	for _, kind := range kinds {
		for _, backward := range []bool{true, false} {
			from := ahead
			if backward {
				from = back
			}
			var found *store.Record
			ok, err := seek.Ordered(g.req.NS, kind, from, backward, func(h store.Record) bool {
				if g.usableOrdered(h) {
					found = &h
				}
				return found == nil
			})
			if err != nil {
				return nil, nil, false, badvalue.Errorf(kind, "records of kind %q in story order in ns %q: %w", kind, g.req.NS, err)
			}
			if !ok {
				return nil, nil, false, nil
			}
			switch {
			case found == nil:
			case backward && (before == nil || found.Order > before.Order || found.Order == before.Order && found.ID < before.ID):
				before = found
			case !backward && (after == nil || found.Order < after.Order || found.Order == after.Order && found.ID < after.ID):
				after = found
			}
		}
	}
	return before, after, true, nil
}

// nearestWalk is nearest by listing every record of kinds.
func (g *gatherer) nearestWalk(kinds []string, back, ahead int64) (before, after *store.Record, err error) {
	for _, kind := range kinds {
		heads, err := g.list(kind)
		if err != nil {
			return nil, nil, err
		}
		for i := range heads {
			h := &heads[i]
			if !g.usableOrdered(*h) {
				continue
			}
			switch {
			case h.Order <= back:
				if before == nil || h.Order > before.Order || (h.Order == before.Order && h.ID < before.ID) {
					before = h
				}
			case h.Order >= ahead:
				if after == nil || h.Order < after.Order || (h.Order == after.Order && h.ID < after.ID) {
					after = h
				}
			}
		}
	}
	return before, after, nil
}

// previousInStory lists the candidates that are just before a focus in
// story order (adjacent), by id.
func (g *gatherer) previousInStory() []string {
	var ids []string
	for _, id := range sortedKeys(g.cands) {
		if slices.ContainsFunc(g.cands[id].rels, func(r relation) bool { return r.match == MatchAdjacent && r.side < 0 }) {
			ids = append(ids, id)
		}
	}
	return ids
}
