package packet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// relation is one way a record became a candidate.
type relation struct {
	match string  // a Match* constant or matchPull
	hops  int     // graph distance for neighbours, else 0
	from  string  // the focus (or hit) it relates to
	score float64 // search score for hits
	why   string  // for the reader: "touches scene-12 via appears_in"
	via   string  // the record the relation passes through (a bridge), or ""
	side  int     // a hit's neighbour along "next": -1 just before it, +1 just after
	// deep marks a hit past the first step of the hit pool, and what it
	// brings: only a big enough budget has it (see budget.Item.Late).
	deep bool
}

// candidate is a record that may enter the packet.
type candidate struct {
	rec  store.Record // head: no body
	rels []relation
	// contradicts names the candidates this one contradicts
	// (contradictions.go): "mara-eyes-grey on eyes".
	contradicts []string
	rank        int
	why         string
	match       string  // the relation that gave the rank
	hops        int     // hops of the relation that gave the rank
	score       float64 // tie-break within a rank (higher is more important)
	origin      string  // the focus it derives from, for split proposals
	side        int     // relation.side of the relation that gave the rank
	protected   bool    // rank in the profile's protected ranks
	pinned      bool    // pinned in the store
	history     bool    // a timeline kind: step 4 collapses it
	fidx        int     // position in Request.Focus; len(Focus) when not a focus
	idx         int     // position in the builder's candidate list
	tc          store.TokenCount
	fetch       string // fetchCmd of the record, made once (see builder.fetchOf)
	// excerpt is what the packet shows of a long body (excerpt.go); nil
	// when it shows the body whole. tc.Body is then the excerpt's count.
	excerpt *excerpt
	// deep is set when every relation that brought it is deep: a bigger
	// budget has it, a smaller one may not.
	deep bool
}

// Skip is a record that was a candidate but was not loaded, with why.
type Skip struct {
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason"`
}

// gatherer collects and ranks candidates (pipeline steps 1 and 2).
type gatherer struct {
	ctx   context.Context
	bg    *helpers // the goroutines it starts (helpers.go)
	src   Source
	srch  Searcher
	req   Request
	cfg   Config
	prof  Profile
	cands map[string]*candidate
	heads map[string]store.Record // every head read so far, by id
	skips []Skip
	// superseded are the candidates left out because a record that
	// holds now supersedes them (validtime.go).
	superseded []Superseded
	warns      []string
	pos        int64 // story position of the focus; 0 when unknown
	// ahead is the first search while it is being made (searchahead.go).
	ahead *searchAhead
}

func (g *gatherer) add(id string, r relation) {
	c, ok := g.cands[id]
	if !ok {
		c = &candidate{}
		g.cands[id] = c
	}
	c.rels = append(c.rels, r)
	if h, ok := g.heads[id]; ok {
		c.rec = h
	}
}

func (g *gatherer) uses(match string) bool {
	return slices.ContainsFunc(g.prof.Rules, func(r Rule) bool { return r.Match == match })
}

// list pages through every head of kind (all kinds when kind is "").
func (g *gatherer) list(kind string) ([]store.Record, error) {
	return g.listWith(store.ListOptions{NS: g.req.NS, Kind: kind})
}

// listWith pages through every head opts selects.
func (g *gatherer) listWith(opts store.ListOptions) ([]store.Record, error) {
	var out []store.Record
	after := ""
	for {
		o := opts
		o.After, o.Limit = after, 1000
		page, next, err := g.src.List(o)
		if err != nil {
			return nil, badvalue.Errorf(opts.Kind, "list kind %q in ns %q: %w", opts.Kind, g.req.NS, err)
		}
		for _, h := range page {
			if h.NS != "" && h.NS != g.req.NS {
				continue // the wall holds even against a wrong source
			}
			g.heads[h.ID] = h
			out = append(out, h)
		}
		if next == "" || len(page) == 0 {
			return out, nil
		}
		after = next
	}
}

