package packet

// fits reports whether a count of n tokens is within limit: the budget,
// the lower limit the fit runs against after a re-count (budget rule 6),
// a ladder step's target, or a margin either side of the budget
// (fits(n, budget-m): within it with m tokens to spare; !fits(n,
// budget+m): over it by more than m). It is the package's one comparison
// of tokens with a budget: every decision that sets a count, real or
// estimated, against one asks here.
func fits(n, limit int) bool { return n <= limit }
