package packet

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// form is how a candidate appears in the packet.
type form uint8

const (
	formFull    form = iota // the body
	formSummary             // the summary and a citation
	formTitle               // the title and a citation (history without summary)
	formOut                 // left out by a ladder step
)

func (f form) String() string {
	return [...]string{"full", "summary", "title", "out"}[f]
}

// builder measures and fits ranked candidates (pipeline steps 3 to 6).
type builder struct {
	req    Request
	cfg    Config
	src    Source
	cands  []*candidate
	bodies map[string]string // loaded bodies by id
	warns  []string

	cost [][3]int // per candidate: entry cost by form (full, summary, title)
	note []int    // per candidate: cost of its deferral note
	base int      // the frame without notes
	// Notes beyond a share of the budget are grouped by kind instead of
	// listed one by one (a store with hundreds of candidates would
	// otherwise spend the budget on notes).
	grouping  bool
	canGroup  bool  // the notes exceed the share: grouping can help
	noteShare int   // tokens the listed notes may take when grouping
	groupCost int   // the group lines, one per kind, when grouping
	step      []int // per candidate: the ladder step that reduced it
	forms     []form
	// What the last ladder run kept (with Fit's truncations) and
	// deferred, for the final put-back.
	kept []budget.Fitted
	defs map[string]budget.Deferred
	// trial renders stand in for bodies not read yet with text of their
	// cached token count (see stand), so that a put-back can be counted
	// whole without reading the body of a record that then stays out.
	trial  bool
	stands map[int]string
	// memo counts the builder's whole renders (see memoCounter); the
	// packets it assembles count with it until Build hands one out.
	memo *memoCounter
}

// measure fills token counts from the cache, counting (and caching) the
// records that have none for this encoding, then prices every entry and
// note (pipeline step 3). No body is read for a record with a cached count.
func (b *builder) measure() error {
	enc := b.req.Counter.Name()
	var missing []string
	for _, c := range b.cands {
		if tc, ok := c.rec.Tokens[enc]; ok {
			c.tc = tc
		} else {
			missing = append(missing, c.rec.ID)
		}
	}
	if len(missing) > 0 {
		if err := b.loadBodies(missing); err != nil {
			return err
		}
		setter, _ := b.src.(TokenSetter)
		var cacheErr error
		for _, c := range b.cands {
			if _, ok := c.rec.Tokens[enc]; ok {
				continue
			}
			c.tc = store.TokenCount{Title: b.req.Counter.Count(c.rec.Title), Body: b.req.Counter.Count(b.bodies[c.rec.ID]), Summary: b.req.Counter.Count(c.rec.Summary)}
			if setter != nil && cacheErr == nil {
				if err := setter.SetTokens(b.req.NS, c.rec.ID, enc, c.tc); err != nil && !errors.Is(err, store.ErrReadOnly) {
					cacheErr = err
				}
			}
		}
		if cacheErr != nil {
			b.warns = append(b.warns, fmt.Sprintf("token counts for %s were not cached: %v", enc, cacheErr))
		}
	}
	n := len(b.cands)
	b.cost, b.note, b.step, b.forms = make([][3]int, n), make([]int, n), make([]int, n), make([]form, n)
	for i, c := range b.cands {
		c.idx = i
	}
	count := b.req.Counter.Count
	priceEach(len(b.cands), func(i int) {
		c := b.cands[i]
		for f := formFull; f <= formTitle; f++ {
			e := b.entry(c, f, "")
			text := 0
			switch f {
			case formFull:
				text = c.tc.Body
			case formSummary:
				text = c.tc.Summary
			}
			b.cost[i][f] = count(b.fragment(e)) + text
		}
		full := b.cost[i][formFull]
		worst := 0
		for _, reason := range []string{"dropped: over budget on re-count", fmt.Sprintf("replaced by summary: saves %s", thousands(full))} {
			worst = max(worst, count(b.noteFragment(Note{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Step: 4, Action: "collapsed",
				Tokens: full, Saves: full, Reason: reason, Fetch: fetchCmd(b.req.NS, c.rec.ID)})))
		}
		b.note[i] = worst
	})
	empty := &Packet{Request: b.req, Budget: b.req.Budget, Warnings: b.warns}
	b.base = count(render(b.req.Format, view{p: empty, tokens: b.req.Budget, hash: placeholderHash})) + count(sectionFrame(b.req.Format)) + b.sectionHeadings()
	sum := 0
	for i := range b.cands {
		sum += b.note[i]
	}
	b.noteShare = b.req.Budget * b.cfg.NoteShare / 100
	if sum > b.noteShare {
		b.canGroup = true
		b.groupCost = count(explainHint)
		var kinds []string
		for _, c := range b.cands {
			if !slices.Contains(kinds, c.rec.Kind) {
				kinds = append(kinds, c.rec.Kind)
			}
		}
		// One line per kind, at most maxGroups of them and a line for
		// the other kinds: price the longest lines that can occur.
		slices.SortFunc(kinds, func(x, y string) int { return cmp.Compare(len(y), len(x)) })
		for i, k := range kinds {
			if i == maxGroups {
				b.groupCost += count(b.groupFragment(NoteGroup{Count: len(b.cands), Kinds: len(kinds), Tokens: 10 * sum, MinRank: 1, MaxRank: 11,
					Fetch: b.explainCmd()}))
				break
			}
			b.groupCost += count(b.groupFragment(NoteGroup{Kind: k, Count: len(b.cands), Tokens: 10 * sum, MinRank: 1, MaxRank: 11,
				Fetch: b.explainCmd()}))
		}
	}
	return nil
}

// sectionHeadings prices the markdown section heading of every rank
// among the candidates, with the longest kind of the rank.
func (b *builder) sectionHeadings() int {
	if b.req.Format != "md" && b.req.Format != "" {
		return 0
	}
	longest := map[int]string{}
	for _, c := range b.cands {
		if k, ok := longest[c.rank]; !ok || len(c.rec.Kind) > len(k) {
			longest[c.rank] = c.rec.Kind
		}
	}
	t := 0
	for rank, kind := range longest {
		t += b.req.Counter.Count(mdSection([]Entry{{Rank: rank, Kind: kind, hit: true}}, rank))
	}
	return t
}