// gather collects every candidate of the request: the focus, its
// neighbours and POV characters, hits, rule pulls, pinned and recent
// records, characters in play and mentions.
func (g *gatherer) gather() error {
	g.ahead = g.startSearch()
	if err := g.focus(); err != nil {
		return err
	}
	g.settleStoryTime()
	isFocus := func(id string) bool { return slices.Contains(g.req.Focus, id) }
	for _, f := range g.req.Focus {
		if err := g.focusNeighbors(f, isFocus); err != nil {
			return err
		}
	}
	if g.uses(MatchAdjacent) || g.uses(MatchPreviousMention) {
		if err := g.adjacent(); err != nil {
			return err
		}
	}
	// Depends on no hit: made while the search runs, used in its place
	// below.
	names := g.prepareMentions(isFocus)
	// Full-text hits, and their neighbours when the profile ranks them.
	if g.req.searches() {
		if err := g.hits(isFocus); err != nil {
			return err
		}
	}
	if g.uses(MatchObligation) {
		if err := g.obligations(); err != nil {
			return err
		}
	}
	if g.uses(MatchTimeline) && g.pos > 0 {
		if err := g.timeline(); err != nil {
			return err
		}
	}
	if err := g.pulls(isFocus); err != nil {
		return err
	}
	if g.uses(MatchPinned) || g.uses(MatchRecent) {
		if err := g.pinnedAndRecent(isFocus); err != nil {
			return err
		}
	}
	if err := g.readHeads(); err != nil {
		return err
	}
	if g.uses(MatchInPlay) || g.uses(MatchPOVLink) {
		if err := g.inPlay(isFocus); err != nil {
			return err
		}
		if err := g.readHeads(); err != nil {
			return err
		}
	}
	if err := g.mentions(isFocus, names); err != nil {
		return err
	}
	return g.dropHiddenBridges()
}

