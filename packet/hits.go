package packet

import (
	"fmt"
	"slices"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// hits adds the full-text hits of the query, as deep as the budget can
// use (Config.HitLimit caps it when set), and, when the profile ranks
// them, each hit's one-hop neighbours, scored just below the hit that
// brought them (a share of its score, Config.neighborShare) so that they
// follow it, and along a sequence the record two after it (afterNext).
func (g *gatherer) hits(isFocus func(string) bool) error {
	if g.srch == nil {
		return invalidValuef(g.req.Query, "query %q needs a search index, and none was given", g.req.Query)
	}
	hits, err := g.search()
	if err != nil {
		return err
	}
	g.warmHits(hits)
	var own []tieredHit
	first := g.firstPool()
	for pos, h := range hits {
		if h.NS == g.req.NS && !isFocus(h.ID) {
			own = append(own, tieredHit{Hit: h, tier: hitTier(pos, first), score: h.Score})
		}
	}
	if !g.uses(MatchHitNeighbor) {
		for n, h := range own {
			g.add(h.ID, relation{match: MatchHit, from: h.ID, score: h.Score, why: fmt.Sprintf("hit %d", n+1)})
		}
		return nil
	}
	nbs := &neighbourReader{g: g, hits: own, nbs: hitNeighbors{}}
	step, err := g.sequenceStep(nbs)
	if err != nil {
		return err
	}
	if step == candidateStep {
		// Every hit's neighbours are read by now (sequenceStep), so the
		// new order leaves nothing for the reader to read by position.
		// The heads give each hit's size (shortness).
		if err := g.readHitHeads(tieredHits(own)); err != nil {
			return err
		}
		own = withSequenceContext(own, nbs.nbs, g.cfg, g.shortness, g.perLength)
	}
	if own, err = g.candidateHits(own, nbs, step); err != nil {
		return err
	}
	later, err := g.afterNext(own, nbs.nbs)
	if err != nil {
		return err
	}
	span, tiers := tierSpan(own), hitTier(len(own), step)
	for n, h := range own {
		// Scores are tie-breaks within a rank: the hits of a shallower
		// step of the ladder, and their neighbours, all come before a
		// deeper one's, so a bigger budget only adds to the end.
		base := float64(tiers-hitTier(n, step)) * span
		deep := hitTier(n, step) > 0
		h.score *= g.perLength(h.ID)
		g.add(h.ID, relation{match: MatchHit, from: h.ID, score: base + h.score, why: fmt.Sprintf("hit %d", n+1), deep: deep})
		for _, nb := range nbs.nbs[h.ID] {
			if !isFocus(nb.ID) {
				g.add(nb.ID, relation{match: MatchHitNeighbor, hops: 1, from: h.ID, via: h.ID, side: sequenceSide(h.ID, nb.Via),
					score: base + h.score*float64(g.cfg.neighborShare(h.ID, nb.Via))/100*g.shortness(nb.ID), why: linkedWhy(h.ID, nb.Via), deep: deep})
			}
		}
		for _, a := range later[h.ID] {
			if !isFocus(a.id) {
				// hops 1: a hit's sequence context, not the graph walk
				// from a focus that ladder step 3 narrows. What lies
				// between them counts too: after a long reply, the
				// next turn is far from the hit.
				g.add(a.id, relation{match: MatchHitNeighbor, hops: 1, from: h.ID, via: h.ID, side: 2,
					score: base + h.score*float64(g.cfg.AfterNextShare)/100*g.shortness(a.id)*g.shortness(a.between), why: "two after " + h.ID, deep: deep})
			}
		}
	}
	return nil
}

// candidateHits keeps the best hits, in packet order, as deep as the
// budget can use: the first depth (step, then a quarter of step more
// each time) whose hits and their neighbours hold at least the budget by
// their sizes (hitsSize), about what they cost in the packet less their
// headings. The packet takes a prefix of that order, so it seldom could
// use a deeper hit. The pool is scored deeper than this (sequencePool),
// so that the order does not depend on the budget; the cut only saves
// pricing candidates no packet of this budget could hold. A bigger
// budget cuts deeper, never shallower. The depths are finer than the
// tiers (hitTier, by 4): on short turns a packet of 8,000 tokens needs
// far fewer hits than the second tier's 320 (p50 11.3 -> 8.3 ms with
// depths that double, 9.2 -> 8.2 ms more with these; the same records
// kept: docs/bench-history).
func (g *gatherer) candidateHits(own []tieredHit, nbs *neighbourReader, step int) ([]tieredHit, error) {
	seen := make(map[string]bool, 3*step)
	size, depth, from := 0, step, 0
	for depth < len(own) {
		if err := nbs.upTo(depth); err != nil {
			return nil, err
		}
		more, err := g.hitsSize(withNeighbours(own[from:depth], nbs.nbs, seen))
		if err != nil {
			return nil, err
		}
		size, from = size+more, depth
		if fits(g.req.Budget, size) { // the hits hold the budget
			break
		}
		depth += max(1, step/4)
	}
	own = own[:min(depth, len(own))]
	return own, nbs.upTo(len(own))
}

// withNeighbours lists hits and their neighbours, each record once and
// none that seen holds; it adds those it lists to seen.
func withNeighbours(hits []tieredHit, nbs hitNeighbors, seen map[string]bool) []index.Hit {
	out := make([]index.Hit, 0, 3*len(hits))
	add := func(h index.Hit) {
		if !seen[h.ID] {
			seen[h.ID] = true
			out = append(out, h)
		}
	}
	for _, h := range hits {
		add(h.Hit)
		for _, nb := range nbs[h.ID] {
			add(index.Hit{NS: h.NS, ID: nb.ID})
		}
	}
	return out
}

// neighbourReader reads the one-hop neighbours of hits (in their search
// order) as far as they are needed: nbs holds those of hits[:read].
type neighbourReader struct {
	g    *gatherer
	hits []tieredHit
	nbs  hitNeighbors
	read int
}

// upTo reads the neighbours of hits[:n] not read yet.
func (r *neighbourReader) upTo(n int) error {
	n = min(n, len(r.hits))
	if n <= r.read {
		return nil
	}
	more, err := r.g.hitNeighbors(r.hits[r.read:n])
	if err != nil {
		return err
	}
	// The smaller map goes into the larger: the first read is of 20 hits,
	// the second of the other 300 (upTo 1.36 s -> 1.19 s of the short
	// turns' run). Both maps are this reader's own.
	if len(more) > len(r.nbs) {
		r.nbs, more = more, r.nbs
	}
	for id, nb := range more {
		r.nbs[id] = nb
	}
	r.read = n
	return nil
}

// sequenceStep tells whether the hits are turns of a sequence (one of
// the first minHitPool has a "next" link): then the whole pool is read
// in its sequence context (withSequenceContext) and becomes candidates
// in steps of candidateStep; else sequence context would add nothing,
// and the hits become candidates in steps of minHitPool, their
// neighbours read only as deep as the budget goes. The first hits are
// the same at every budget, and so is the answer.
func (g *gatherer) sequenceStep(nbs *neighbourReader) (int, error) {
	if err := nbs.upTo(minHitPool); err != nil {
		return 0, err
	}
	for _, h := range nbs.hits[:nbs.read] {
		if inSequence(nbs.nbs[h.ID]) {
			return candidateStep, nbs.upTo(len(nbs.hits))
		}
	}
	return minHitPool, nil
}

// afterNext lists, for each hit, the records two "next" links after it
// (Config.AfterNextShare): in a conversation of two, the hit's speaker
// again, whose next turn often carries what the hit began while the reply
// between them only reacts ("Where did you go?"). It reads the
// neighbours of the records just after the hits that are not hits
// themselves (those are read already); nothing when the share is off.
func (g *gatherer) afterNext(own []tieredHit, nbs hitNeighbors) (map[string][]afterNextRecord, error) {
	if g.cfg.AfterNextShare <= 0 {
		return nil, nil
	}
	next := map[string][]string{} // hit -> the records just after it
	var ids []string              // those whose neighbours are not read yet
	for _, h := range own {
		for _, nb := range nbs[h.ID] {
			if sequenceSide(h.ID, nb.Via) == 1 {
				next[h.ID] = append(next[h.ID], nb.ID)
				if _, read := nbs[nb.ID]; !read {
					ids = append(ids, nb.ID)
				}
			}
		}
	}
	if len(next) == 0 {
		return nil, nil
	}
	more := hitNeighbors{}
	if len(ids) > 0 {
		var err error
		if more, err = g.neighboursOf(ids); err != nil {
			return nil, fmt.Errorf("records two after the hits: %w", err)
		}
	}
	out := make(map[string][]afterNextRecord, len(next))
	for _, h := range own {
		for _, n := range next[h.ID] {
			after, read := nbs[n] // n is a hit too
			if !read {
				after = more[n]
			}
			for _, nb := range after {
				if sequenceSide(n, nb.Via) == 1 && nb.ID != h.ID {
					out[h.ID] = append(out[h.ID], afterNextRecord{id: nb.ID, between: n})
				}
			}
		}
	}
	return out, g.sameSpeaker(out)
}

// sameSpeaker keeps, of each hit's records two after it, those its own
// speaker says (meta "speaker", the same on both): the share stands for
// the hit's speaker going on, which only records that name their
// speakers can show. Prose passages and notes have none, and there the
// record two after a hit is no closer to it than any other; measured on
// story passages, the share cost evidence and answers from 500 to 2,000
// tokens (.822 -> .825 at 500 without it), while the chats, which name
// their speakers, kept it.
func (g *gatherer) sameSpeaker(out map[string][]afterNextRecord) error {
	// The speakers are read aside, not into g.heads: a head read there
	// changes what later steps know of a record (its size, in
	// shortness), and so the packet beyond this share. The records two
	// after are read only for hits that name a speaker.
	speakers := make(map[string]string, 2*len(out))
	hits := make([]string, 0, len(out))
	for h := range out {
		hits = append(hits, h)
	}
	if err := g.speakersAside(speakers, hits); err != nil {
		return err
	}
	var after []string
	for h, recs := range out {
		if speakers[h] != "" {
			after = append(after, afterIDs(recs)...)
		}
	}
	if err := g.speakersAside(speakers, after); err != nil {
		return err
	}
	for h, recs := range out {
		speaker := speakers[h]
		out[h] = slices.DeleteFunc(recs, func(a afterNextRecord) bool {
			return speaker == "" || speakers[a.id] != speaker
		})
	}
	return nil
}

// speakersAside puts the speaker (meta "speaker") of each of ids into
// speakers, "" for none: from the gatherer's heads where it has read
// them, else from heads read in one call. Only the speaker is kept:
// with each head copied whole into a map of its own, this share took
// 0.74 s of the short turns' run, 0.45 s with the speakers alone.
func (g *gatherer) speakersAside(speakers map[string]string, ids []string) error {
	var unread []string
	for _, id := range ids {
		if _, done := speakers[id]; done {
			continue
		}
		if _, ok := g.heads[id]; ok {
			// Two lookups, not r, ok := g.heads[id]: that copies the
			// whole record out.
			speakers[id] = g.heads[id].Meta[speakerKey]
		} else {
			speakers[id] = "" // once, even when it does not exist
			unread = append(unread, id)
		}
	}
	if len(unread) == 0 {
		return nil
	}
	slices.Sort(unread)
	read, err := readHeads(g.src, g.req.NS, unread)
	if err != nil {
		return badvalue.Errorf(g.req.NS, "records two after the hits in ns %q: %w", g.req.NS, err)
	}
	for _, r := range read {
		speakers[r.ID] = r.Meta[speakerKey]
	}
	return nil
}

// speakerKey is the meta key that names who says a record (a turn of a
// conversation).
const speakerKey = "speaker"

func afterIDs(recs []afterNextRecord) []string {
	out := make([]string, len(recs))
	for i, a := range recs {
		out[i] = a.id
	}
	return out
}

// tieredHits lists the index hits of hits.
func tieredHits(hits []tieredHit) []index.Hit {
	out := make([]index.Hit, len(hits))
	for i, h := range hits {
		out[i] = h.Hit
	}
	return out
}

// afterNextRecord is a record two "next" links after a hit, and the
// record between them.
type afterNextRecord struct{ id, between string }

// hitNeighbors reads the one-hop neighbours of every hit.
func (g *gatherer) hitNeighbors(hits []tieredHit) (hitNeighbors, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	nbs, err := g.neighboursOf(ids)
	if err != nil {
		return nil, fmt.Errorf("neighbours of the hits: %w", err)
	}
	return nbs, nil
}

// neighboursOf reads the one-hop neighbours of ids, in one read where
// the source can, else one read each.
func (g *gatherer) neighboursOf(ids []string) (hitNeighbors, error) {
	if nl, ok := g.src.(NeighborLister); ok {
		return nl.NeighborsOf(g.req.NS, ids, nil)
	}
	nbs := hitNeighbors{}
	for _, id := range ids {
		ns, err := g.src.Neighbors(g.req.NS, id, 1, nil)
		if err != nil {
			return nil, badvalue.Errorf(id, "record %q: %w", id, err)
		}
		nbs[id] = ns
	}
	return nbs, nil
}

// search takes hits as deep as the budget can use: it starts at about one
// hit per hitPoolTokens of budget (at least firstPool) and looks four
// times as deep while the hits found cost less than three quarters of the budget
// (their neighbours come on top) and more exist, up to maxHitPool or
// Config.HitLimit. The best hits' heads are read here (the candidates
// need them anyway) for their cached sizes, as far as the decision needs.
func (g *gatherer) search() ([]index.Hit, error) {
	ceiling := g.hitCeiling()
	q := g.firstSearch()
	for {
		var hits []index.Hit
		var err error
		if g.ahead != nil {
			hits, err = g.ahead.wait() // this very search, started when the gather began (searchahead.go)
		} else {
			hits, err = g.srch.Search(g.ctx, q)
		}
		g.ahead = nil
		if err != nil {
			return nil, badvalue.Errorf(g.req.Query, "search %q in ns %q: %w", g.req.Query, g.req.NS, err)
		}
		limit := q.Limit
		if len(hits) < limit || limit >= ceiling {
			return hits, nil
		}
		full, err := g.hitsHold(hits, (3*g.req.Budget+3)/4)
		if err != nil {
			return nil, err
		}
		if full {
			return hits, nil
		}
		q.Limit = min(ceiling, 4*limit)
	}
}

// hitCeiling is the deepest the hit pool looks.
func (g *gatherer) hitCeiling() int {
	if g.cfg.HitLimit > 0 {
		return g.cfg.HitLimit
	}
	return maxHitPool
}

// firstSearch is the request's first search: depths come from one
// ladder (the first depth times a power of 4), so a bigger budget never
// looks less deep. It depends on the request and the profile alone.
func (g *gatherer) firstSearch() index.Query {
	limit := g.firstPool()
	for limit < g.req.Budget/hitPoolTokens {
		limit *= 4
	}
	limit = min(limit, g.hitCeiling())
	return index.Query{NS: g.req.NS, Text: g.req.Query, Vector: g.req.QueryVector, Kinds: g.req.Kinds, Limit: limit, AnyTerm: true}
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

// hitsHold reports whether the hits' cached sizes (hitsSize) add up to
// at least need tokens. It reads heads in growing batches, best hits
// first, and stops once they do: a sum only grows, so the answer is the
// one a read of every head would give, and a small budget reads the
// heads of the hits it can use, not of the whole pool.
func (g *gatherer) hitsHold(hits []index.Hit, need int) (bool, error) {
	size, batch := 0, minHitPool
	for len(hits) > 0 && !fits(need, size) {
		n := min(batch, len(hits))
		more, err := g.hitsSize(hits[:n])
		if err != nil {
			return false, err
		}
		size, hits, batch = size+more, hits[n:], 2*batch
	}
	return fits(need, size), nil
}

// hitsSize reads the heads of hits not read yet and sums their sizes by
// headSize (bytes, never cached counts, for the reason it gives: a store
// that counts lazily caches counts as it builds, and its second packet
// once differed from its first).
func (g *gatherer) hitsSize(hits []index.Hit) (int, error) {
	if err := g.readHitHeads(hits); err != nil {
		return 0, err
	}
	size := 0
	for _, h := range hits {
		if n, ok := g.headSize(h.ID); ok {
			size += n
		}
	}
	return size, nil
}

// readHitHeads reads the heads of hits not read yet, in one read.
func (g *gatherer) readHitHeads(hits []index.Hit) error {
	var ids []string
	for _, h := range hits {
		if _, ok := g.heads[h.ID]; !ok && h.NS == g.req.NS {
			ids = append(ids, h.ID)
		}
	}
	heads, err := readHeads(g.src, g.req.NS, ids)
	if err != nil {
		return badvalue.Errorf(g.req.NS, "read hit records in ns %q: %w", g.req.NS, err)
	}
	for _, h := range heads {
		g.heads[h.ID] = h
	}
	return nil
}

const (
	minHitPool = 20
	// candidateStep is the first depth of scored hits that become
	// candidates, and the step (times a power of 4) of their tiers:
	// measured, a first step of 20 kept the deeper hits behind the
	// weakest neighbours of the first 20 and lost recall at 2k and 4k;
	// 160 gained .003 at 8k for a third more time at every budget
	// (docs/bench-history).
	candidateStep = 80
	sequencePool  = 320 // measured: 80 and 160 lose recall from 2k up, 640 gains nothing (docs/bench-history)
	maxHitPool    = 2000
	hitPoolTokens = 60 // a first guess at what a hit costs, neighbours included
)

// shortRecord is the size in tokens up to which a hit's neighbour gets
// its whole share of the hit's score (shortness).
const shortRecord = 100

// shortness scales the share of its hit's score that neighbour id gets by
// its size: whole up to shortRecord tokens, then shrinking as the record
// grows (shortRecord / its size). A neighbour is there for context, and
// what context is worth does not grow with its length: a short turn
// beside a hit costs little and often holds the answer the hit asked
// for, a message of a thousand tokens beside it costs a packet of 500
// most of its room. Records of any length are judged alike, whoever
// wrote them and however they are split; 1 when the head is not read.
func (g *gatherer) shortness(id string) float64 {
	if size, ok := g.headSize(id); ok && size > shortRecord {
		return float64(shortRecord) / float64(size)
	}
	return 1
}

// headSize is the size in tokens of record id by its head's bytes (four
// a token of prose), false when its head is not read. Bytes, not a
// cached count: a packet must not depend on whether the store had its
// counts cached.
func (g *gatherer) headSize(id string) (int, bool) {
	r, ok := g.heads[id]
	return (len(r.Title) + r.BodyBytes) / 4, ok
}

// longRecord is the size in tokens past which a hit's score is taken per
// longRecord tokens of its text (perLength).
const longRecord = 300

// perLength scales the score of hit id down by its size past longRecord
// tokens: longRecord / its size. A packet ranks records by what they are
// worth for the tokens they cost, and a long record's search score is
// spread over all its text: its words match somewhere in a thousand
// tokens, a short message's in one statement. Measured on long
// user/assistant chats (messages of 40 to 2,000 tokens), where most of
// the evidence is short messages: recall at 500 / 1k / 2k tokens .362 /
// .439 / .532 -> .396 / .505 / .566; short turns the same, story
// passages (most under 300 tokens) .824 -> .816 at 500 (docs/bench-history).
// 1 when the head is not read.
func (g *gatherer) perLength(id string) float64 {
	if size, ok := g.headSize(id); ok && size > longRecord {
		return float64(longRecord) / float64(size)
	}
	return 1
}

// sequenceSide is where a neighbour sits along a hit's "next" chain: -1
// just before it, +1 just after it, 0 for any other link.
func sequenceSide(hit string, via store.Link) int {
	switch {
	case via.Rel == sequenceRel && via.From == hit:
		return 1
	case via.Rel == sequenceRel && via.To == hit:
		return -1
	}
	return 0
}

// linkedWhy says how a neighbour relates to the hit that brought it:
// "after D4:1" and "before D4:1" for a "next" link, else "linked to D4:1
// (rel)".
func linkedWhy(hit string, via store.Link) string {
	switch sequenceSide(hit, via) {
	case 1:
		return "after " + hit
	case -1:
		return "before " + hit
	}
	return fmt.Sprintf("linked to %s (%s)", hit, via.Rel)
}
