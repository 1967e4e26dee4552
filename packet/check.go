package packet

import "fmt"

// fits reports whether a count of n tokens is within limit: the budget,
// the lower limit the fit runs against after a re-count (budget rule 6),
// a ladder step's target, or a margin either side of the budget
// (fits(n, budget-m): within it with m tokens to spare; !fits(n,
// budget+m): over it by more than m). Turned round, fits(budget, n)
// says that n tokens hold the budget (hits enough, bodies read ahead
// enough, a packet with no room left). It is the package's one
// comparison of tokens with a budget: every decision that sets a count,
// real or estimated, against one asks here.
func fits(n, limit int) bool { return n <= limit }

// checkFit holds the fit's invariant on the packet a try of the route
// ends with (fit.go), in one place, once every step has had its say:
// nothing written is over its budget. Within the budget it returns nil.
// Over it, a frame-only packet is refused (the frame cannot shrink),
// and any other is overBudget: the route runs again against a limit
// lowered by the excess (budget rule 6: tokens do not add up across
// boundaries, so only the count of the whole rendered packet says).
// The steps before it keep a packet within the budget by their own
// counts, and act only on a packet within it: what is over here is the
// ladder's packet, as the ladder made it.
func (b *builder) checkFit(c counted) error {
	switch {
	case fits(c.n, b.req.Budget):
		return nil
	case c.p.FrameOnly:
		return b.frameRefusal(c.n)
	}
	return overBudget(c.n - b.req.Budget)
}

// overBudget is how many tokens a packet counts over its budget.
type overBudget int

func (o overBudget) Error() string {
	return fmt.Sprintf("the packet counts %d tokens over its budget", int(o))
}