// focus reads the focus records, which must all exist, and takes the
// story position from the earliest of them.
func (g *gatherer) focus() error {
	req := g.req
	if len(req.Focus) == 0 {
		return nil
	}
	var ids []string // not read yet by an earlier build of the request
	for _, id := range req.Focus {
		if _, ok := g.heads[id]; !ok {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		heads, err := readHeads(g.src, req.NS, ids)
		if err != nil {
			return badvalue.Errorf(req.NS, "read focus records in ns %q: %w", req.NS, err)
		}
		for _, h := range heads {
			g.heads[h.ID] = h
		}
	}
	for _, id := range req.Focus {
		h, ok := g.heads[id]
		if !ok {
			return badvalue.Errorf(id, "%w: focus %q is not a record of ns %q", ErrFocusNotFound, id, req.NS)
		}
		g.add(id, relation{match: MatchFocus, from: id, why: "focus"})
		if h.Order > 0 && (g.pos == 0 || h.Order < g.pos) {
			g.pos = h.Order
		}
	}
	return nil
}

// settleStoryTime settles the story position: the request's, else the focus's
// own, so that a scene's packet does not see facts that only hold from
// later scenes.
func (g *gatherer) settleStoryTime() {
	switch {
	case g.req.AsOf == NoStoryTime:
		g.req.AsOf = 0
	case g.req.AsOf == 0:
		g.req.AsOf = g.pos
	}
	if g.pos == 0 {
		g.pos = g.req.AsOf
	}
}

// focusNeighbors adds the graph neighbours of focus f up to the hop
// limit, and its POV characters (pov links and meta.pov).
func (g *gatherer) focusNeighbors(f string, isFocus func(string) bool) error {
	req := g.req
	ns, err := g.src.Neighbors(req.NS, f, req.Hops, nil)
	if err != nil {
		return badvalue.Errorf(f, "neighbours of %q: %w", f, err)
	}
	for _, n := range ns {
		if isFocus(n.ID) {
			continue
		}
		why := fmt.Sprintf("touches %s via %s", f, n.Via.Rel)
		if n.Hops > 1 {
			mid := n.Via.From
			if mid == n.ID {
				mid = n.Via.To
			}
			why = fmt.Sprintf("%d hops from %s via %s (%s)", n.Hops, f, mid, n.Via.Rel)
			g.add(n.ID, relation{match: MatchNeighbor, hops: n.Hops, from: f, why: why, via: mid})
			continue
		}
		g.add(n.ID, relation{match: MatchNeighbor, hops: n.Hops, from: f, why: why})
	}
	povs, err := g.src.Neighbors(req.NS, f, 1, []string{"pov"})
	if err != nil {
		return badvalue.Errorf(f, "pov links of %q: %w", f, err)
	}
	ids := make([]string, 0, len(povs))
	for _, n := range povs {
		ids = append(ids, n.ID)
	}
	for _, p := range strings.Split(g.heads[f].Meta["pov"], ",") {
		if p = strings.TrimSpace(p); p != "" && store.ValidID(p) == nil {
			ids = append(ids, p)
		}
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if !isFocus(id) {
			g.add(id, relation{match: MatchPOV, hops: 1, from: f, why: "pov of " + f})
		}
	}
	return nil
}

// pulls adds the kinds that apply without a link, while their condition
// holds.
func (g *gatherer) pulls(isFocus func(string) bool) error {
	for _, r := range g.prof.Rules {
		if !r.Pull || !g.holds(r, "") {
			continue
		}
		for _, kind := range r.Kinds {
			heads, err := g.list(kind)
			if err != nil {
				return err
			}
			label := r.Label
			if label == "" {
				label = "kind " + kind
			}
			for _, h := range heads {
				if !isFocus(h.ID) {
					g.add(h.ID, relation{match: matchPull, why: label})
				}
			}
		}
	}
	return nil
}

// inPlay follows the links of the characters in play: the POV and the
// one-hop neighbours of a focus whose kind is in Config.InPlayKinds. What
// a POV character links to is also a pov-link (MatchPOVLink): the canon
// of the character whose eyes the scene is told through, one hop from
// the scene as the POV is part of it (the ladder's step 3, which narrows
// the walk to one hop, keeps it).
func (g *gatherer) inPlay(isFocus func(string) bool) error {
	for _, id := range sortedKeys(g.cands) {
		c := g.cands[id]
		pov := slices.ContainsFunc(c.rels, func(r relation) bool { return r.match == MatchPOV })
		if !pov && (!slices.Contains(g.cfg.InPlayKinds, c.rec.Kind) || !slices.ContainsFunc(c.rels, func(r relation) bool {
			return (r.match == MatchNeighbor && r.hops == 1) || r.match == MatchFocus
		})) {
			continue
		}
		ns, err := g.src.Neighbors(g.req.NS, id, 1, nil)
		if err != nil {
			return badvalue.Errorf(id, "neighbours of %q: %w", id, err)
		}
		for _, n := range ns {
			if isFocus(n.ID) {
				continue
			}
			g.add(n.ID, relation{match: MatchInPlay, hops: 2, from: id, via: id, why: fmt.Sprintf("in play: linked to %s via %s", id, n.Via.Rel)})
			if pov {
				g.add(n.ID, relation{match: MatchPOVLink, hops: 1, from: id, via: id, why: fmt.Sprintf("linked from pov %s via %s", id, n.Via.Rel)})
			}
		}
	}
	return nil
}

// obligations pulls the open obligations due within the scope: those due
// from the focus position up to the scope's horizon
// (Config.ObligationHorizon), those already overdue, and those without a
// due position.
func (g *gatherer) obligations() error {
	horizon, bounded := g.cfg.ObligationHorizon[g.req.Scope]
	bounded = bounded && horizon >= 0
	for _, kind := range g.cfg.ObligationKinds {
		heads, err := g.obligationHeads(kind, g.pos+int64(horizon), !bounded || g.pos <= 0)
		if err != nil {
			return err
		}
		for _, h := range heads {
			if !store.OpenStatus(h.Meta["status"]) {
				continue
			}
			due := strings.TrimSpace(h.Meta["due"])
			why := "open obligation"
			if due != "" {
				why = "obligation due by " + due
				if g.pos > 0 {
					at, ok := g.position(due)
					switch {
					case ok && at < g.pos:
						why = "overdue since " + due // still owed: the scene must not forget it
					case ok && bounded && at > g.pos+int64(horizon):
						continue // due beyond this scope's horizon
					}
				}
			}
			g.add(h.ID, relation{match: MatchObligation, why: why})
		}
	}
	return nil
}

// obligationHeads returns, sorted by id, the heads of kind the
// obligation rule must look at: through a DueSeeker the open ones due by
// position by (every open one when all), else every head of the kind.
// The rule's own filter then decides, so both ways pull the same.
func (g *gatherer) obligationHeads(kind string, by int64, all bool) ([]store.Record, error) {
	seek, is := g.src.(DueSeeker)
	if !is {
		return g.list(kind)
	}
	var heads []store.Record
	ok, err := seek.Due(g.req.NS, kind, by, all, func(h store.Record) bool {
		if h.NS == "" || h.NS == g.req.NS { // the wall holds even against a wrong source
			heads = append(heads, h)
		}
		return true
	})
	if err != nil {
		return nil, badvalue.Errorf(kind, "obligations of kind %q in ns %q: %w", kind, g.req.NS, err)
	}
	if !ok {
		return g.list(kind)
	}
	slices.SortFunc(heads, func(a, b store.Record) int { return cmp.Compare(a.ID, b.ID) })
	for _, h := range heads {
		g.heads[h.ID] = h
	}
	return heads, nil
}

func (g *gatherer) pinnedAndRecent(isFocus func(string) bool) error {
	if g.uses(MatchPinned) {
		pinned, err := g.listWith(store.ListOptions{NS: g.req.NS, Pinned: true})
		if err != nil {
			return err
		}
		for _, h := range pinned {
			// A source that ignores the filter still gets it right.
			if h.Pinned && !isFocus(h.ID) {
				g.add(h.ID, relation{match: MatchPinned, why: "pinned"})
			}
		}
	}
	if !g.uses(MatchRecent) || g.prof.Recent <= 0 {
		return nil
	}
	var recent []store.Record
	if r, ok := g.src.(Recenter); ok {
		heads, err := r.Recent(g.req.NS, g.prof.Recent+len(g.req.Focus))
		if err != nil {
			return badvalue.Errorf(g.req.NS, "recent records of ns %q: %w", g.req.NS, err)
		}
		recent = heads
	} else {
		all, err := g.list("")
		if err != nil {
			return err
		}
		recent = all
	}
	recent = slices.Clone(recent)
	slices.SortStableFunc(recent, func(a, b store.Record) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Order, a.Order); c != 0 {
			return c // one import writes many at once: the latest position first
		}
		return cmp.Compare(a.ID, b.ID)
	})
	n := 0
	for _, h := range recent {
		if n == g.prof.Recent {
			break
		}
		if isFocus(h.ID) || (h.NS != "" && h.NS != g.req.NS) {
			continue
		}
		g.heads[h.ID] = h
		g.add(h.ID, relation{match: MatchRecent, why: "recently updated"})
		n++
	}
	return nil
}

