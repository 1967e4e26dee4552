package budget

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The rules that defer an item, as Deferred.Rule reports them.
const (
	// RuleBudget: deferred by the walk of rule 2 while the sum of the kept
	// items (and the frame) was over the limit.
	RuleBudget = "budget"
	// RuleMinimum: a Truncate item that could not be cut to fit while
	// keeping its minimum (or could not be cut at all: no text, or a
	// counter that is not a Tokenizer), so it was dropped whole (rule 4).
	RuleMinimum = "minimum"
	// RuleRecount: deferred because the rendered whole, counted again, was
	// still over the limit (rule 6).
	RuleRecount = "recount"
	// RuleFrame: deferred because the limit is below the frame (rule 7).
	RuleFrame = "frame"
	// RuleHeldBack: deferred by a growing fill (Request.Grow) though it
	// fits the room the fill left: the fill's last part is a prefix of
	// the order, which ends at the first item that does not fit, so that
	// a larger limit keeps every item this one does.
	RuleHeldBack = "held back"
)

// Request is the input of Fit.
type Request struct {
	// Items are the candidates, in the order they will be rendered.
	Items []Item
	// Limit is the budget in tokens; negative is an error.
	Limit int
	// Counter counts the rendered whole (rule 6) and, when it is also a
	// Tokenizer, cuts Truncate items. It may be nil when Render is nil; a
	// Truncate item without a Tokenizer is dropped instead of cut.
	Counter Counter
	// Frame is the tokens of the fixed frame (heading, wrapper) that is
	// written whatever fits.
	Frame int
	// ByOrder breaks ties by reverse Order (what renders last goes first)
	// instead of by size (largest first).
	ByOrder bool
	// Prefix makes the put-back (rule 5) stop at the first deferred item,
	// most important first, that does not fit: the survivors are then a
	// prefix of the total order, so a larger limit never keeps less.
	// Without it a smaller item further down may fill the gap.
	Prefix bool
	// Grow fills the limit as if it grew from the frame, in steps that
	// depend on the items alone: at each step the items out come in,
	// most important first, while the room left holds them (first fit),
	// and once in they never go; past the last step below the limit they
	// come in as a prefix. A larger limit then keeps every item a smaller
	// one does (as with Prefix), and one large item does not block the
	// items after it (as it does with Prefix) beyond the next step. The
	// re-count (rule 6) defers the items let in last first. It replaces
	// the put-back (rule 5) and Prefix; items whose action is Truncate
	// are kept whole or dropped. See Item.Late.
	Grow bool
	// Render, when set, renders the kept items (in arrival order) as the
	// whole output, frame included. Fit counts that output with Counter and,
	// while it is over the limit, defers the next item in the order and
	// renders again (rule 6). Fit calls it at least once when set.
	Render func(kept []Fitted) string
}

// Fitted is an item that made it into the budget, perhaps truncated.
type Fitted struct {
	Item
	// Text is the content to render: Item.Text, or its truncation (a prefix
	// at a token boundary followed by the marker).
	Text string
	// Tokens is what the item costs as kept: Item.Tokens, or less when
	// truncated (the marker included).
	Tokens int
	// Truncated is true when Text was cut; Cut is how many tokens of
	// Item.Text were cut.
	Truncated bool
	Cut       int
}

// Deferred is an item left out, with why.
type Deferred struct {
	Item
	// Rule is the rule that deferred it: RuleBudget, RuleMinimum,
	// RuleRecount, RuleFrame or RuleHeldBack.
	Rule string
	// Reason says why in words, for the report.
	Reason string
	// Tokens is what the item would have cost (Item.Tokens).
	Tokens int
}

// Result is the outcome of Fit.
type Result struct {
	// Kept are the survivors in the order they arrived.
	Kept []Fitted
	// Deferred are the items left out, least important first (the order of
	// rule 2), whatever the rule that deferred them.
	Deferred []Deferred
	// Used is the tokens of the output: the count of Rendered when Render
	// was set, else Frame plus the Tokens of Kept. Limit is Request.Limit.
	Used, Limit int
	// Overflowed is true when anything was deferred or truncated.
	Overflowed bool
	// FrameOnly is true when the limit could not hold even the frame
	// (rule 7): everything was deferred and only the frame is written.
	FrameOnly bool
	// Diagnostics say what Fit did, in the order it did it.
	Diagnostics []string
	// Rendered is the last output of Request.Render ("" without Render).
	Rendered string
}

