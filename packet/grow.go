package packet

import "errors"

// The agent profile's fill grows the budget from the frame
// (Profile.Grow, budget.Request.Grow): what the builder does for it
// beyond asking Fit.

// grows reports whether the fill grows the budget from nothing
// (Profile.Grow, budget.Request.Grow): a monotone profile with no
// candidate that truncates.
func (b *builder) grows() bool {
	return b.monotone() && b.cfg.Profiles[b.req.ranking].Grow && !b.anyTruncates()
}

// calibrateFrame refits a growing fill (grows) against the frame it
// really has. The frame is priced as its largest (a heading for every
// rank among the candidates, group lines of every kind with the widest
// figures), so the fill stopped with room that the real count shows:
// 55 tokens of 500 in a short-turn packet, where the next record needed
// 73. The fill runs again with the frame less what the real count left
// over (frameCredit), and keeps that packet when it counts within the
// budget. The put-back cannot fill that room instead (grows blocks it):
// a record it put in by one budget's slack alone could be missing at a
// bigger budget whose fill let in others first.
func (b *builder) calibrateFrame(c counted, limit int) (counted, error) {
	if !b.grows() || c.p.FrameOnly || !c.p.Incomplete() || fits(b.req.Budget, c.n) || b.frameCredit != 0 {
		return c, nil
	}
	est := b.frame()
	for _, k := range b.kept {
		est += k.Tokens
	}
	if est <= c.n {
		return c, nil
	}
	saved := b.saveState()
	b.frameCredit = est - c.n
	defer func() { b.frameCredit = 0 }()
	q, err := b.ladder(limit)
	if err != nil && !errors.Is(err, ErrCannotFit) {
		return counted{}, err
	}
	if err == nil && fits(q.n, b.req.Budget) && !q.p.FrameOnly {
		return q, nil
	}
	// Refused or over with the credit: c stands, as a build that ends at
	// its first fit (Request.fitsOnly) has it, with the state the ladder
	// left beside it.
	b.restoreState(saved)
	return c, nil
}
