package packet

import (
	"github.com/lorekeep/lore/budget"
)

// assemble makes the packet of the kept items; every other candidate gets
// a note. deferred, when given, carries Fit's reasons by id.
func (b *builder) assemble(kept []budget.Fitted, deferred map[string]budget.Deferred) (*Packet, error) {
	// keep[i] is 1 + the place in kept of candidate i, 0 when it is out.
	// (A map of the kept by id cost a fifth of a short-turn packet's
	// assembling at 8,000 tokens: each Fitted copied in, each id hashed
	// three times.)
	keep := make([]int32, len(b.cands))
	var rests []bool // the rest of candidate i's excerpt is kept (upgrade.go)
	at := b.candIndex()
	for k, f := range kept {
		if f.Extends == "" {
			if i, ok := at[f.ID]; ok {
				keep[i] = int32(k + 1)
			}
		} else if i, ok := at[f.Extends]; ok { // the rest of an excerpt
			if rests == nil {
				rests = make([]bool, len(b.cands))
			}
			rests[i] = true
		}
	}
	var full []string
	for i, c := range b.cands {
		if keep[i] > 0 && b.forms[i] == formFull && c.excerpt == nil {
			full = append(full, c.rec.ID)
		}
	}
	if !b.trial {
		if err := b.loadBodies(full); err != nil {
			return nil, err
		}
	}
	p := &Packet{Request: b.req, Budget: b.req.Budget, Warnings: b.warns, Superseded: b.superseded, counter: b.memo, frameWarn: -1}
	// Sized once: a build assembles hundreds of candidates many times.
	p.Records = make([]Entry, 0, len(kept))
	p.Deferred = make([]Note, 0, len(b.cands)-min(len(kept), len(b.cands))+len(kept)/8) // and a few kept short
	for i, c := range b.cands {
		var k budget.Fitted
		ok := keep[i] > 0
		if ok {
			k = kept[keep[i]-1]
			e := b.entryOf(i, k)
			if b.forms[i] == formFull && b.shownWhole(c, rests != nil && rests[i]) {
				e.Text, e.Form, e.Omitted, e.Fetch = c.excerpt.body, formFull.String(), 0, ""
				e.Tokens = k.Tokens
			}
			p.Records = append(p.Records, e)
		}
		if n, ok := b.noteOf(i, k, ok, deferred); ok {
			p.Deferred = append(p.Deferred, n)
		}
	}
	p.Records = placeBeside(p.Records)
	b.sortNotes(p.Deferred)
	b.group(p)
	return p, nil
}

// entryOf is the entry of kept candidate i in its form: a body not read
// yet is a stand-in of its size while trying; a truncated record carries
// its cut and a handle to the whole.
func (b *builder) entryOf(i int, k budget.Fitted) Entry {
	c := b.cands[i]
	text, read := b.bodies[c.rec.ID]
	if (!read || b.standAll) && b.trial && b.forms[i] == formFull {
		text = b.stand(c.tc.Body)
	}
	e := b.entry(c, b.forms[i], text)
	if k.Truncated {
		e.Text, e.Truncated, e.Tokens = k.Text, k.Cut, k.Tokens
		e.Fetch = b.fetchOf(c)
	}
	return e
}

// noteWorth: a note is listed one by one only when its record costs at
// least this many times the note.
const noteWorth = 3

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

// candIndex maps each candidate's id to its place in b.cands, made on
// first use: the candidates are fixed by then.
func (b *builder) candIndex() map[string]int {
	if b.candAt == nil {
		b.candAt = make(map[string]int, len(b.cands))
		for i, c := range b.cands {
			b.candAt[c.rec.ID] = i
		}
	}
	return b.candAt
}
