package packet

import (
	"github.com/lorekeep/lore/budget"
)

// The final put-back (package doc, pipeline step 6): rebase (rebase.go),
// restore (restore.go) and arrange (monotone.go), in that order, each on
// the counted packet the step before it left. Each changes the packet
// one record at a time on one engine, a standing packet: the records in,
// their forms, and a log of the changes made, so that a change whose
// count is over the budget is taken back.

// putBack is the final put-back of a packet within the budget that
// leaves something out, then the step the packet needed in the end. A
// packet over the budget is handed on as it is (checkFit sends the
// route round again).
func (b *builder) putBack(c counted) (counted, error) {
	if !fits(c.n, b.req.Budget) {
		return c, nil
	}
	ladderStep := c.p.Step
	c.p.ladderStep = ladderStep
	if c.p.FrameOnly || !c.p.Incomplete() {
		return c, nil
	}
	var err error
	if c.p.Step >= 2 {
		if c, err = b.rebase(c); err != nil {
			return counted{}, err
		}
	}
	if c, err = b.restore(c); err != nil {
		return counted{}, err
	}
	if c, err = b.arrange(c); err != nil {
		return counted{}, err
	}
	// The step the packet needed in the end: put back may have undone
	// what a later step did.
	c.p.ladderStep, c.p.Step = ladderStep, 0
	for _, note := range c.p.Deferred {
		c.p.Step = max(c.p.Step, note.Step)
	}
	return c, nil
}

// standing is a packet as a put-back step changes it: the records in,
// by id, each candidate's form and step in the builder, and the log of
// the changes made (try), the last of which undo takes back.
type standing struct {
	b    *builder
	step int                        // the ladder step the packet carries (Packet.Step)
	keep map[string]budget.Fitted   // the records in, by id
	defs map[string]budget.Deferred // the notes of the records out when the step started
	log  []change
}

// change is one record put in another form, with what it replaced.
type change struct {
	i         int
	wasForm   form
	wasStep   int
	wasKept   bool
	wasFitted budget.Fitted
}

// put puts record i in the packet in form f, with the ladder step that
// form stands for; not logged (a step's base).
func (s *standing) put(i int, f form) {
	s.b.setForm(i, f)
	s.keep[s.b.cands[i].rec.ID] = s.fitted(i, f)
}

// try is put, logged: undo takes it back.
func (s *standing) try(i int, f form) {
	b := s.b
	cur, kept := s.keep[b.cands[i].rec.ID]
	s.log = append(s.log, change{i: i, wasForm: b.forms[i], wasStep: b.step[i], wasKept: kept, wasFitted: cur})
	s.put(i, f)
}

// undo takes the last change back.
func (s *standing) undo() {
	b := s.b
	ch := s.log[len(s.log)-1]
	s.log = s.log[:len(s.log)-1]
	id := b.cands[ch.i].rec.ID
	b.forms[ch.i], b.step[ch.i] = ch.wasForm, ch.wasStep
	if ch.wasKept {
		s.keep[id] = ch.wasFitted
	} else {
		delete(s.keep, id)
	}
}

// fitted is record i kept in form f, at that form's price.
func (s *standing) fitted(i int, f form) budget.Fitted {
	c := s.b.cands[i]
	return budget.Fitted{Item: budget.Item{ID: c.rec.ID, Kind: c.rec.Kind, Rank: c.rank}, Tokens: s.b.cost[i][f]}
}

// kept is the records in, in candidate order.
func (s *standing) kept() []budget.Fitted {
	kept := make([]budget.Fitted, 0, len(s.keep))
	for _, c := range s.b.cands {
		if k, ok := s.keep[c.rec.ID]; ok {
			kept = append(kept, k)
		}
	}
	return kept
}

// assemble is the packet as it stands, not yet rendered. A note is read
// only for a record out (noteOf), so the notes the step started from
// serve as they are.
func (s *standing) assemble() (*Packet, error) {
	q, err := s.b.assemble(s.kept(), s.defs)
	if err != nil {
		return nil, err
	}
	q.Step = s.step
	return q, nil
}

// count assembles the packet as it stands, renders it and counts it
// whole. A trial count (b.trial: a stand-in of its cached size for each
// body not read yet) is a count only: its output is left empty, and
// never written.
func (s *standing) count() (counted, error) {
	q, err := s.assemble()
	if err != nil {
		return counted{}, err
	}
	o, m := q.settleAs(s.b.req.Format, !s.b.trial)
	return counted{p: q, out: o, n: m}, nil
}

// countTrial is count with stand-ins for the bodies not read yet.
func (s *standing) countTrial() (counted, error) {
	s.b.trial = true
	defer func() { s.b.trial = false }()
	return s.count()
}

// commit leaves the packet as it stands as the builder's, for the steps
// after: the records in, and the notes of the records out (a record
// that came back in has lost its note for good).
func (s *standing) commit() {
	b := s.b
	b.kept, b.defs = s.kept(), map[string]budget.Deferred{}
	for _, c := range b.cands {
		if _, in := s.keep[c.rec.ID]; !in {
			if d, ok := s.defs[c.rec.ID]; ok {
				b.defs[c.rec.ID] = d
			}
		}
	}
}

// keptByID indexes fitted records by id.
func keptByID(kept []budget.Fitted) map[string]budget.Fitted {
	keep := make(map[string]budget.Fitted, len(kept))
	for _, k := range kept {
		keep[k.ID] = k
	}
	return keep
}

// leastFirst is the candidates' indexes, least important first.
func (b *builder) leastFirst() []int {
	order := make([]int, len(b.cands))
	for i := range order {
		order[i] = i
	}
	b.sortLeastFirst(order)
	return order
}

// setForm gives record i form f and the ladder step that form stands for.
func (b *builder) setForm(i int, f form) {
	b.forms[i] = f
	switch {
	case f == formFull:
		b.step[i] = 0
	case b.cands[i].history:
		b.step[i] = 4
	default:
		b.step[i] = 2
	}
}