// item states while fitting.
const (
	kept uint8 = iota
	deferred
)

// sortKey is an item's position in the total order, precomputed as
// unsigned integers that sort ascending with the item deferred first. It
// holds no pointers, so sorting moves it without write barriers, and a
// comparison is a few integer compares and rarely a string compare.
type sortKey struct {
	rank, score, size uint64
	idx               int
}

const signBit = 1 << 63

// makeKey encodes rule 2: higher rank first, then lower score, then larger
// size (or later Order with byOrder); the id comes last (compareKeys).
func makeKey(it *Item, byOrder bool, idx int) sortKey {
	size := int64(it.Tokens)
	if byOrder {
		size = it.Order
	}
	score := it.Score
	if score == 0 {
		score = 0 // -0 sorts as 0
	}
	bits := math.Float64bits(score)
	if bits&signBit != 0 {
		bits = ^bits
	} else {
		bits |= signBit
	}
	return sortKey{
		rank:  ^(uint64(int64(it.Rank)) ^ signBit),
		score: bits,
		size:  ^(uint64(size) ^ signBit),
		idx:   idx,
	}
}

// compareKeys is the total order of rule 2 on keys from makeKey over items.
func compareKeys(items []Item, a, b sortKey) int {
	switch {
	case a.rank != b.rank:
		return cmp.Compare(a.rank, b.rank)
	case a.score != b.score:
		return cmp.Compare(a.score, b.score)
	case a.size != b.size:
		return cmp.Compare(a.size, b.size)
	}
	return strings.Compare(items[a.idx].ID, items[b.idx].ID)
}

// fitter holds the state of one Fit call.
type fitter struct {
	req    Request
	items  []Item
	tok    Tokenizer // nil when the counter cannot cut text
	state  []uint8
	rule   []string // per item: the rule that deferred it
	reason []string // per item: why, in words
	cuts   map[int]cut
	recuts map[int]int // per item: cuts made by the re-count
	order  []int       // non-pinned items, deferred first
	// grown is, after a Grow fill, the items it let in, the last first:
	// the re-count takes them out in that order, so that what a smaller
	// limit held (let in earlier) stays longest.
	grown []int
	used  int // frame plus the tokens of kept items
	res   Result
}

// maxRecuts is how many times the re-count cuts one Truncate item before it
// drops it.
const maxRecuts = 3

// cut is a truncation of one item.
type cut struct {
	text      string
	cost, cut int
}

// Fit fits req.Items into req.Limit tokens by the seven rules of the package
// documentation and returns the survivors in arrival order, the deferred
// items with their reasons, and diagnostics.
//
// It returns an error wrapping ErrInvalid for a malformed request, and an
// *OverflowError (wrapping ErrOverBudget) when pinned content alone exceeds
// the limit or an item whose action is Fail would have to be cut; in both
// cases nothing was dropped or truncated and the Result holds only Limit.
func Fit(req Request) (Result, error) {
	if err := validate(req); err != nil {
		return Result{Limit: req.Limit}, err
	}
	f := &fitter{
		req:   req,
		items: req.Items,
		state: make([]uint8, len(req.Items)),
		res:   Result{Limit: req.Limit},
	}
	f.tok, _ = req.Counter.(Tokenizer)
	if err := f.fit(); err != nil {
		return Result{Limit: req.Limit}, err
	}
	return f.result(), nil
}

