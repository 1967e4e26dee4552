package packet

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
)

// measure fills token counts from the cache, counting (and caching) the
// records that have none for this encoding, then prices every entry and
// note (pipeline step 3). No body is read for a record with a cached count.
func (b *builder) measure() error {
	if err := b.countMissing(); err != nil {
		return err
	}
	if b.req.checkOnly && b.req.Format == "md" && !fits(b.protectedFloor(), b.req.Budget) {
		return errOverFloor
	}
	if err := b.excerpts(); err != nil {
		return err
	}
	if b.flagged != nil {
		if err := b.flagged(); err != nil {
			return err
		}
	}
	// Not before the floor: a build stopped there loads no body.
	b.bodiesAhead = b.startBodiesAhead()
	n := len(b.cands)
	b.cost, b.note, b.step, b.forms = make([][3]int, n), make([]int, n), make([]int, n), make([]form, n)
	for i, c := range b.cands {
		c.idx = i
	}
	count := b.req.Counter.Count
	b.frags = newFragmentCounter(b.req.Counter)
	priceEach(len(b.cands), b.price)
	empty := &Packet{Request: b.req, Budget: b.req.Budget, Warnings: b.warns, Superseded: b.superseded}
	b.base = count(render(b.req.Format, view{p: empty, tokens: b.req.Budget, hash: placeholderHash})) + count(sectionFrame(b.req.Format)) + b.sectionHeadings()
	if b.req.Format == "md" && slices.ContainsFunc(b.cands, func(c *candidate) bool { return c.excerpt != nil }) {
		b.base += count(mdExcerptLine(b.req.NS))
	}
	sum := 0
	for i := range b.cands {
		sum += b.note[i]
	}
	if !b.listsNotes() {
		for i := range b.cands {
			sum += b.cost[i][formFull] // a bound of the notes' widest figures
		}
	}
	b.noteShare = b.req.Budget * b.cfg.noteShare(b.req.ranking) / 100
	if sum > b.noteShare {
		b.priceGroups(sum)
	}
	return nil
}