// minParallelPrices is the number of candidates from which measure
// prices them on all cores: below it the goroutines cost more than the
// counting they share.
const minParallelPrices = 64

// priceEach calls price(i) for every i in [0, n), on all cores when n is
// large. price must touch only what belongs to i (the counters are safe
// for concurrent use); the results do not depend on the order.
func priceEach(n int, price func(i int)) {
	procs := runtime.GOMAXPROCS(0)
	if n < minParallelPrices || procs < 2 {
		for i := range n {
			price(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(procs, n/(minParallelPrices/2)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				price(i)
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
		return "<contents>\n</contents>\n<deferred>\n</deferred>\n"
	case "json":
		return "" // the arrays are in the empty packet already
	default:
		return "Inside: 999 records: 99 record, 99 record, 99 record\n\n## Deferred: 999 records, 99,999 tokens\n"
	}
}

func (b *builder) fragment(e Entry) string {
	switch b.req.Format {
	case "xml":
		return xmlIndexLine(e) + xmlEntry(e)
	case "json":
		return jsonFragment(e)
	default:
		return mdEntry(e, true)
	}
}

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
	e := Entry{ID: c.rec.ID, Kind: c.rec.Kind, Title: c.rec.Title, Rank: c.rank, Why: c.why, Form: f.String(), hit: c.match == MatchHit}
	switch f {
	case formSummary:
		e.Text = c.rec.Summary
		e.Fetch = fetchCmd(b.req.NS, c.rec.ID)
	case formTitle:
		e.Fetch = fetchCmd(b.req.NS, c.rec.ID)
	default:
		e.Text = text
		if c.rec.Binary && text == "" {
			e.Text = "(binary content, not shown)"
		}
	}
	if b.cost != nil && f <= formTitle {
		e.Tokens = b.cost[c.idx][f]
	}
	return e
}

func (b *builder) loadBodies(ids []string) error {
	var need []string
	for _, id := range ids {
		if _, ok := b.bodies[id]; !ok {
			need = append(need, id)
		}
	}
	if len(need) == 0 {
		return nil
	}
	slices.Sort(need)
	m, err := b.src.Bodies(b.req.NS, need)
	if err != nil {
		return fmt.Errorf("read bodies in ns %q: %w", b.req.NS, err)
	}
	for _, id := range need {
		b.bodies[id] = m[id]
	}
	return nil
}

// fixed reports whether candidate i may not be dropped by Fit: protected
// ranks and pinned records.
func (b *builder) fixed(i int) bool { return b.cands[i].protected || b.cands[i].pinned }

// frame is the fixed part as Fit sees it: the frame plus a note for every
// candidate (each one appears either as an entry or as a note); when notes
// are grouped, the share they may take plus the group lines.
func (b *builder) frame() int {
	if b.grouping {
		return b.base + b.noteShare + b.groupCost
	}
	f := b.base
	for i := range b.cands {
		f += b.note[i]
	}
	return f
}

// itemTokens is what keeping candidate i in its current form adds over
// deferring it.
func (b *builder) itemTokens(i int) int {
	switch b.forms[i] {
	case formFull:
		if b.grouping {
			return b.cost[i][formFull]
		}
		return max(0, b.cost[i][formFull]-b.note[i])
	case formOut:
		return 0
	default:
		return b.cost[i][b.forms[i]] // the note stays: the summary is listed as deferred too
	}
}

// fixedTotal is the frame plus every fixed candidate in its current form.
func (b *builder) fixedTotal() int {
	t := b.frame()
	for i := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut {
			t += b.itemTokens(i)
		}
	}
	return t
}

// fitOnce runs budget.Fit over the candidates in their current forms.
func (b *builder) fitOnce(limit int) (budget.Result, error) {
	var items []budget.Item
	var loadErr error
	for i, c := range b.cands {
		if b.forms[i] == formOut {
			continue
		}
		it := budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Tokens: b.itemTokens(i), Rank: c.rank, Score: c.score,
			Order: int64(i), Pinned: b.fixed(i), Action: b.cfg.Overflow[c.rec.Kind]}
		if it.Pinned || b.forms[i] != formFull {
			it.Action = budget.Drop
		}
		if it.Action == budget.Truncate {
			if err := b.loadBodies([]string{c.rec.ID}); err != nil {
				return budget.Result{}, err
			}
			it.Text = b.bodies[c.rec.ID]
			it.MinTokens = min(c.tc.Body, 32)
		}
		items = append(items, it)
	}
	res, err := budget.Fit(budget.Request{
		Items: items, Limit: limit, Counter: b.memo.fitCounter(), Frame: b.frame(),
		Render: func(kept []budget.Fitted) string {
			p, err := b.assemble(kept, nil)
			if err != nil {
				loadErr = err
				return ""
			}
			return render(b.req.Format, view{p: p, tokens: b.req.Budget, hash: placeholderHash})
		},
	})
	if loadErr != nil {
		return res, loadErr
	}
	return res, err
}

