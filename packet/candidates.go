package packet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/index"
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
}

// candidate is a record that may enter the packet.
type candidate struct {
	rec       store.Record // head: no body
	rels      []relation
	rank      int
	why       string
	match     string  // the relation that gave the rank
	hops      int     // hops of the relation that gave the rank
	score     float64 // tie-break within a rank (higher is more important)
	origin    string  // the focus it derives from, for split proposals
	protected bool    // rank in the profile's protected ranks
	pinned    bool    // pinned in the store
	history   bool    // a timeline kind: step 4 collapses it
	fidx      int     // position in Request.Focus; len(Focus) when not a focus
	idx       int     // position in the builder's candidate list
	tc        store.TokenCount
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
	src   Source
	srch  Searcher
	req   Request
	cfg   Config
	prof  Profile
	cands map[string]*candidate
	heads map[string]store.Record // every head read so far, by id
	skips []Skip
	warns []string
	pos   int64 // story position of the focus; 0 when unknown
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
			return nil, fmt.Errorf("list kind %q in ns %q: %w", opts.Kind, g.req.NS, err)
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

func (g *gatherer) gather() error {
	req := g.req
	// Focus records: all must exist.
	if len(req.Focus) > 0 {
		heads, err := g.src.Heads(req.NS, req.Focus)
		if err != nil {
			return fmt.Errorf("read focus records in ns %q: %w", req.NS, err)
		}
		for _, h := range heads {
			g.heads[h.ID] = h
		}
		for _, id := range req.Focus {
			h, ok := g.heads[id]
			if !ok {
				return fmt.Errorf("%w: focus %q is not a record of ns %q", ErrFocusNotFound, id, req.NS)
			}
			g.add(id, relation{match: MatchFocus, from: id, why: "focus"})
			if h.Order > 0 && (g.pos == 0 || h.Order < g.pos) {
				g.pos = h.Order
			}
		}
	}
	// Story time: the request's position, else the focus's own, so that a
	// scene's packet does not see facts that only hold from later scenes.
	switch {
	case req.AsOf == NoStoryTime:
		g.req.AsOf = 0
	case req.AsOf == 0:
		g.req.AsOf = g.pos
	}
	if g.pos == 0 {
		g.pos = g.req.AsOf
	}
	isFocus := func(id string) bool { return slices.Contains(req.Focus, id) }
	// Graph neighbours and POV characters of each focus.
	for _, f := range req.Focus {
		ns, err := g.src.Neighbors(req.NS, f, req.Hops, nil)
		if err != nil {
			return fmt.Errorf("neighbours of %q: %w", f, err)
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
			return fmt.Errorf("pov links of %q: %w", f, err)
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
	}
	// Full-text hits, and their neighbours when the profile ranks them.
	if req.Query != "" {
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
	// Pulls: kinds that apply without a link, while their condition holds.
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
	if g.uses(MatchPinned) || g.uses(MatchRecent) {
		if err := g.pinnedAndRecent(isFocus); err != nil {
			return err
		}
	}
	if err := g.readHeads(); err != nil {
		return err
	}
	if g.uses(MatchInPlay) {
		if err := g.inPlay(isFocus); err != nil {
			return err
		}
		if err := g.readHeads(); err != nil {
			return err
		}
	}
	if err := g.mentions(isFocus); err != nil {
		return err
	}
	return g.dropHiddenBridges()
}

// hits adds the full-text hits of the query, as deep as the budget can
// use (Config.HitLimit caps it when set), and, when the profile ranks
// them, each hit's one-hop neighbours, scored just below the hit that
// brought them (a share of its score, Config.neighborShare) so that they
// follow it.
func (g *gatherer) hits(isFocus func(string) bool) error {
	if g.srch == nil {
		return invalidf("query %q needs a search index, and none was given", g.req.Query)
	}
	hits, err := g.search()
	if err != nil {
		return err
	}
	var own []tieredHit
	for pos, h := range hits {
		if h.NS == g.req.NS && !isFocus(h.ID) {
			own = append(own, tieredHit{Hit: h, tier: hitTier(pos, g.firstPool()), score: h.Score})
		}
	}
	if !g.uses(MatchHitNeighbor) {
		for n, h := range own {
			g.add(h.ID, relation{match: MatchHit, from: h.ID, score: h.Score, why: fmt.Sprintf("hit %d", n+1)})
		}
		return nil
	}
	nbs, err := g.hitNeighbors(own)
	if err != nil {
		return err
	}
	own = withSequenceContext(own, nbs, g.cfg)
	if own, err = g.candidateHits(own); err != nil {
		return err
	}
	span, tiers := tierSpan(own), hitTier(len(own), minHitPool)
	for n, h := range own {
		// Scores are tie-breaks within a rank: the hits of a shallower
		// step of the ladder, and their neighbours, all come before a
		// deeper one's, so a bigger budget only adds to the end.
		base := float64(tiers-hitTier(n, minHitPool)) * span
		g.add(h.ID, relation{match: MatchHit, from: h.ID, score: base + h.score, why: fmt.Sprintf("hit %d", n+1)})
		for _, nb := range nbs[h.ID] {
			if !isFocus(nb.ID) {
				g.add(nb.ID, relation{match: MatchHitNeighbor, hops: 1, from: h.ID, via: h.ID,
					score: base + h.score*float64(g.cfg.neighborShare(h.ID, nb.Via))/100, why: linkedWhy(h.ID, nb.Via)})
			}
		}
	}
	return nil
}

// candidateHits keeps the best hits, in packet order, as deep as the
// budget can use: the first step of the ladder (minHitPool times a power
// of 4) that holds a hit per hitPoolTokens of budget, deeper while the
// hits kept cost under three quarters of the budget. The pool is scored
// deeper than this (sequencePool), so that the order does not depend on
// the budget; the cut only saves pricing candidates no packet of this
// budget could hold. A bigger budget cuts deeper, never shallower.
func (g *gatherer) candidateHits(own []tieredHit) ([]tieredHit, error) {
	depth := minHitPool
	for depth < g.req.Budget/hitPoolTokens {
		depth *= 4
	}
	for depth < len(own) {
		hits := make([]index.Hit, depth)
		for i, h := range own[:depth] {
			hits[i] = h.Hit
		}
		size, err := g.hitsSize(hits)
		if err != nil {
			return nil, err
		}
		if 4*size >= 3*g.req.Budget {
			break
		}
		depth *= 4
	}
	return own[:min(depth, len(own))], nil
}

// hitNeighbors reads the one-hop neighbours of every hit, in one read
// where the source can.
func (g *gatherer) hitNeighbors(hits []tieredHit) (hitNeighbors, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	if nl, ok := g.src.(NeighborLister); ok {
		nbs, err := nl.NeighborsOf(g.req.NS, ids, nil)
		if err != nil {
			return nil, fmt.Errorf("neighbours of the hits: %w", err)
		}
		return nbs, nil
	}
	nbs := hitNeighbors{}
	for _, id := range ids {
		ns, err := g.src.Neighbors(g.req.NS, id, 1, nil)
		if err != nil {
			return nil, fmt.Errorf("neighbours of hit %q: %w", id, err)
		}
		nbs[id] = ns
	}
	return nbs, nil
}

// search takes hits as deep as the budget can use: it starts at about one
// hit per hitPoolTokens of budget (at least firstPool) and looks four
// times as deep while the hits found cost less than three quarters of the budget
// (their neighbours come on top) and more exist, up to maxHitPool or
// Config.HitLimit. The hits' heads are read
// here (the candidates need them anyway) for their cached sizes.
func (g *gatherer) search() ([]index.Hit, error) {
	ceiling := maxHitPool
	if g.cfg.HitLimit > 0 {
		ceiling = g.cfg.HitLimit
	}
	// Depths come from one ladder (the first depth times a power of 4),
	// so a bigger budget never looks less deep.
	limit := g.firstPool()
	for limit < g.req.Budget/hitPoolTokens {
		limit *= 4
	}
	limit = min(limit, ceiling)
	for {
		hits, err := g.srch.Search(g.ctx, index.Query{NS: g.req.NS, Text: g.req.Query, Kinds: g.req.Kinds, Limit: limit, AnyTerm: true})
		if err != nil {
			return nil, fmt.Errorf("search %q in ns %q: %w", g.req.Query, g.req.NS, err)
		}
		if len(hits) < limit || limit >= ceiling {
			return hits, nil
		}
		size, err := g.hitsSize(hits)
		if err != nil {
			return nil, err
		}
		if 4*size >= 3*g.req.Budget {
			return hits, nil
		}
		limit = min(ceiling, 4*limit)
	}
}

// firstPool is the first depth of the hit pool: minHitPool, or
// sequencePool where hits are scored in their sequence context, so that
// every budget up to about 20k orders the same hits the same way (see
// withSequenceContext).
func (g *gatherer) firstPool() int {
	if g.uses(MatchHitNeighbor) {
		return sequencePool
	}
	return minHitPool
}

// hitsSize reads the heads of hits not read yet and sums the cached
// token counts of all of them (bytes/4 where none is cached).
func (g *gatherer) hitsSize(hits []index.Hit) (int, error) {
	var ids []string
	for _, h := range hits {
		if _, ok := g.heads[h.ID]; !ok && h.NS == g.req.NS {
			ids = append(ids, h.ID)
		}
	}
	heads, err := g.src.Heads(g.req.NS, ids)
	if err != nil {
		return 0, fmt.Errorf("read hit records in ns %q: %w", g.req.NS, err)
	}
	for _, h := range heads {
		g.heads[h.ID] = h
	}
	size := 0
	for _, h := range hits {
		r, ok := g.heads[h.ID]
		if !ok {
			continue
		}
		if tc, ok := r.Tokens[g.req.Counter.Name()]; ok {
			size += tc.Title + tc.Body
		} else {
			size += (len(r.Title) + r.BodyBytes) / 4
		}
	}
	return size, nil
}

const (
	minHitPool    = 20
	sequencePool  = 320 // measured: 80 and 160 lose recall from 2k up, 640 gains nothing (BENCHMARKS.md)
	maxHitPool    = 2000
	hitPoolTokens = 60 // a first guess at what a hit costs, neighbours included
)

// linkedWhy says how a neighbour relates to the hit that brought it:
// "after D4:1" and "before D4:1" for a "next" link, else "linked to D4:1
// (rel)".
func linkedWhy(hit string, via store.Link) string {
	switch {
	case via.Rel == "next" && via.From == hit:
		return "after " + hit
	case via.Rel == "next" && via.To == hit:
		return "before " + hit
	}
	return fmt.Sprintf("linked to %s (%s)", hit, via.Rel)
}

// inPlay follows the links of the characters in play: the POV and the
// one-hop neighbours of a focus whose kind is in Config.InPlayKinds.
func (g *gatherer) inPlay(isFocus func(string) bool) error {
	for _, id := range sortedKeys(g.cands) {
		c := g.cands[id]
		if !slices.Contains(g.cfg.InPlayKinds, c.rec.Kind) || !slices.ContainsFunc(c.rels, func(r relation) bool {
			return r.match == MatchPOV || (r.match == MatchNeighbor && r.hops == 1) || r.match == MatchFocus
		}) {
			continue
		}
		ns, err := g.src.Neighbors(g.req.NS, id, 1, nil)
		if err != nil {
			return fmt.Errorf("neighbours of %q: %w", id, err)
		}
		for _, n := range ns {
			if !isFocus(n.ID) {
				g.add(n.ID, relation{match: MatchInPlay, hops: 2, from: id, via: id, why: fmt.Sprintf("in play: linked to %s via %s", id, n.Via.Rel)})
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
		heads, err := g.list(kind)
		if err != nil {
			return err
		}
		for _, h := range heads {
			if !open(h.Meta["status"]) {
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

// open reports whether an obligation status means it is still owed.
func open(status string) bool {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "", "open", "pending", "owed", "active":
		return true
	}
	return false
}

// timeline pulls the nearest timeline entries before (or at) and after the
// focus position.
func (g *gatherer) timeline() error {
	var before, after *store.Record
	for _, kind := range g.cfg.TimelineKinds {
		heads, err := g.list(kind)
		if err != nil {
			return err
		}
		for i := range heads {
			h := &heads[i]
			if h.Order <= 0 || slices.Contains(g.req.Focus, h.ID) || !g.visible(*h) {
				continue
			}
			if h.Order <= g.pos {
				if before == nil || h.Order > before.Order || (h.Order == before.Order && h.ID < before.ID) {
					before = h
				}
			} else if after == nil || h.Order < after.Order || (h.Order == after.Order && h.ID < after.ID) {
				after = h
			}
		}
	}
	if before != nil {
		g.add(before.ID, relation{match: MatchTimeline, why: fmt.Sprintf("timeline before the focus (order %d)", before.Order)})
	}
	if after != nil {
		g.add(after.ID, relation{match: MatchTimeline, why: fmt.Sprintf("timeline after the focus (order %d)", after.Order)})
	}
	return nil
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
			return fmt.Errorf("recent records of ns %q: %w", g.req.NS, err)
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
	var ids []string
	for _, id := range sortedKeys(g.cands) {
		if _, ok := g.heads[id]; !ok {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		heads, err := g.src.Heads(g.req.NS, ids)
		if err != nil {
			return fmt.Errorf("read candidate records in ns %q: %w", g.req.NS, err)
		}
		for _, h := range heads {
			g.heads[h.ID] = h
		}
	}
	for _, id := range sortedKeys(g.cands) {
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