func (f *fitter) fit() error {
	limit, frame := f.req.Limit, f.req.Frame
	total, pinned, npinned := frame, frame, 0
	for _, it := range f.items {
		total += it.Tokens
		if it.Pinned {
			pinned += it.Tokens
			npinned++
		}
	}
	// Rule 3, before anything else: pinned content that alone exceeds the
	// limit fails whatever the actions. With pinned content, rule 7 (a
	// limit below the frame) lands here too.
	if npinned > 0 && pinned > limit {
		return f.pinnedError(pinned)
	}
	// Rule 7: not even the frame fits. Content whose action is Fail is
	// refused rather than deferred, as in the walk.
	if limit < frame {
		f.sortOrder()
		for _, i := range f.order {
			if f.items[i].Action == Fail {
				return f.failError(i, total)
			}
		}
		reason := fmt.Sprintf("dropped: the limit of %d tokens is below the frame of %d tokens", limit, frame)
		for _, i := range f.order {
			f.deferItem(i, RuleFrame, reason)
		}
		f.res.FrameOnly = true
		f.diag("warning: the limit of %d tokens is below the frame of %d tokens: everything is deferred and only the frame is written", limit, frame)
		f.used = frame
		return f.recount()
	}
	f.used = total
	// Rule 1: everything fits, nothing changes (rule 6 may still find the
	// rendered whole over).
	if total > limit || f.req.Render != nil {
		f.sortOrder()
	}
	if total > limit {
		if err := f.walk(); err != nil {
			return err
		}
	}
	return f.recount()
}

// sortOrder sorts the non-pinned items into the total order of rule 2.
func (f *fitter) sortOrder() {
	keys := make([]sortKey, 0, len(f.items))
	for i := range f.items {
		it := &f.items[i]
		if it.Pinned {
			continue
		}
		keys = append(keys, makeKey(it, f.req.ByOrder, i))
	}
	slices.SortFunc(keys, func(a, b sortKey) int { return compareKeys(f.items, a, b) })
	f.order = make([]int, len(keys))
	for j, k := range keys {
		f.order[j] = k.idx
	}
}

// walk defers items in the total order until the sum fits (rules 2 and 4),
// then puts back what still fits (rule 5).
func (f *fitter) walk() error {
	limit := f.req.Limit
	f.diag("over budget: %d tokens for a limit of %d", f.used, limit)
	pos := 0
	for ; pos < len(f.order) && f.used > limit; pos++ {
		i := f.order[pos]
		it := &f.items[i]
		if it.Tokens == 0 {
			// Deferring it would free nothing: not even a Fail item is
			// what overflowed.
			continue
		}
		over := f.used - limit
		switch it.Action {
		case Fail:
			return f.failError(i, f.used)
		case Truncate:
			room := it.Tokens - over
			if room <= 0 {
				f.deferItem(i, RuleBudget, fmt.Sprintf("dropped: over budget by %d tokens, more than the whole item", over))
				break
			}
			c, why := f.truncate(it, room)
			if why != "" {
				f.deferItem(i, RuleMinimum, "dropped: "+why)
				break
			}
			f.keepCut(i, c)
			f.used += c.cost - it.Tokens
			continue
		default:
			f.deferItem(i, RuleBudget, "dropped: over budget")
		}
		f.used -= it.Tokens
	}
	if f.req.Grow {
		return f.grow()
	}
	f.putBack(pos)
	return nil
}

// putBack walks the deferred items among order[:end] from the most
// important and restores each that still fits, cut when its action allows
// (rule 5). Room only shrinks along the walk, so one pass leaves no
// deferred item that would still fit whole.
func (f *fitter) putBack(end int) {
	n, tokens := 0, 0
	for p := end - 1; p >= 0; p-- {
		i := f.order[p]
		if f.state[i] != deferred {
			continue
		}
		it := &f.items[i]
		room := f.req.Limit - f.used
		if it.Tokens <= room {
			f.restore(i)
			f.used += it.Tokens
			n, tokens = n+1, tokens+it.Tokens
			continue
		}
		if it.Action == Truncate && room > minKeep(it) {
			if c, why := f.truncate(it, room); why == "" {
				f.restore(i)
				f.keepCut(i, c)
				f.used += c.cost
				n, tokens = n+1, tokens+c.cost
				continue
			}
		}
		if f.req.Prefix {
			break
		}
	}
	if n > 0 {
		f.diag("put back %d items (%d tokens) that still fit", n, tokens)
	}
}

