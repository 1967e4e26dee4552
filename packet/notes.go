package packet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
)

// savesText is ": saves N" for a note, or nothing when the shorter form
// saves nothing (a note never claims a negative saving).
func savesText(n int) string {
	if n <= 0 {
		return ""
	}
	return ": saves " + numfmt.Thousands(n)
}

// group chooses the notes the rendered packet lists one by one: all of
// them, or when grouping, the most important ones within the note share;
// the others are counted by kind.
func (b *builder) group(p *Packet) {
	p.listed = p.Deferred
	if !b.grouping {
		return
	}
	// The most important notes are listed, within the share, and only
	// those that cost well under their record: a note that costs nearly
	// as much as what it stands for is grouped instead.
	order := make([]int, len(p.Deferred))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(p.Deferred[x].cand, p.Deferred[y].cand)
	})
	listed := make([]bool, len(p.Deferred))
	used := 0
	for _, k := range order {
		i := p.Deferred[k].cand
		cost := b.note[i]
		if cost == 0 || cost*noteWorth > b.cost[i][formFull] {
			continue // unpriced (a profile that lists no note), or too dear
		}
		if used+cost > b.listRoom {
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
			g = &NoteGroup{Kind: n.Kind, MinRank: n.Rank, MaxRank: n.Rank, of: []string{n.Kind}}
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
		other = &NoteGroup{MinRank: groups[kinds[maxGroups]].MinRank, MaxRank: groups[kinds[maxGroups]].MaxRank}
		for _, k := range kinds[maxGroups:] {
			g := groups[k]
			other.of = append(other.of, k)
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
		slices.Sort(other.of)
		p.Grouped = append(p.Grouped, *other)
	}
	for i := range p.Grouped {
		p.Grouped[i].Fetch = b.deferredCmd(p.Grouped[i])
	}
}

// deferredCmd is the handle of a group of notes: this request with
// --deferred and the group's kinds lists exactly its records, each with
// its reason and the command that fetches it (story time following the
// focus, the scope left to the default, as the handles have always been
// written).
func (b *builder) deferredCmd(g NoteGroup) string {
	r := b.req
	r.Scope, r.AsOf = "", 0
	return b.commandFor(r) + " " + g.handle()
}

// heldBackReason is the note of a record a growing fill left out though
// it fits the room left (budget.RuleHeldBack): the fill takes records in
// order and ends at the first that does not fit, so that a larger budget
// keeps every record this packet has.
const heldBackReason = "held back: fits, but follows a more important record that does not"

// noteOf is the deferral note of candidate i (kept is whether it is in
// the packet, as k), and false for a record in whole that needs none.
func (b *builder) noteOf(i int, k budget.Fitted, kept bool, deferred map[string]budget.Deferred) (Note, bool) {
	c := b.cands[i]
	full := b.cost[i][formFull]
	n := Note{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank, Tokens: full, Fetch: b.fetchOf(c), cand: i}
	switch {
	case kept && k.Truncated:
		// Kept, but shortened: every shortened record gets a note.
		n.Step, n.Action, n.Saves = 1, "truncated", max(0, full-k.Tokens)
		n.Reason = "truncated" + savesText(n.Saves)
	case !kept && b.forms[i] != formOut:
		n.Step, n.Action, n.Reason = 1, "dropped", "dropped: over budget"
		if d, ok := deferred[c.rec.ID]; ok {
			switch d.Rule {
			case budget.RuleRecount:
				n.Reason = "dropped: over budget on re-count"
			case budget.RuleMinimum:
				n.Reason = "dropped: could not be truncated to fit"
			case budget.RuleFrame:
				n.Step, n.Reason = 0, "dropped: the budget is below the frame"
			case budget.RuleHeldBack:
				n.Reason = heldBackReason
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
		return n, false
	}
	return n, true
}

// sortNotes puts notes in the order the ladder deferred them: by step,
// then least important first (the order of budget.Fit).
func (b *builder) sortNotes(notes []Note) {
	// Sorted by position, not in place: a Note is a dozen words, and the
	// sort compares (and moves) each many times.
	order := make([]int, len(notes))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		x, y := &notes[i], &notes[j]
		if c := cmp.Compare(x.Step, y.Step); c != 0 {
			return c
		}
		if c := cmp.Compare(y.Rank, x.Rank); c != 0 {
			return c
		}
		if c := cmp.Compare(b.cands[x.cand].score, b.cands[y.cand].score); c != 0 {
			return c
		}
		if c := cmp.Compare(y.Tokens, x.Tokens); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	// Put notes[order[k]] at k for every k, one cycle of the permutation
	// at a time.
	for k := range order {
		if order[k] < 0 {
			continue
		}
		first, j := notes[k], k
		for {
			from := order[j]
			order[j] = -1
			if from == k {
				notes[j] = first
				break
			}
			notes[j] = notes[from]
			j = from
		}
	}
}

// listNotes lists the most important grouped notes one by one in the room
// the final packet leaves (up to the note share): content is chosen
// first, so a note never takes the place of a record. When the listed
// notes turn out over the budget, the packet keeps them grouped, as a
// frame-only packet does (it holds no record to list notes beside).
func (b *builder) listNotes(c counted) (counted, error) {
	if !b.grouping || c.p.FrameOnly || len(c.p.Deferred) == 0 || fits(b.req.Budget, c.n) {
		return c, nil
	}
	b.listRoom = min(b.noteShare, b.req.Budget-c.n)
	defer func() { b.listRoom = 0 }()
	q, err := b.assemble(b.kept, b.defs)
	if err != nil {
		return counted{}, err
	}
	if len(q.listed) == 0 {
		return c, nil
	}
	q.Step, q.ladderStep = c.p.Step, c.p.ladderStep
	if l := b.count(q); fits(l.n, b.req.Budget) {
		return l, nil
	}
	return c, nil
}
