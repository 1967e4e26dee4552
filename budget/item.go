package budget

// DefaultMinTokens is the fewest tokens of text a truncation keeps when an
// item does not say (MinTokens 0): about a sentence, so that a cut never
// leaves a stub that says less than its own marker.
const DefaultMinTokens = 16

// Action is what Fit does with an item that does not fit.
type Action string

// The overflow actions an item's kind can declare.
const (
	// Drop defers the whole item (the default).
	Drop Action = "drop"
	// Truncate cuts the item's Text at a token boundary, with a marker
	// saying how many tokens were cut, never below the item's MinTokens;
	// an item that cannot keep MinTokens is dropped instead.
	Truncate Action = "truncate"
	// Fail refuses the whole fit: nothing is dropped or truncated.
	Fail Action = "fail"
)

// Item is one candidate for the budget. Fit never reorders survivors:
// the order of Request.Items is the order of Result.Kept.
type Item struct {
	// ID names the item; IDs must be unique within a Request (the id is
	// the last tie-break of the total order).
	ID string
	// Kind is the item's kind ("scene", "docs"): only reported, in
	// deferral notes and errors.
	Kind string
	// Tokens is what the item costs as rendered on its own.
	Tokens int
	// Rank orders importance: 1 is the most important; higher ranks are
	// deferred first.
	Rank int
	// Score breaks ties within a rank: lower scores are deferred first.
	Score float64
	// Order is the item's position in the rendered output; used instead of
	// size when Request.ByOrder is set (what renders last goes first).
	Order int64
	// Pinned items are never dropped or truncated.
	Pinned bool
	// Late items join a Request.Grow fill after every item that is not
	// late, and only in its last part, the prefix, never by first fit: a
	// caller whose larger limits bring more items (a deeper search) marks
	// those, so that they cannot take the room, or the place in the
	// order, of a smaller limit's items. The fill stays monotone in the
	// limit when the items a larger limit brings are less important than
	// those it had (a deeper search's hits rank after a shallower one's).
	Late bool
	// Extends names the item this one makes fuller (the rest of a record
	// whose excerpt is the item named): it is kept only beside that item.
	// A Request.Grow fill lets it in only once the item it extends is in,
	// and the re-count takes it out first (it came in later); Fit refuses
	// it in a request that does not grow. Rank it as the item it extends
	// and score it lower, so that a larger limit shows a record fuller,
	// never shorter. The rest of an item that is not late is given
	// wherever its item is, so it comes before every other late item,
	// whatever their ranks.
	Extends string
	// Action is the overflow action; "" means Drop.
	Action Action
	// Text is the item's content; needed only when Action is Truncate.
	// Fit never changes it: a cut is returned in Fitted.Text.
	Text string
	// MinTokens is the fewest tokens of Text a truncation may keep (the
	// marker not included); 0 means DefaultMinTokens. An item that cannot
	// keep them is dropped whole.
	MinTokens int
}