// recount renders and counts the whole output while Render is set, and
// defers the next item in the order while it is over (rule 6).
func (f *fitter) recount() error {
	if f.req.Render == nil {
		f.res.Used = f.used
		return nil
	}
	limit := f.req.Limit
	next := 0
	for {
		out := f.req.Render(f.kept())
		c := f.req.Counter.Count(out)
		if c <= limit || f.res.FrameOnly {
			f.res.Used, f.res.Rendered = c, out
			return nil
		}
		order := f.order
		if f.grown != nil {
			order = f.grown
		}
		for next < len(order) && f.state[order[next]] == deferred {
			next++
		}
		if next == len(order) {
			// Nothing left to defer but pinned content.
			for _, it := range f.items {
				if it.Pinned {
					return f.pinnedError(c)
				}
			}
			f.res.FrameOnly = true
			f.res.Used, f.res.Rendered = c, out
			f.diag("warning: the rendered frame alone counts %d tokens, over the limit of %d: everything is deferred and only the frame is written", c, limit)
			return nil
		}
		i := order[next]
		it := &f.items[i]
		if it.Action == Fail {
			return f.failError(i, c)
		}
		// A Truncate item is cut (further) by the overage before it is
		// dropped: the overage is usually a few tokens of joins. A few
		// tries each, so a renderer that keeps growing cannot loop long.
		if it.Action == Truncate && f.recuts[i] < maxRecuts {
			if room := f.cost(i) - (c - limit); room > 0 {
				if cu, why := f.truncate(it, room); why == "" {
					if f.recuts == nil {
						f.recuts = make(map[int]int)
					}
					f.recuts[i]++
					f.diag("re-count: the rendered output counts %d tokens, over the limit of %d: cutting %q to %d tokens", c, limit, it.ID, cu.cost)
					f.used += cu.cost - f.cost(i)
					f.keepCut(i, cu)
					continue
				}
			}
		}
		f.diag("re-count: the rendered output counts %d tokens, over the limit of %d: deferring %q", c, limit, f.items[i].ID)
		f.deferItem(i, RuleRecount, fmt.Sprintf("dropped: the rendered output counted %d tokens, over the limit of %d", c, limit))
		f.used -= f.cost(i)
		delete(f.cuts, i)
	}
}

func (f *fitter) deferItem(i int, rule, reason string) {
	if f.rule == nil {
		f.rule = make([]string, len(f.items))
		f.reason = make([]string, len(f.items))
	}
	f.state[i] = deferred
	f.rule[i], f.reason[i] = rule, reason
}

func (f *fitter) restore(i int) {
	f.state[i] = kept
	f.rule[i], f.reason[i] = "", ""
}

// keepCut keeps item i truncated; the caller accounts for its cost.
func (f *fitter) keepCut(i int, c cut) {
	if f.cuts == nil {
		f.cuts = make(map[int]cut)
	}
	f.cuts[i] = c
	f.diag("truncated %q from %d to %d tokens (%d cut)", f.items[i].ID, f.items[i].Tokens, c.cost, c.cut)
}

// cost is what item i costs as kept.
func (f *fitter) cost(i int) int {
	if c, ok := f.cuts[i]; ok {
		return c.cost
	}
	return f.items[i].Tokens
}

// kept lists the kept items in arrival order.
func (f *fitter) kept() []Fitted {
	n := 0
	for _, st := range f.state {
		if st == kept {
			n++
		}
	}
	out := make([]Fitted, 0, n)
	for i := range f.items {
		if f.state[i] != kept {
			continue
		}
		it := f.items[i]
		fi := Fitted{Item: it, Text: it.Text, Tokens: it.Tokens}
		if c, ok := f.cuts[i]; ok {
			fi.Text, fi.Tokens, fi.Truncated, fi.Cut = c.text, c.cost, true, c.cut
		}
		out = append(out, fi)
	}
	return out
}

