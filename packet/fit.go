package packet

import "errors"

// The fit's route (pipeline steps 4 to 6), one counted packet handed on
// from step to step:
//
//	ladder          the deferral ladder against a limit, its packet
//	                rendered and counted (ladder.go; the floor, floor.go)
//	calibrateFrame  a growing fill again, against the frame the count
//	                shows (grow.go)
//	putBack         the final put-back: rebase, restore, arrange
//	                (putback.go, rebase.go, restore.go, monotone.go)
//	listNotes       grouped notes listed in the room left (notes.go)
//	checkFit        the count against the budget, once (check.go): over,
//	                the route runs again against a lower limit (budget
//	                rule 6)
//	seal            the packet states its count and hash
//
// Each step takes the counted packet of the step before and returns its
// own: the one it was given when it changes nothing, else the packet it
// made, rendered and counted by the step itself. No step renders again
// what the step before it counted. A step that changes nothing over the
// budget (calibrateFrame, putBack and listNotes each need room in the
// budget to act) hands an over packet on to checkFit untouched.
//
// Inside a step, a packet is counted more than once only where the
// counts are of different text, since tokens do not add up across
// boundaries and only the whole says (budget rule 6): budget.Fit counts
// its renders with a placeholder for the hash and every note "over
// budget", so the ladder counts the packet it fitted once more as it is
// written (a packet whole, or the floor, is counted once: its check is
// that count); a put-back counts each record it tries in the packet,
// with a stand-in of its cached size for a body not read yet, and the
// packet a trial kept once more with its bodies.

// counted is a packet rendered in the request's format with its total
// stated (settle), and the count of that whole output (budget rule 6).
type counted struct {
	p   *Packet
	out string
	n   int
}

// count renders p and counts it whole.
func (b *builder) count(p *Packet) counted {
	out, n := p.settle(b.req.Format)
	return counted{p: p, out: out, n: n}
}

// fit runs the ladder, with the least important notes grouped by kind
// from the start when the notes are more than Config.NoteShare of the
// budget (so that a bigger budget never spends itself on listing every
// note); a refusal becomes the *SplitError here, once.
func (b *builder) fit() (*Packet, error) {
	p, err := b.fitWith(b.canGroup)
	var r *refusal
	if errors.As(err, &r) {
		return nil, b.splitError(r.limit, r.cause)
	}
	return p, err
}

// maxLadderTries is how many times the ladder runs against a lower
// limit before the floor (refuse) answers instead.
const maxLadderTries = 10

// fitWith runs the route above; while checkFit finds the packet over the
// budget it runs again against a limit lowered by the excess.
func (b *builder) fitWith(grouping bool) (*Packet, error) {
	b.grouping = grouping
	b.ahead = b.startModelAhead()
	limit := b.req.Budget
	for try := 0; ; try++ {
		var c counted
		var err error
		if try < maxLadderTries && limit >= 0 {
			c, err = b.ladder(limit)
		} else {
			c, err = b.refuse(limit, errors.New("the rendered packet stays over the budget"))
		}
		if err != nil {
			return nil, err
		}
		if c.p.FrameOnly && b.anyFixed() {
			// No packet leaves out its protected records: a budget
			// below the frame and what it protects is refused.
			return nil, b.frameRefusal(c.n)
		}
		if !b.endsAtFirstFit(c) {
			if c, err = b.calibrateFrame(c, limit); err != nil {
				return nil, err
			}
			if c, err = b.putBack(c); err != nil {
				return nil, err
			}
			if c, err = b.listNotes(c); err != nil {
				return nil, err
			}
		}
		var over overBudget
		if err := b.checkFit(c); errors.As(err, &over) {
			limit -= max(1, int(over))
			continue
		} else if err != nil {
			return nil, err
		}
		if b.endsAtFirstFit(c) {
			c.p.Tokens = c.n
			return c.p, nil
		}
		return b.seal(c), nil
	}
}

// endsAtFirstFit reports whether the build ends with the ladder's packet
// c: a build that only asks whether it is written (Request.fitsOnly)
// does, once c fits, since the put-back, arranging and listing notes
// only add to a packet within the budget, and none of them refuses.
func (b *builder) endsAtFirstFit(c counted) bool { return b.req.fitsOnly && !c.p.FrameOnly }

// seal makes c the packet Build hands out: it states its count, carries
// its output and the hash of it.
func (b *builder) seal(c counted) *Packet {
	c.p.rendered, c.p.Tokens = c.out, c.n
	c.p.Hash, _ = ContentHash(b.req.Format, []byte(c.out))
	return c.p
}