// assemble makes the packet of the kept items; every other candidate gets
// a note. deferred, when given, carries Fit's reasons by id.
func (b *builder) assemble(kept []budget.Fitted, deferred map[string]budget.Deferred) (*Packet, error) {
	keep := make(map[string]budget.Fitted, len(kept))
	var full []string
	for _, k := range kept {
		keep[k.ID] = k
	}
	for i, c := range b.cands {
		if _, ok := keep[c.rec.ID]; ok && b.forms[i] == formFull {
			full = append(full, c.rec.ID)
		}
	}
	if !b.trial {
		if err := b.loadBodies(full); err != nil {
			return nil, err
		}
	}
	p := &Packet{Request: b.req, Budget: b.req.Budget, Warnings: b.warns, counter: b.memo, frameWarn: -1}
	type keyed struct {
		n     Note
		score float64
	}
	var notes []keyed
	for i, c := range b.cands {
		full := b.cost[i][formFull]
		k, ok := keep[c.rec.ID]
		if ok {
			text, read := b.bodies[c.rec.ID]
			if !read && b.trial && b.forms[i] == formFull {
				text = b.stand(c.tc.Body)
			}
			e := b.entry(c, b.forms[i], text)
			if k.Truncated {
				e.Text, e.Truncated, e.Tokens = k.Text, k.Cut, k.Tokens
				e.Fetch = fetchCmd(b.req.NS, c.rec.ID)
			}
			p.Records = append(p.Records, e)
		}
		n := Note{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Tokens: full, Fetch: fetchCmd(b.req.NS, c.rec.ID)}
		switch {
		case ok && k.Truncated:
			// Kept, but shortened: every shortened record gets a note.
			n.Step, n.Action, n.Saves = 1, "truncated", max(0, full-k.Tokens)
			n.Reason = "truncated" + savesText(n.Saves)
		case !ok && b.forms[i] != formOut:
			n.Step, n.Action, n.Reason = 1, "dropped", "dropped: over budget"
			if d, ok := deferred[c.rec.ID]; ok {
				switch d.Rule {
				case budget.RuleRecount:
					n.Reason = "dropped: over budget on re-count"
				case budget.RuleMinimum:
					n.Reason = "dropped: could not be truncated to fit"
				case budget.RuleFrame:
					n.Step, n.Reason = 0, "dropped: the budget is below the frame"
				}
			}
		case b.forms[i] == formOut:
			n.Step, n.Action, n.Reason = b.step[i], "narrowed", "dropped: beyond one hop (hops narrowed to 1)"
		case b.forms[i] == formSummary && b.step[i] == 2:
			n.Step, n.Action, n.Saves = 2, "summary", max(0, full-b.cost[i][formSummary])
			n.Reason = "replaced by summary" + savesText(n.Saves)
		case b.forms[i] == formSummary || b.forms[i] == formTitle:
			n.Step, n.Action, n.Saves = 4, "collapsed", max(0, full-b.cost[i][b.forms[i]])
			n.Reason = fmt.Sprintf("collapsed to %s%s", b.forms[i], savesText(n.Saves))
		default:
			continue
		}
		notes = append(notes, keyed{n, c.score})
	}
	// Notes in the order the ladder deferred them: by step, then least
	// important first (the order of budget.Fit).
	slices.SortFunc(notes, func(a, c keyed) int {
		if x := cmp.Compare(a.n.Step, c.n.Step); x != 0 {
			return x
		}
		if x := cmp.Compare(c.n.Rank, a.n.Rank); x != 0 {
			return x
		}
		if x := cmp.Compare(a.score, c.score); x != 0 {
			return x
		}
		if x := cmp.Compare(c.n.Tokens, a.n.Tokens); x != 0 {
			return x
		}
		return strings.Compare(a.n.ID, c.n.ID)
	})
	for _, k := range notes {
		p.Deferred = append(p.Deferred, k.n)
	}
	b.group(p)
	return p, nil
}

// savesText is ": saves N" for a note, or nothing when the shorter form
// saves nothing (a note never claims a negative saving).
func savesText(n int) string {
	if n <= 0 {
		return ""
	}
	return ": saves " + thousands(n)
}

// group chooses the notes the rendered packet lists one by one: all of
// them, or when grouping, the most important ones within the note share;
// the others are counted by kind.
func (b *builder) group(p *Packet) {
	p.listed = p.Deferred
	if !b.grouping {
		return
	}
	idx := make(map[string]int, len(b.cands))
	for i, c := range b.cands {
		idx[c.rec.ID] = i
	}
	// The most important notes are listed, within the share, and only
	// those that cost well under their record: a note that costs nearly
	// as much as what it stands for is grouped instead.
	order := make([]int, len(p.Deferred))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(idx[p.Deferred[x].ID], idx[p.Deferred[y].ID])
	})
	listed := make([]bool, len(p.Deferred))
	used := 0
	for _, k := range order {
		i := idx[p.Deferred[k].ID]
		cost := b.note[i]
		if cost*noteWorth > b.cost[i][formFull] {
			continue
		}
		if used+cost > b.noteShare {
			break
		}
		used += cost
		listed[k] = true
	}
	p.listed = nil
	groups := map[string]*NoteGroup{}
	for k, n := range p.Deferred {
		if listed[k] {
			p.listed = append(p.listed, n)
			continue
		}
		g, ok := groups[n.Kind]
		if !ok {
			g = &NoteGroup{Kind: n.Kind, MinRank: n.Rank, MaxRank: n.Rank, Fetch: b.explainCmd()}
			groups[n.Kind] = g
		}
		g.Count++
		g.Tokens += n.Tokens
		g.MinRank, g.MaxRank = min(g.MinRank, n.Rank), max(g.MaxRank, n.Rank)
	}
	// The kinds with the most notes get a line each; the rest share one.
	kinds := sortedKeys(groups)
	slices.SortStableFunc(kinds, func(x, y string) int { return cmp.Compare(groups[y].Count, groups[x].Count) })
	var other *NoteGroup
	if len(kinds) > maxGroups+1 {
		other = &NoteGroup{MinRank: groups[kinds[maxGroups]].MinRank, MaxRank: groups[kinds[maxGroups]].MaxRank, Fetch: b.explainCmd()}
		for _, k := range kinds[maxGroups:] {
			g := groups[k]
			other.Count += g.Count
			other.Kinds++
			other.Tokens += g.Tokens
			other.MinRank, other.MaxRank = min(other.MinRank, g.MinRank), max(other.MaxRank, g.MaxRank)
		}
		kinds = kinds[:maxGroups]
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		p.Grouped = append(p.Grouped, *groups[k])
	}
	if other != nil {
		p.Grouped = append(p.Grouped, *other)
	}
}

// noteWorth: a note is listed one by one only when its record costs at
// least this many times the note.
const noteWorth = 3

// explainCmd is the handle of the grouped notes: this request with
// --explain lists every candidate, each deferred one with its reason.
func (b *builder) explainCmd() string {
	return b.command(b.req.Focus, nil) + " --explain"
}

// maxGroups is how many kinds get a group line of their own.
const maxGroups = 5

// keptAll is every candidate kept in full, for the case where everything
// fits.
func (b *builder) keptAll() []budget.Fitted {
	out := make([]budget.Fitted, len(b.cands))
	for i, c := range b.cands {
		out[i] = budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][formFull]}
	}
	return out
}

