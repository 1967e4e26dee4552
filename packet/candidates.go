package packet

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
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
	return g.dropHiddenBridges()
}

// hits adds the full-text hits of the query, as deep as the budget can
// use (Config.HitLimit caps it when set), and, when the profile ranks
// them, each hit's one-hop neighbours, scored just below the hit that
// brought them (Config.NeighborShare of its score) so that they follow it.
func (g *gatherer) hits(isFocus func(string) bool) error {
	if g.srch == nil {
		return invalidf("query %q needs a search index, and none was given", g.req.Query)
	}
	limit := hitPool(g.req.Budget)
	if g.cfg.HitLimit > 0 {
		limit = min(limit, g.cfg.HitLimit)
	}
	hits, err := g.srch.Search(g.ctx, index.Query{NS: g.req.NS, Text: g.req.Query, Kinds: g.req.Kinds, Limit: limit, AnyTerm: true})
	if err != nil {
		return fmt.Errorf("search %q in ns %q: %w", g.req.Query, g.req.NS, err)
	}
	neighbours := g.uses(MatchHitNeighbor)
	n := 0
	for _, h := range hits {
		if h.NS != g.req.NS || isFocus(h.ID) {
			continue
		}
		n++
		g.add(h.ID, relation{match: MatchHit, from: h.ID, score: h.Score, why: fmt.Sprintf("hit %d", n)})
		if !neighbours {
			continue
		}
		ns, err := g.src.Neighbors(g.req.NS, h.ID, 1, nil)
		if err != nil {
			return fmt.Errorf("neighbours of hit %q: %w", h.ID, err)
		}
		for _, nb := range ns {
			if !isFocus(nb.ID) {
				g.add(nb.ID, relation{match: MatchHitNeighbor, hops: 1, from: h.ID, via: h.ID,
					score: h.Score * float64(g.cfg.NeighborShare) / 100, why: linkedWhy(h.ID, nb.Via)})
			}
		}
	}
	return nil
}

// hitPool is how many search hits a packet of budget tokens considers: a
// short record costs about hitPoolTokens, so the pool can fill the budget
// (with room for the put-back to choose), never fewer than minHitPool.
func hitPool(budget int) int {
	return min(maxHitPool, max(minHitPool, budget/hitPoolTokens))
}

const (
	minHitPool    = 20
	maxHitPool    = 2000
	hitPoolTokens = 20
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
	for _, id := range sortedKeys(g.cands) {
		c := g.cands[id]
		var kept []relation
		lost, lostWhy := "", ""
		for _, r := range c.rels {
			why, hidden := g.hiddenBridge(r.via)
			if r.via == "" || !hidden {
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
		return nil, fmt.Errorf("neighbours of %q: %w", focus, err)
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
			return nil, fmt.Errorf("neighbours of %q: %w", mid, err)
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

// visible applies story time: with AsOf, a record whose meta.from is after
// it, or whose meta.until is before it, is not loaded (both bounds are
// inclusive: "until 5" still holds at 5).
func (g *gatherer) visible(r store.Record) bool {
	_, ok := g.storyTime(r)
	return ok
}

// storyTime returns why r is outside story time, and false when it is.
func (g *gatherer) storyTime(r store.Record) (string, bool) {
	if g.req.AsOf == 0 {
		return "", true
	}
	if from := r.Meta["from"]; from != "" {
		if at, ok := g.position(from); ok && at > g.req.AsOf {
			return fmt.Sprintf("story time: valid from %s, after as-of %d", from, g.req.AsOf), false
		} else if !ok {
			g.warns = append(g.warns, fmt.Sprintf("record %q: meta.from %q is not a position or a record with an order; story time ignores it", r.ID, from))
		}
	}
	if until := r.Meta["until"]; until != "" {
		if at, ok := g.position(until); ok && at < g.req.AsOf {
			return fmt.Sprintf("story time: valid until %s, before as-of %d", until, g.req.AsOf), false
		} else if !ok {
			g.warns = append(g.warns, fmt.Sprintf("record %q: meta.until %q is not a position or a record with an order; story time ignores it", r.ID, until))
		}
	}
	return "", true
}

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
		if !slices.ContainsFunc(c.rels, func(r relation) bool { return r.match != MatchInPlay }) &&
			!slices.ContainsFunc(g.prof.Rules, func(r Rule) bool {
				return r.Match == MatchInPlay && (len(r.Kinds) == 0 || slices.Contains(r.Kinds, kind))
			}) {
			continue // reached only through a character in play, and no rule wants its kind
		}
		if !focus {
			if len(g.req.Kinds) > 0 && !slices.Contains(g.req.Kinds, kind) {
				g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: fmt.Sprintf("kind %q not among --kinds", kind)})
				continue
			}
			if slices.Contains(g.req.ExcludeKinds, kind) {
				g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: fmt.Sprintf("kind %q excluded", kind)})
				continue
			}
			if why, ok := g.storyTime(c.rec); !ok {
				g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: why})
				continue
			}
		}
		slices.SortStableFunc(c.rels, func(a, b relation) int {
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
		var rule *Rule
		var via relation
	find:
		for i := range g.prof.Rules {
			for _, rel := range c.rels {
				if matches(g.prof.Rules[i], rel, kind) {
					rule, via = &g.prof.Rules[i], rel
					break find
				}
			}
		}
		if rule == nil {
			// A record reached only through a character in play is looked
			// at for its kind alone: not a candidate unless a rule takes it.
			if !slices.ContainsFunc(c.rels, func(r relation) bool { return r.match != MatchInPlay }) {
				continue
			}
			g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: "no rank rule of profile " + g.req.Profile + " matches"})
			continue
		}
		if !g.holds(*rule, kind) {
			g.skips = append(g.skips, Skip{ID: id, Kind: kind, Reason: fmt.Sprintf("rank %d condition false: %s", rule.Rank, describeWhen(rule.When))})
			continue
		}
		c.rank, c.why, c.hops, c.match = rule.Rank, via.why, via.hops, via.match
		if via.match == matchPull && rule.Label != "" {
			c.why = rule.Label
		}
		for _, rel := range c.rels {
			c.score = max(c.score, rel.score)
		}
		c.origin = via.from
		c.protected = slices.Contains(g.prof.Protected, c.rank)
		c.pinned = c.rec.Pinned
		c.history = slices.Contains(g.cfg.TimelineKinds, kind) && c.rank != 1
		c.fidx = len(g.req.Focus)
		if focus {
			c.fidx = slices.Index(g.req.Focus, id)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, compareCandidates)
	return out
}

// compareCandidates is the packet order: most important first.
func compareCandidates(a, b *candidate) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(a.fidx, b.fidx); c != 0 {
		return c // focus records first, in the order asked
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
