package packet

import (
	"cmp"
	"slices"
)

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

// explainCmd is the handle of the grouped notes: this request with
// --explain lists every candidate, each deferred one with its reason.
func (b *builder) explainCmd() string {
	return b.command(b.req.Focus, nil) + " --explain"
}