// fit runs the ladder with every note listed; when that leaves only the
// frame or cannot fit, and the notes are more than Config.NoteShare of the
// budget, it runs again with the least important notes grouped by kind,
// and keeps that packet if it holds records (or is a smaller frame).
func (b *builder) fit() (*Packet, error) {
	if b.canGroup {
		// Notes past their share are grouped from the start, so that a
		// bigger budget never spends itself on listing every note.
		return b.fitWith(true)
	}
	return b.fitWith(false)
}

// fitWith runs the ladder, renders and re-counts the whole packet; while
// the real count is over the budget it fits again against a limit lowered
// by the excess.
func (b *builder) fitWith(grouping bool) (*Packet, error) {
	b.grouping = grouping
	limit := b.req.Budget
	for range 10 {
		p, err := b.ladder(limit)
		if err != nil {
			return nil, err
		}
		out, n := p.settle(b.req.Format)
		if n <= b.req.Budget || p.FrameOnly {
			ladderStep := p.Step
			p.ladderStep = ladderStep
			if !p.FrameOnly && p.Incomplete() {
				if p.Step >= 2 {
					if p, out, n, err = b.rebase(p, out, n); err != nil {
						return nil, err
					}
				}
				if p, out, n, err = b.restore(p, out, n); err != nil {
					return nil, err
				}
				// The step the packet needed in the end: put back may have
				// undone what a later step did.
				p.ladderStep, p.Step = ladderStep, 0
				for _, note := range p.Deferred {
					p.Step = max(p.Step, note.Step)
				}
			}
			p.rendered, p.Tokens = out, n
			p.Hash, _ = ContentHash(b.req.Format, []byte(out))
			return p, nil
		}
		limit -= max(1, n-b.req.Budget)
		if limit < 0 {
			break
		}
	}
	return nil, b.splitError(limit, errors.New("the rendered packet stays over the budget"))
}

// ladder is the deferral ladder of DESIGN.md against limit.
func (b *builder) ladder(limit int) (*Packet, error) {
	for i := range b.forms {
		b.forms[i], b.step[i] = formFull, 0
	}
	total := b.base
	for i := range b.cands {
		total += b.cost[i][formFull]
	}
	// Estimates add up a little over the whole (entries are priced
	// alone), so near the limit the real count decides.
	if total <= limit+limit/10 {
		b.kept, b.defs = b.keptAll(), nil
		p, err := b.assemble(b.kept, nil)
		if err == nil && b.memo.Count(render(b.req.Format, view{p: p, tokens: b.req.Budget, hash: placeholderHash})) <= limit {
			return p, nil
		}
		if err != nil {
			return nil, err
		}
	}
	if limit < b.frame() {
		return b.frameOnly(limit)
	}
	// slack is how far Fit's real count ran over the fixed estimate; each
	// step reduces against the limit less the slack seen so far. When the
	// slack grows at the last step, steps 2 to 4 run again with it (a few
	// passes at most) before the ladder gives up: a bigger budget must not
	// fail where a smaller one, taking another path, fitted.
	slack, passSlack, passes, reached := 0, 0, 0, 0
	for step := 1; ; step++ {
		reached = max(reached, step)
		switch step {
		case 1:
		case 2:
			b.reduce(limit-slack, step, func(i int, c *candidate) bool {
				return c.rank != 1 && !c.history && c.rec.Summary != "" && c.tc.Body >= b.cfg.LongProse &&
					b.cost[i][formSummary] < b.cost[i][formFull]
			}, formSummary)
		case 3:
			b.reduce(limit-slack, step, func(i int, c *candidate) bool { return c.rank != 1 && c.hops >= 2 }, formOut)
		case 4:
			b.reduce(limit-slack, step, func(i int, c *candidate) bool {
				return c.rank != 1 && c.history && b.cost[i][b.shorter(c)] < b.cost[i][formFull]
			}, formSummary)
		default:
			if slack > passSlack && passes < 4 {
				passes++
				passSlack, step = slack, 1
				continue
			}
			return nil, b.splitError(limit, nil)
		}
		res, err := b.fitOnce(limit)
		if err == nil {
			defs := make(map[string]budget.Deferred, len(res.Deferred))
			for _, d := range res.Deferred {
				defs[d.ID] = d
			}
			b.kept, b.defs = res.Kept, defs
			p, err := b.assemble(res.Kept, defs)
			if err != nil {
				return nil, err
			}
			p.Step = min(reached, 4) // a rerun keeps what the later steps of the pass before did
			if res.FrameOnly {
				p.FrameOnly = true
				p.Warnings = append(slices.Clone(p.Warnings), b.frameWarning())
				p.frameWarn = len(p.Warnings) - 1
			}
			return p, nil
		}
		var oe *budget.OverflowError
		if !errors.As(err, &oe) {
			return nil, err
		}
		if oe.Cause == budget.CauseFail {
			return nil, b.splitError(limit, err)
		}
		if est := b.fixedTotal(); oe.Needed > est {
			slack = max(slack, oe.Needed-est)
		}
	}
}

// reducible is the smallest form ladder steps up to last may give
// candidate i, and the step that gives it; formFull, 0 when none may.
func (b *builder) reducible(i, last int) (form, int) {
	c := b.cands[i]
	if !b.fixed(i) || c.pinned || c.rank == 1 {
		return formFull, 0
	}
	short := b.shorter(c)
	switch {
	case last >= 3 && c.hops >= 2:
		return formOut, 3
	case last >= 4 && c.history && b.cost[i][short] < b.cost[i][formFull]:
		return short, 4
	case last >= 2 && !c.history && c.rec.Summary != "" && c.tc.Body >= b.cfg.LongProse && b.cost[i][formSummary] < b.cost[i][formFull]:
		return formSummary, 2
	}
	return formFull, 0
}