func (f *fitter) result() Result {
	nd := 0
	for _, st := range f.state {
		if st == deferred {
			nd++
		}
	}
	var ds []Deferred
	if nd > 0 {
		ds = make([]Deferred, 0, nd)
	}
	freed := 0
	for _, i := range f.order {
		if f.state[i] == deferred {
			ds = append(ds, Deferred{Item: f.items[i], Rule: f.rule[i], Reason: f.reason[i], Tokens: f.items[i].Tokens})
			freed += f.items[i].Tokens
		}
	}
	if len(ds) > 0 && !f.res.FrameOnly {
		f.diag("deferred %d items (%d tokens)", len(ds), freed)
	}
	r := f.res
	r.Kept = f.kept()
	r.Deferred = ds
	r.Overflowed = len(ds) > 0 || len(f.cuts) > 0
	return r
}

func (f *fitter) diag(format string, args ...any) {
	f.res.Diagnostics = append(f.res.Diagnostics, fmt.Sprintf(format, args...))
}

func (f *fitter) pinnedError(needed int) error {
	e := &OverflowError{Cause: CausePinned, Needed: needed, Limit: f.req.Limit}
	for _, it := range f.items {
		if it.Pinned {
			e.IDs = append(e.IDs, it.ID)
			e.Kinds = append(e.Kinds, it.Kind)
		}
	}
	return finish(e)
}

func (f *fitter) failError(i, needed int) error {
	it := f.items[i]
	return finish(&OverflowError{Cause: CauseFail, IDs: []string{it.ID}, Kinds: []string{it.Kind}, Needed: needed, Limit: f.req.Limit})
}

// finish sorts the names of an OverflowError, so it reads the same whatever
// the arrival order.
func finish(e *OverflowError) *OverflowError {
	slices.Sort(e.IDs)
	slices.Sort(e.Kinds)
	e.Kinds = slices.Compact(e.Kinds)
	if len(e.Kinds) == 1 && e.Kinds[0] == "" {
		e.Kinds = nil
	}
	return e
}

// validate rejects requests Fit cannot answer sensibly.
func validate(req Request) error {
	if req.Limit < 0 {
		return invalidf("limit %d is negative: want 0 or more tokens", req.Limit)
	}
	if req.Frame < 0 || req.Frame > MaxBudget {
		return invalidf("frame %d is out of range: want 0 to %d tokens", req.Frame, MaxBudget)
	}
	if req.Render != nil && req.Counter == nil {
		return invalidf("a Render function needs a Counter to count its output")
	}
	seen := make(map[string]int, len(req.Items))
	for i, it := range req.Items {
		if it.Tokens < 0 || it.Tokens > MaxBudget {
			return invalidValuef(it.ID, "item %q has %d tokens: want 0 to %d", it.ID, it.Tokens, MaxBudget)
		}
		if it.MinTokens < 0 {
			return invalidValuef(it.ID, "item %q has minimum %d tokens: want 0 or more", it.ID, it.MinTokens)
		}
		switch it.Action {
		case "", Drop, Truncate, Fail:
		default:
			return invalidValuef(it.ID, "item %q has overflow action %q: want %q, %q or %q", it.ID, it.Action, Drop, Truncate, Fail)
		}
		if j, dup := seen[it.ID]; dup {
			return invalidValuef(it.ID, "item id %q appears twice (items %d and %d): ids must be unique", it.ID, j, i)
		}
		seen[it.ID] = i
	}
	for _, it := range req.Items {
		if it.Extends == "" {
			continue
		}
		if !req.Grow {
			return invalidValuef(it.ID, "item %q extends %q, and only a growing fill (Grow) keeps an item beside the one it extends", it.ID, it.Extends)
		}
		j, ok := seen[it.Extends]
		if !ok || it.Extends == it.ID {
			return invalidValuef(it.ID, "item %q extends %q, which is not another item of the request", it.ID, it.Extends)
		}
		if req.Items[j].Extends != "" {
			return invalidValuef(it.ID, "item %q extends %q, which extends %q in turn: an item may extend only a base item", it.ID, it.Extends, req.Items[j].Extends)
		}
	}
	return nil
}