// readHeads reads the heads of candidates found through links or search;
// ids without a record (dangling links) are skipped.
func (g *gatherer) readHeads() error {
	// Only the candidates without a head of the namespace yet: a build
	// calls this after each step, and sorting every candidate again each
	// time cost more than the reads.
	var pending []string
	for id, c := range g.cands {
		if c.rec.ID == "" || (c.rec.NS != "" && c.rec.NS != g.req.NS) {
			pending = append(pending, id)
		}
	}
	slices.Sort(pending)
	var ids []string
	for _, id := range pending {
		if _, ok := g.heads[id]; !ok {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		heads, err := readHeads(g.src, g.req.NS, ids)
		if err != nil {
			return badvalue.Errorf(g.req.NS, "read candidate records in ns %q: %w", g.req.NS, err)
		}
		for _, h := range heads {
			g.heads[h.ID] = h
		}
	}
	for _, id := range pending {
		h, ok := g.heads[id]
		if !ok || (h.NS != "" && h.NS != g.req.NS) {
			reason := "no such record (dangling link)"
			if slices.ContainsFunc(g.cands[id].rels, func(r relation) bool { return r.match == MatchPOV }) {
				reason = "no such record (dangling link or meta.pov of " + g.cands[id].rels[0].from + ")"
			}
			g.skips = append(g.skips, Skip{ID: id, Reason: reason})
			delete(g.cands, id)
			continue
		}
		g.cands[id].rec = h
	}
	return nil
}