// rebase rebuilds a packet the ladder fitted at step 2 or later from one
// base for that step: every record the steps up to it may shorten or
// leave out, shortened or left out; every record step 1 may drop,
// dropped (a record its kind truncates keeps its cut). Then, most
// important first, each record takes the best form that fits by the
// estimates, calibrated by the real count of the ladder's packet; the
// whole is counted again and the last upgrades undone while it is over.
// The ladder's own result depends on where each step's estimates ran out
// (a bigger budget could narrow fewer two-hop records and leave a more
// important record summarised); from one base, a bigger budget gives up
// nothing a smaller one packed before it gives up something less
// important.
func (b *builder) rebase(p *Packet, out string, n int) (*Packet, string, int, error) {
	keep := make(map[string]budget.Fitted, len(b.kept))
	for _, k := range b.kept {
		keep[k.ID] = k
	}
	// share is what candidate i adds to the estimate as it stands.
	share := func(i int) int {
		k, ok := keep[b.cands[i].rec.ID]
		switch {
		case !ok:
			return 0
		case b.forms[i] == formFull && k.Truncated:
			if !b.grouping {
				return k.Tokens - b.note[i]
			}
			return k.Tokens
		}
		return b.itemTokens(i)
	}
	est := func() int {
		t := b.frame()
		for i := range b.cands {
			t += share(i)
		}
		return t
	}
	offset := n - est()
	savedForms, savedSteps := slices.Clone(b.forms), slices.Clone(b.step)
	savedKept, savedDefs := b.kept, b.defs
	fitted := func(i int, f form) budget.Fitted {
		c := b.cands[i]
		return budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][f]}
	}
	// The base.
	for i, c := range b.cands {
		id := c.rec.ID
		if k, ok := keep[id]; ok && k.Truncated {
			continue
		}
		if !b.fixed(i) {
			delete(keep, id)
			b.forms[i], b.step[i] = formFull, 0
			continue
		}
		f, st := b.reducible(i, p.Step)
		b.forms[i], b.step[i] = f, st
		if f == formOut {
			delete(keep, id)
		} else {
			keep[id] = fitted(i, f)
		}
	}
	// Most important first, the best form that fits by the estimate.
	order := make([]int, len(b.cands))
	for i := range order {
		order[i] = i
	}
	b.sortLeastFirst(order)
	type change struct {
		i         int
		form      form
		wasKept   bool
		wasForm   form
		wasStep   int
		wasFitted budget.Fitted
	}
	render := func() (*Packet, string, int, error) {
		kept := make([]budget.Fitted, 0, len(keep))
		defs := map[string]budget.Deferred{}
		for _, c := range b.cands {
			if k, ok := keep[c.rec.ID]; ok {
				kept = append(kept, k)
			} else if d, ok := savedDefs[c.rec.ID]; ok {
				defs[c.rec.ID] = d
			}
		}
		q, err := b.assemble(kept, defs)
		if err != nil {
			return nil, "", 0, err
		}
		q.Step = p.Step
		o, m := q.settle(b.req.Format)
		b.kept, b.defs = kept, defs
		return q, o, m, nil
	}
	var changes []change
	// Near the budget the real count decides (and recalibrates).
	margin := max(8, b.req.Budget/100)
	failAt, checks := math.MaxInt, 0
	// The estimate of the packet as it stands, kept up to date one
	// candidate at a time (est is linear in the candidates).
	cur0 := est()
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		c := b.cands[i]
		id := c.rec.ID
		cur, kept := keep[id]
		if kept && (b.forms[i] == formFull || cur.Truncated) {
			continue
		}
		opts := []form{formFull}
		if f, st := b.reducible(i, p.Step); st > 0 && f == formOut && b.forms[i] == formOut {
			if short := b.shorter(c); b.cost[i][short] < b.cost[i][formFull] {
				opts = append(opts, short) // out at step 3: its shorter form, as a step-2 put-back does
			}
		}
		was := share(i)
		for _, f := range opts {
			ch := change{i: i, form: f, wasKept: kept, wasForm: b.forms[i], wasStep: b.step[i], wasFitted: cur}
			b.forms[i] = f
			b.step[i] = 0
			if f != formFull {
				b.step[i] = 2
				if c.history {
					b.step[i] = 4
				}
			}
			keep[id] = fitted(i, f)
			t := cur0 - was + share(i)
			fits := t+offset <= b.req.Budget-margin
			// A check that failed at an estimate fails above it too: the
			// packet only grows. Checks are few on a large store.
			if !fits && t+offset <= b.req.Budget+margin && t+offset < failAt && checks < maxRebaseChecks {
				checks++
				b.trial = true
				_, _, m, err := render()
				b.trial = false
				if err != nil {
					return nil, "", 0, err
				}
				if fits = m <= b.req.Budget; fits {
					offset = m - t
				} else {
					failAt = t + offset
				}
			}
			if fits {
				changes = append(changes, ch)
				cur0 = t
				break
			}
			b.forms[i], b.step[i] = ch.wasForm, ch.wasStep
			if kept {
				keep[id] = cur
			} else {
				delete(keep, id)
			}
		}
	}
	// Over: undo the least important upgrades, counting with stand-ins
	// first (no body read for what goes back out), then for real.
	var q *Packet
	var o string
	var m int
	for _, trial := range []bool{true, false} {
		for {
			b.trial = trial
			var err error
			q, o, m, err = render()
			b.trial = false
			if err != nil {
				return nil, "", 0, err
			}
			if m <= b.req.Budget || len(changes) == 0 {
				break
			}
			ch := changes[len(changes)-1]
			changes = changes[:len(changes)-1]
			id := b.cands[ch.i].rec.ID
			b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
			if ch.wasKept {
				keep[id] = ch.wasFitted
			} else {
				delete(keep, id)
			}
		}
	}
	if m > b.req.Budget {
		// The base itself is over: keep the ladder's packet.
		copy(b.forms, savedForms)
		copy(b.step, savedSteps)
		b.kept, b.defs = savedKept, savedDefs
		return p, out, n, nil
	}
	return q, o, m, nil
}

// stand is text that counts n tokens (or within a token or two of it,
// for a counter it cannot match exactly): "x x x ..." is one token a word
// for the BPE encodings, and the loop corrects for any other counter.
func (b *builder) stand(n int) string {
	if s, ok := b.stands[n]; ok {
		return s
	}
	if b.stands == nil {
		b.stands = map[int]string{}
	}
	words := n
	s := ""
	for range 4 {
		if words <= 0 {
			s = ""
			break
		}
		s = "x" + strings.Repeat(" x", words-1)
		got := b.req.Counter.Count(s)
		if got == n {
			break
		}
		words += n - got
	}
	b.stands[n] = s
	return s
}

