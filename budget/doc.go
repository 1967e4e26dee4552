// Package budget counts tokens, parses budgets, and fits items into a token
// budget. It imports nothing of Lore and works on any list of items.
//
// # Counters
//
// NewCounter returns a Counter by encoding name: "o200k_base" (the default)
// and "cl100k_base" count exactly as OpenAI's tokenizer does, offline, and
// also implement Tokenizer (encode, decode at a token boundary), which
// truncation needs; "estimate" counts characters / 4 for prose and lines x 12
// for tabular text, for models whose tokenizer Lore does not have.
//
// # Budgets
//
// ParseBudget reads "8000", "8k", "20K", "1.5k", "1m", "120_000" and the
// scope names of DefaultScopes (scene 8,000, chapter 20,000, arc 60,000,
// novel 120,000), which a caller may override. LookupModel finds a model's
// encoding and context window in a built-in table; Limit turns a given
// budget, a model and a reserve (room for the question, the system prompt and
// the answer) into min(given, window - reserve). Counts for models that are
// not OpenAI's are estimates, so Limit keeps EstimateMargin (10%) of the
// budget back for them; the caller should say so in its report.
//
// # Fitting
//
// Fit takes items (an ID, a kind, the tokens each costs, a rank, a score, a
// position, whether it is pinned, and an overflow action), a limit, a counter
// and the size of the fixed frame, and decides what is kept. It follows
// seven rules, which unify lmpack's budget (whole files dropped by category,
// largest first, put back, re-count), symfonic's overflow policy (per-kind
// actions, pinned content, a total order, survivors in arrival order) and the
// context-budget skill (ranks, deferral, recorded trims):
//
//  1. Everything fits: nothing changes. A negative limit is an error.
//  2. One total order drives every decision: rank (higher rank numbers are
//     less important and go first), then score (lowest first), then size
//     (largest first; with Request.ByOrder, the reverse of Order: what
//     renders last goes first), then ID. Same input, same output, whatever
//     order the items arrive in; IDs must be unique.
//  3. Pinned items are never dropped or truncated. When pinned items and the
//     frame alone exceed the limit, Fit fails with an *OverflowError whatever
//     the actions, before trying anything else.
//  4. Each item has an overflow action. Drop (the default) defers it whole.
//     Truncate cuts its Text at a token boundary to the exact room needed,
//     leaving valid UTF-8 and a marker "[... N tokens cut]" that is counted
//     in the budget; when that would keep fewer than MinTokens tokens of
//     text (DefaultMinTokens, 16, when unset), or the Counter is not a
//     Tokenizer, it is dropped whole instead (rule "minimum"). Fail refuses
//     the fit when the walk reaches the item: an *OverflowError names it,
//     and nothing is dropped or truncated.
//  5. Put back: after the walk, the deferred items are visited from the most
//     important, and each that still fits is restored (a Truncate item that
//     does not fit whole is restored cut, when it can keep its minimum).
//     The room only shrinks along this single pass, so afterwards no
//     deferred item would fit whole in the room left. Request.Prefix stops
//     the pass at the first item that does not fit (a larger limit then
//     keeps every item a smaller one does). Request.Grow replaces the pass
//     by a fill that grows the limit from the frame in steps, first fit at
//     each, so a large item blocks nothing after it and a larger limit
//     still keeps every item a smaller one does; the re-count (rule 6)
//     then defers the items it let in last first. A Fail item the fill
//     leaves out fails the fit, as rule 4 says for the walk. Past its last
//     step the fill is a prefix, so an item out may fit the room left:
//     its rule is "held back" (RuleHeldBack), not "budget".
//  6. Re-count: tokens do not add up exactly across boundaries. When
//     Request.Render is set, the rendered whole is counted with the Counter;
//     while it is over the limit, the next kept item in the order is deferred
//     (rule "recount") and the whole is rendered and counted again. A
//     Truncate item is first cut (further) by the overage, up to three
//     times, and dropped only when that fails.
//  7. A limit below the frame cannot be met: every item is deferred (rule
//     "frame"), FrameOnly is set and a warning is added to the diagnostics.
//     If pinned content exists, rule 3 applies instead and Fit fails; if an
//     item's action is Fail, Fit fails as rule 4 says.
//
// Kept items come back in the order they arrived (Fit decides membership and
// content, never order); deferred items come back least important first, each
// with the rule that deferred it, a reason in words and the tokens it would
// have cost.
//
// # Caveats
//
// Item.Tokens is trusted: Fit does not count items, only truncations and the
// rendered whole. A truncated item keeps its overhead (Tokens beyond the
// count of its Text) whole. The re-count defers one item per rendering, as
// lmpack does, so a renderer whose boundaries add many tokens costs one
// rendering per item deferred, and put-back does not run again after it.
// With Render, the arrival order is part of the output: a renderer whose
// count depends on it (joins that merge into one token) can make the
// re-count decide differently for a permuted input; without Render, the
// decisions never depend on arrival order. Fit is a pure function, safe to
// call from many goroutines; Render and the Counter must be safe for
// whatever the caller shares between calls.
package budget