// countMissing takes each candidate's token counts from the cache, and
// counts (and caches, where the source can) those of the records with
// none for this encoding; a cache that cannot be written is a warning.
func (b *builder) countMissing() error {
	enc := b.req.Counter.Name()
	var missing []string
	for _, c := range b.cands {
		if tc, ok := c.rec.Tokens[enc]; ok {
			c.tc = tc
		} else {
			missing = append(missing, c.rec.ID)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// The bodies read to be counted are kept apart from those loaded:
	// trial renders stand in for bodies not loaded yet, and a packet must
	// not depend on whether the store had its counts cached. loadBodies
	// takes them from there instead of reading them again.
	slices.Sort(missing)
	bodies, err := b.src.Bodies(b.req.NS, missing)
	if err != nil {
		return badvalue.Errorf(b.req.NS, "read bodies in ns %q to count them: %w", b.req.NS, err)
	}
	b.counted = bodies
	setter, _ := b.src.(TokenSetter)
	var cacheErr error
	for _, c := range b.cands {
		if _, ok := c.rec.Tokens[enc]; ok {
			continue
		}
		c.tc = store.TokenCount{Title: b.req.Counter.Count(c.rec.Title), Body: b.req.Counter.Count(bodies[c.rec.ID]), Summary: b.req.Counter.Count(c.rec.Summary)}
		if setter != nil && cacheErr == nil {
			if err := setter.SetTokens(b.req.NS, c.rec.ID, enc, c.tc); err != nil && !errors.Is(err, store.ErrReadOnly) {
				cacheErr = err
			}
		}
	}
	if cacheErr != nil {
		b.warns = append(b.warns, fmt.Sprintf("token counts for %s were not cached: %v", enc, cacheErr))
	}
	return nil
}

// price prices candidate i's entry in every form and its note (the
// longest the note can be), rendering each into buf.
func (b *builder) price(i int, buf *bytes.Buffer) {
	c := b.cands[i]
	for f := formFull; f <= formTitle; f++ {
		if f == formSummary && c.rec.Summary == "" {
			continue // no summary: the form is never used (priced below as the whole)
		}
		if f == formTitle && c.rec.Summary != "" {
			b.cost[i][f] = b.cost[i][formFull] // never used: the summary is the shorter form
			continue
		}
		e := b.entry(c, f, "")
		text := 0
		if f == formFull {
			text = c.tc.Body // the body is not read yet: its cached count
		}
		b.cost[i][f] = b.countEntry(e, buf) + text // a summary is in its entry already
	}
	full := b.cost[i][formFull]
	if !b.listsNotes() {
		return
	}
	reasons := []string{"dropped: over budget on re-count", fmt.Sprintf("replaced by summary: saves %s", numfmt.Thousands(full))}
	if c.rec.Summary == "" {
		b.cost[i][formSummary] = full // saves nothing: no step shows it
		reasons = reasons[:1]
	}
	if b.cfg.Profiles[b.req.ranking].Grow {
		reasons = append(reasons, heldBackReason)
	}
	worst := 0
	for _, reason := range reasons {
		worst = max(worst, b.countNote(Note{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Step: 4, Action: "collapsed",
			Tokens: full, Saves: full, Reason: reason, Fetch: b.fetchOf(c)}, buf))
	}
	b.note[i] = worst
}

// countEntry counts entry e alone (fragment). A markdown entry is
// written into buf and counted there: pricing writes hundreds of them a
// packet, each to be counted and dropped.
func (b *builder) countEntry(e Entry, buf *bytes.Buffer) int {
	if b.req.Format != "md" {
		return b.frags.Count(b.fragment(e))
	}
	buf.Reset()
	writeMDEntry(buf, e, true)
	return b.frags.countBytes(buf.Bytes())
}

// countNote counts note n alone (noteFragment), as countEntry does.
func (b *builder) countNote(n Note, buf *bytes.Buffer) int {
	if b.req.Format != "md" {
		return b.frags.Count(b.noteFragment(n))
	}
	buf.Reset()
	writeMDNote(buf, n)
	return b.frags.countBytes(buf.Bytes())
}

// listsNotes reports whether the packet may list notes one by one: not
// where the profile's note share is -1 (agent), whose notes are grouped
// from the start, so their one-by-one prices would go unread.
func (b *builder) listsNotes() bool { return b.cfg.noteShare(b.req.ranking) > 0 }

// priceGroups prices grouped notes, for when the notes one a record
// (sum) would take more than their share: one line per kind, at most
// maxGroups of them and a line for the other kinds, priced at the
// longest lines that can occur.
func (b *builder) priceGroups(sum int) {
	count := b.req.Counter.Count
	b.canGroup = true
	b.groupCost = count(explainHint)
	var kinds []string
	for _, c := range b.cands {
		if !slices.Contains(kinds, c.rec.Kind) {
			kinds = append(kinds, c.rec.Kind)
		}
	}
	slices.SortFunc(kinds, func(x, y string) int { return cmp.Compare(len(y), len(x)) })
	for i, k := range kinds {
		g := NoteGroup{Kind: k, Count: len(b.cands), Tokens: 10 * sum, MinRank: 1, MaxRank: 11, of: []string{k}}
		if i == maxGroups {
			g.Kind, g.Kinds, g.of = "", len(kinds), kinds // at most every kind
		}
		g.Fetch = b.deferredCmd(g)
		b.groupCost += count(b.groupFragment(g))
		if i == maxGroups {
			break
		}
	}
}

// sectionHeadings prices the section heading (markdown) or element (XML)
// of every rank
// among the candidates, with the longest kind of the rank, and the hits
// label where the rank holds search hits.
func (b *builder) sectionHeadings() int {
	if b.req.Format == "json" {
		return 0
	}
	heads := map[int]Entry{}
	for _, c := range b.cands {
		h, ok := heads[c.rank]
		if !ok || len(c.rec.Kind) > len(h.Kind) {
			h.Rank, h.Kind = c.rank, c.rec.Kind
		}
		h.hit = h.hit || c.match == MatchHit
		heads[c.rank] = h
	}
	t := 0
	for _, h := range heads {
		if b.req.Format == "xml" {
			t += b.req.Counter.Count(xmlSection([]Entry{h}, h.Kind) + "</section>\n")
		} else {
			t += b.req.Counter.Count(mdSection([]Entry{h}, h.Kind, false))
		}
	}
	return t
}

// priceEach calls price(i, buf) for every i in [0, n), on all cores when
// n is large, with a buffer of the calling goroutine's own to render
// into. price must touch only what belongs to i (the counters are safe
// for concurrent use); the results do not depend on the order.
func priceEach(n int, price func(i int, buf *bytes.Buffer)) {
	onCores(n, minParallelPrices, func() *bytes.Buffer { return new(bytes.Buffer) }, price)
}

// onCores calls each(i, state) for every i in [0, n): on the calling
// goroutine when n is under atLeast or there is one core, else on up to
// one goroutine a core, none with fewer than atLeast/2 calls to share,
// each taking the next i as it is free and holding a state of its own
// (newState). each must touch only what belongs to i.
func onCores[S any](n, atLeast int, newState func() S, each func(i int, state S)) {
	procs := runtime.GOMAXPROCS(0)
	if n < atLeast || procs < 2 {
		s := newState()
		for i := range n {
			each(i, s)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(procs, n/max(1, atLeast/2)) {
		wg.Go(func() {
			s := newState()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				each(i, s)
			}
		})
	}
	wg.Wait()
}

func (b *builder) groupFragment(g NoteGroup) string {
	switch b.req.Format {
	case "xml":
		return xmlGroup(g)
	case "json":
		return jsonFragment(g)
	default:
		return mdGroup(g)
	}
}

// sectionFrame is the text of the sections that appear once a packet has
// records and notes.
func sectionFrame(format string) string {
	switch format {
	case "xml":
		return "<contents>999 records: 99 record, 99 record, 99 record</contents>\n<deferred>\n</deferred>\n"
	case "json":
		return "" // the arrays are in the empty packet already
	default:
		return "Inside: 999 records: 99 record, 99 record, 99 record\n\n## Deferred: 999 records, 99,999 tokens\n"
	}
}

func (b *builder) fragment(e Entry) string { return entryFragment(b.req.Format, e) }

func (b *builder) noteFragment(n Note) string {
	switch b.req.Format {
	case "xml":
		return xmlNote(n)
	case "json":
		return jsonFragment(n)
	default:
		return mdNote(n)
	}
}

// entry is candidate c as a packet entry in form f with text.
func (b *builder) entry(c *candidate, f form, text string) Entry {
	e := Entry{ID: c.rec.ID, Kind: c.rec.Kind, Title: c.rec.Title, Rank: c.rank, Why: c.why, Form: f.String(), hit: c.match == MatchHit,
		Contradicts: c.contradicts}
	if c.side != 0 {
		// Priced as it renders in the usual case, beside its hit (the
		// re-count covers the rest).
		e.of, e.side, e.beside = c.origin, c.side, true
	}
	switch f {
	case formSummary:
		e.Text = c.rec.Summary
		e.Fetch = b.fetchOf(c)
	case formTitle:
		e.Fetch = b.fetchOf(c)
	default:
		e.Text = text
		if c.rec.Binary && text == "" {
			e.Text = "(binary content, not shown)"
		}
		if c.excerpt != nil {
			e.Form, e.Omitted, e.Fetch = formExcerpt, c.excerpt.omitted, b.fetchOf(c)
		}
	}
	if b.cost != nil && f <= formTitle {
		e.Tokens = b.cost[c.idx][f]
	}
	return e
}

// readBodies returns the bodies of ids without loading them: those read
// already to be counted (countMissing) from there, the rest from the
// source in one read.
func (b *builder) readBodies(ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	var need []string
	for _, id := range ids {
		if body, ok := b.counted[id]; ok {
			out[id] = body
		} else {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return out, nil
	}
	slices.Sort(need)
	m, err := b.src.Bodies(b.req.NS, need)
	if err != nil {
		return nil, badvalue.Errorf(b.req.NS, "read bodies in ns %q: %w", b.req.NS, err)
	}
	for _, id := range need {
		out[id] = m[id]
	}
	return out, nil
}

// loadBodies loads the bodies of ids not loaded yet: read already to be
// counted, or read ahead, or else from the source (readBodies).
func (b *builder) loadBodies(ids []string) error {
	var rest []string
	for _, id := range ids {
		if _, ok := b.bodies[id]; ok {
			continue
		}
		if _, counted := b.counted[id]; !counted {
			if body, ok := b.bodiesAhead.wait()[id]; ok {
				b.bodies[id] = body // read ahead (bodiesahead.go)
				aheadStats.used.Add(1)
				continue
			}
		}
		rest = append(rest, id)
	}
	if len(rest) == 0 {
		return nil
	}
	m, err := b.readBodies(rest)
	if err != nil {
		return err
	}
	for id, body := range m {
		b.bodies[id] = body
	}
	return nil
}