// maxRebaseChecks bounds the whole counts a rebase makes near the budget.
const maxRebaseChecks = 12

// maxRestoreTries bounds the renders of the final put-back: each try
// renders and counts the whole packet.
const maxRestoreTries = 40

// restore is the final put-back (engine rule 5) against the real budget
// with the real count: the ladder's steps carry their estimates' slack
// from one to the next and put back only within a step, so a packet built
// for a bigger budget could hold less than one built for a smaller one.
// Walking every record not in the packet whole, most important first, it
// tries the best form first (whole, then, for a record a ladder step
// shortened, its shorter form) and keeps the first that leaves the
// rendered packet within the budget. out and n are p rendered and its
// count.
func (b *builder) restore(p *Packet, out string, n int) (*Packet, string, int, error) {
	keep := make(map[string]budget.Fitted, len(b.kept))
	for _, k := range b.kept {
		keep[k.ID] = k
	}
	defs := make(map[string]budget.Deferred, len(b.defs))
	for id, d := range b.defs {
		defs[id] = d
	}
	order := make([]int, len(b.cands))
	for i := range order {
		order[i] = i
	}
	b.sortLeastFirst(order)
	build := func(trial bool) (*Packet, string, int, error) {
		kept := make([]budget.Fitted, 0, len(keep))
		for _, cc := range b.cands {
			if k, ok := keep[cc.rec.ID]; ok {
				kept = append(kept, k)
			}
		}
		b.trial = trial
		q, err := b.assemble(kept, defs)
		b.trial = false
		if err != nil {
			return nil, "", 0, err
		}
		q.Step = p.Step
		o, m := q.settle(b.req.Format)
		return q, o, m, nil
	}
	type change struct {
		i            int
		cur          budget.Fitted
		kept, hadDef bool
		wasForm      form
		wasStep      int
		wasDef       budget.Deferred
	}
	undo := func(ch change) {
		id := b.cands[ch.i].rec.ID
		b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
		if ch.kept {
			keep[id] = ch.cur
		} else {
			delete(keep, id)
		}
		if ch.hadDef {
			defs[id] = ch.wasDef
		}
	}
	var changes []change
	failed := map[string]bool{} // counted in with a stand-in, over for real
	tries, failAt := 0, math.MaxInt
	for round := 0; round < 4; round++ {
		for k := len(order) - 1; k >= 0 && tries < maxRestoreTries; k-- {
			i := order[k]
			c := b.cands[i]
			id := c.rec.ID
			cur, kept := keep[id]
			if (kept && b.forms[i] == formFull && !cur.Truncated) || failed[id] {
				continue // whole already
			}
			now := 0 // what the record adds now, over its note
			if kept {
				now = cur.Tokens
			}
			var better []form
			better = append(better, formFull)
			if short := b.shorter(c); b.step[i] > 0 && (!kept || b.forms[i] == formOut) && b.cost[i][short] < b.cost[i][formFull] {
				better = append(better, short) // the ladder shortened it: its shorter form may fit where the whole does not
			}
			for _, f := range better {
				add := b.cost[i][f] - now
				if !kept && f == formFull && !b.grouping {
					add -= b.note[i] // its note goes
				}
				// Entries priced alone add up over the whole (by a tenth or
				// more of a small entry): the count has the last word within
				// a generous margin.
				if n+add > b.req.Budget+max(8, add/4) || n+add >= failAt {
					continue
				}
				tries++
				ch := change{i: i, cur: cur, kept: kept, wasForm: b.forms[i], wasStep: b.step[i]}
				ch.wasDef, ch.hadDef = defs[id]
				b.forms[i] = f
				switch {
				case f == formFull:
					b.step[i] = 0
				case c.history:
					b.step[i] = 4
				default:
					b.step[i] = 2
				}
				keep[id] = budget.Fitted{Item: budget.Item{ID: id, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][f]}
				delete(defs, id)
				// Counted with stand-ins of the cached size for bodies not
				// read yet: no body is read for a record that stays out.
				q, o, m, err := build(true)
				if err != nil {
					return nil, "", 0, err
				}
				if m <= b.req.Budget {
					p, out, n = q, o, m
					changes = append(changes, ch)
					break
				}
				failAt = min(failAt, n+add) // the packet only grows: what failed here fails above
				undo(ch)
			}
		}
		if len(changes) == 0 {
			break
		}
		// The real count, with the real bodies; over (a stand-in counted a
		// token or two short), undo the last put-back and walk again.
		q, o, m, err := build(false)
		if err != nil {
			return nil, "", 0, err
		}
		p, out, n = q, o, m
		if m <= b.req.Budget {
			break
		}
		last := changes[len(changes)-1]
		changes = changes[:len(changes)-1]
		failed[b.cands[last.i].rec.ID] = true
		undo(last)
		if p, out, n, err = build(false); err != nil {
			return nil, "", 0, err
		}
		if n > b.req.Budget {
			// Still over: undo every put-back of this walk.
			for len(changes) > 0 {
				undo(changes[len(changes)-1])
				changes = changes[:len(changes)-1]
			}
			if p, out, n, err = build(false); err != nil {
				return nil, "", 0, err
			}
			break
		}
		changes = changes[:0]
	}
	b.kept = b.kept[:0]
	for _, cc := range b.cands {
		if k, ok := keep[cc.rec.ID]; ok {
			b.kept = append(b.kept, k)
		}
	}
	b.defs = defs
	return p, out, n, nil
}

// reduce applies one ladder step to the fixed candidates that qualify,
// least important first, while the fixed total is over target; then puts
// back, most important first, every reduction (of any step) that still
// fits.
func (b *builder) reduce(target, step int, ok func(int, *candidate) bool, to form) {
	var order []int
	for i, c := range b.cands {
		if b.fixed(i) && !c.pinned && b.forms[i] != formOut && b.forms[i] != to && ok(i, c) {
			order = append(order, i)
		}
	}
	b.sortLeastFirst(order)
	for _, i := range order {
		if b.fixedTotal() <= target {
			break
		}
		f := to
		if to == formSummary {
			f = b.shorter(b.cands[i])
		}
		b.forms[i], b.step[i] = f, step
	}
	// Put back.
	var reduced []int
	for i := range b.cands {
		if b.step[i] > 0 {
			reduced = append(reduced, i)
		}
	}
	b.sortLeastFirst(reduced)
	for k := len(reduced) - 1; k >= 0; k-- {
		i := reduced[k]
		was, wasStep := b.forms[i], b.step[i]
		b.forms[i], b.step[i] = formFull, 0
		if b.fixedTotal() <= target {
			continue
		}
		if was == formOut && b.cands[i].rec.Summary != "" && b.cost[i][formSummary] < b.cost[i][formFull] {
			b.forms[i] = formSummary
			if b.fixedTotal() <= target {
				b.step[i] = 2 // back, as a summary: a step-2 replacement
				continue
			}
		}
		b.forms[i], b.step[i] = was, wasStep
	}
}

// shorter is the form that stands for c when it is shortened: its
// summary, or its title and a citation when it has none. A ladder step
// uses it only where it costs less than the full form (a short record
// with a long summary is cheaper whole).
func (b *builder) shorter(c *candidate) form {
	if c.rec.Summary == "" {
		return formTitle
	}
	return formSummary
}

// sortLeastFirst sorts candidate indexes least important first: higher
// rank, lower score, larger saving, then id.
func (b *builder) sortLeastFirst(idx []int) {
	slices.SortFunc(idx, func(x, y int) int {
		a, c := b.cands[x], b.cands[y]
		if r := cmp.Compare(c.rank, a.rank); r != 0 {
			return r
		}
		if r := cmp.Compare(a.score, c.score); r != 0 {
			return r
		}
		if r := cmp.Compare(b.cost[y][formFull], b.cost[x][formFull]); r != 0 {
			return r
		}
		return strings.Compare(a.rec.ID, c.rec.ID)
	})
}

// frameOnly is the packet for a limit below the frame: everything
// deferred, a warning, or ErrCannotFit when pinned records exist.
func (b *builder) frameOnly(limit int) (*Packet, error) {
	for _, c := range b.cands {
		if c.pinned {
			return nil, b.splitError(limit, fmt.Errorf("pinned record %q cannot be deferred and the budget is below the frame", c.rec.ID))
		}
	}
	defs := make(map[string]budget.Deferred, len(b.cands))
	for _, c := range b.cands {
		defs[c.rec.ID] = budget.Deferred{Rule: budget.RuleFrame}
	}
	p, err := b.assemble(nil, defs)
	if err != nil {
		return nil, err
	}
	p.FrameOnly = true
	p.Warnings = append(slices.Clone(p.Warnings), b.frameWarning())
	p.frameWarn = len(p.Warnings) - 1
	return p, nil
}

// frameWarning is the warning of a frame-only packet. Inside the packet
// it points at the stated total rather than quoting a number: the warning
// is part of what it would measure, and the content hash in the heading
// tokenizes differently with every change, so a quoted size could not be
// kept equal to the packet's. Report quotes the packet's total.
func (b *builder) frameWarning() string {
	return frameWarningText(b.req.Budget, -1)
}

// frameWarningText is the frame-only warning; size < 0 points at the
// stated total.
func frameWarningText(budgetTokens, size int) string {
	frame := "frame (the total stated above)"
	if size >= 0 {
		frame = fmt.Sprintf("frame of %s tokens", thousands(size))
	}
	return fmt.Sprintf("the budget of %s tokens is below this packet's %s: everything is deferred", thousands(budgetTokens), frame)
}

// command is the `lore packet` line for this request with another focus
// and extra flags, at the request's budget.
func (b *builder) command(focus, extra []string) string {
	return b.commandFor(b.req, focus, extra)
}

// commandFor is the `lore packet` line of r with focus and extra flags
// (a "--scope" among them stands for the budget). It uses only flags the
// command has; story time follows the focus, as it does by default.
func (b *builder) commandFor(r Request, focus, extra []string) string {
	args := []string{"lore", "packet", "--ns", shellQuote(r.NS)}
	if len(focus) > 0 {
		args = append(args, "--focus", shellQuote(strings.Join(focus, ",")))
	}
	set := func(flag string) bool { return slices.Contains(extra, flag) }
	if r.Hops > 1 && !set("--hops") {
		args = append(args, "--hops", fmt.Sprint(r.Hops))
	}
	if r.Task != "" {
		args = append(args, "--task", shellQuote(r.Task))
	}
	if len(r.When) > 0 {
		args = append(args, "--when", shellQuote(strings.Join(r.When, ",")))
	}
	if r.Profile != "" && r.Profile != b.cfg.DefaultProfile {
		args = append(args, "--profile", shellQuote(r.Profile))
	}
	if len(r.Kinds) > 0 && !set("--kind") {
		args = append(args, "--kind", shellQuote(strings.Join(r.Kinds, ",")))
	}
	if len(r.ExcludeKinds) > 0 && !set("--exclude-kind") {
		args = append(args, "--exclude-kind", shellQuote(strings.Join(r.ExcludeKinds, ",")))
	}
	for k := 0; k+1 < len(extra); k += 2 {
		v := extra[k+1]
		if extra[k] == "--exclude-kind" && len(r.ExcludeKinds) > 0 {
			v = strings.Join(append(slices.Clone(r.ExcludeKinds), v), ",")
		}
		args = append(args, extra[k], shellQuote(v))
	}
	if r.Format != "" && r.Format != "md" {
		args = append(args, "--format", r.Format)
	}
	if r.Encoding != "" && r.Encoding != defaultEncoding {
		args = append(args, "--encoding", shellQuote(r.Encoding))
	}
	if !set("--scope") {
		args = append(args, "--budget", fmt.Sprint(r.Budget))
	}
	if r.Query != "" {
		args = append(args, shellQuote(r.Query))
	}
	return strings.Join(args, " ")
}

// splitError is ladder step 5: what could not be trimmed, and a split.
func (b *builder) splitError(limit int, cause error) error {
	e := &SplitError{NS: b.req.NS, Budget: b.req.Budget, Cause: cause}
	e.Need = b.fixedTotal()
	if b.grouping && b.cfg.NoteShare < 100 {
		// The listed notes' share grows with the budget: the need is the
		// budget B whose frame, share of B included, holds the rest.
		rest := e.Need - b.noteShare
		e.Need = max(e.Need, (rest*100+99-b.cfg.NoteShare)/(100-b.cfg.NoteShare))
	}
	// The real need: the packet of the protected records alone, in their
	// last forms, rendered and counted whole (estimates add up under it).
	var kept []budget.Fitted
	for i, c := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut {
			kept = append(kept, budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: b.cost[i][b.forms[i]]})
		}
	}
	if p, err := b.assemble(kept, nil); err == nil {
		_, n := p.settle(b.req.Format)
		e.Need = max(e.Need, n)
	}
	// The budget was not met, so whatever the counts say, the need is
	// above it (the deferral notes can be what tipped it over).
	e.Need = max(e.Need, e.Budget+1)
	// Each protected record at what its entry costs in its last form; the
	// frame is the rest (heading, and the notes of what was deferred).
	e.Frame = e.Need
	byOrigin := map[string]int{}
	var movable []int
	for i, c := range b.cands {
		if !b.fixed(i) || b.forms[i] == formOut {
			continue
		}
		t := b.cost[i][b.forms[i]]
		e.Frame -= t
		e.Protected = append(e.Protected, Protected{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Why: c.why, Form: b.forms[i].String(), Tokens: t})
		byOrigin[c.origin] += t
		if c.rank != 1 && !c.pinned {
			movable = append(movable, i)
		}
	}
	e.Frame = max(e.Frame, 0)
	// Every proposal ends with the command lines that carry it out, with
	// flags `lore packet` has.
	cmds := func(lines ...string) string { return ":\n      " + strings.Join(lines, "\n      ") }
	if len(b.req.Focus) > 1 {
		var parts, lines []string
		for _, f := range b.req.Focus {
			parts = append(parts, fmt.Sprintf("--focus %s (about %s tokens)", f, thousands(e.Frame+byOrigin[f])))
			lines = append(lines, b.command([]string{f}, nil))
		}
		e.Proposals = append(e.Proposals, "one packet per focus: "+strings.Join(parts, "; ")+cmds(lines...))
	}
	// Set whole kinds of protected records apart in a second packet (the
	// largest first) until the first one fits: --exclude-kind leaves them
	// out of the first, and the second takes them as its focus.
	byKind := map[string]int{}
	for _, i := range movable {
		byKind[b.cands[i].rec.Kind] += b.cost[i][b.forms[i]]
	}
	// A kind that holds a rank-1 or pinned record besides the focus stays:
	// excluding it would lose that record.
	for _, c := range b.cands {
		if c.fidx == len(b.req.Focus) && (c.rank == 1 || c.pinned) {
			delete(byKind, c.rec.Kind)
		}
	}
	kinds := sortedKeys(byKind)
	slices.SortStableFunc(kinds, func(x, y string) int { return cmp.Compare(byKind[y], byKind[x]) })
	need := e.Need
	var moved, movedKinds []string
	moving := 0
	// Estimates add up a little under the rendered whole: keep a margin.
	target := limit - limit/20
	for _, k := range kinds {
		if need <= target {
			break
		}
		movedKinds = append(movedKinds, k)
		for i, c := range b.cands {
			if c.rec.Kind != k || c.fidx < len(b.req.Focus) {
				continue
			}
			if b.fixed(i) && b.forms[i] != formOut {
				need -= b.itemTokens(i)
				if slices.Contains(movable, i) {
					moved = append(moved, c.rec.ID)
					moving += b.cost[i][b.forms[i]]
				}
			}
			if !b.grouping {
				need -= b.note[i] // not loaded at all: no note either
			}
		}
	}
	if len(moved) > 0 && need <= target && len(b.req.Focus) > 0 {
		slices.Sort(moved)
		e.Proposals = append(e.Proposals, fmt.Sprintf("two packets, the %s records apart (about %s tokens, then about %s)", strings.Join(movedKinds, ", "),
			thousands(max(need, 0)), thousands(b.base+moving))+cmds(
			b.command(b.req.Focus, []string{"--exclude-kind", strings.Join(movedKinds, ",")}),
			b.command(moved, []string{"--kind", strings.Join(movedKinds, ",")})))
	}
	// A smaller scope: the scenes the focus holds, one packet each.
	var scenes, sceneCmds []string
	for i, c := range b.cands {
		if b.fixed(i) && b.forms[i] != formOut && c.rank > 1 && c.rec.Kind == "scene" {
			scenes = append(scenes, fmt.Sprintf("--focus %s (about %s tokens)", c.rec.ID, thousands(b.base+b.cost[i][formFull])))
			sceneCmds = append(sceneCmds, b.command([]string{c.rec.ID}, nil))
		}
	}
	if len(scenes) >= 2 {
		e.Proposals = append(e.Proposals, "a smaller scope, one packet per scene: "+strings.Join(scenes, "; ")+cmds(sceneCmds...))
	}
	if b.req.Hops > 1 {
		e.Proposals = append(e.Proposals, "narrow the walk"+cmds(b.command(b.req.Focus, []string{"--hops", "1"})))
	}
	scope, size := "", 0
	for _, name := range sortedKeys(b.cfg.Scopes) {
		if s := b.cfg.Scopes[name]; s >= e.Need && (size == 0 || s < size) {
			scope, size = name, s
		}
	}
	larger := b.req
	larger.Budget = e.Need
	if scope != "" {
		e.Proposals = append(e.Proposals, fmt.Sprintf("a larger budget: at least %s tokens (--scope %s is %s)", thousands(e.Need), scope, thousands(size))+
			cmds(b.commandFor(larger, b.req.Focus, nil), b.commandFor(larger, b.req.Focus, []string{"--scope", scope})))
	} else {
		e.Proposals = append(e.Proposals, fmt.Sprintf("a larger budget: at least %s tokens", thousands(e.Need))+cmds(b.commandFor(larger, b.req.Focus, nil)))
	}
	return e
}
