package budget

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Rule 1: everything fits, nothing changes; a negative limit is an error.
func TestFitRule1EverythingFits(t *testing.T) {
	items := []Item{
		{ID: "a", Tokens: 10, Rank: 3, Text: "x"},
		{ID: "b", Tokens: 20, Rank: 1, Action: Truncate, Text: words("b", 20)},
		{ID: "c", Tokens: 30, Rank: 2, Action: Fail},
	}
	// 5 + 10 + 20 + 30 = 65: exactly the limit still fits.
	for _, limit := range []int{65, 66, 1000} {
		r, err := Fit(Request{Items: items, Limit: limit, Frame: 5, Counter: newWordTok()})
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if got, want := keptIDs(r), []string{"a", "b", "c"}; !slices.Equal(got, want) {
			t.Errorf("limit %d: kept %v, want %v", limit, got, want)
		}
		if len(r.Deferred) != 0 || r.Overflowed || r.FrameOnly || len(r.Diagnostics) != 0 {
			t.Errorf("limit %d: deferred %v overflowed %v frameOnly %v diags %q, want nothing changed", limit, deferredIDs(r), r.Overflowed, r.FrameOnly, r.Diagnostics)
		}
		if r.Used != 65 || r.Limit != limit {
			t.Errorf("limit %d: used %d limit %d, want 65 and %d", limit, r.Used, r.Limit, limit)
		}
		for i, k := range r.Kept {
			if k.Item != items[i] || k.Text != items[i].Text || k.Tokens != items[i].Tokens || k.Truncated || k.Cut != 0 {
				t.Errorf("limit %d: kept[%d] = %+v, want item %+v unchanged", limit, i, k, items[i])
			}
		}
	}
	// One token less and something must go.
	r, err := Fit(Request{Items: items, Limit: 64, Frame: 5})
	if err != nil || !r.Overflowed {
		t.Errorf("limit 64: overflowed %v err %v, want an overflow and no error", r.Overflowed, err)
	}
	_, err = Fit(Request{Items: items, Limit: -1})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "-1") {
		t.Errorf("limit -1: err %v, want ErrInvalid quoting -1", err)
	}
	// No items at all: only the frame.
	r, err = Fit(Request{Limit: 10, Frame: 4})
	if err != nil || r.Used != 4 || r.Overflowed || len(r.Kept) != 0 {
		t.Errorf("no items: %+v %v, want used 4 and nothing else", r, err)
	}
}

// rule2Items have every tie-break of rule 2 in play. Their total order,
// deferred first: c (rank 3, score .2), b (rank 3, score .5), d (rank 2,
// 40 tokens), e (rank 2, 30, id e), f (rank 2, 30, id f), a (rank 1).
func rule2Items() []Item {
	return []Item{
		{ID: "a", Rank: 1, Tokens: 10, Order: 1},
		{ID: "b", Rank: 3, Score: 0.5, Tokens: 10, Order: 2},
		{ID: "c", Rank: 3, Score: 0.2, Tokens: 10, Order: 3},
		{ID: "d", Rank: 2, Tokens: 40, Order: 4},
		{ID: "e", Rank: 2, Tokens: 30, Order: 6},
		{ID: "f", Rank: 2, Tokens: 30, Order: 5},
	}
}

// Rule 2: one total order (rank, score, size or reverse order, id) drives
// every decision, whatever the arrival order.
func TestFitRule2TotalOrder(t *testing.T) {
	// The items sum to 130.
	tests := []struct {
		limit   int
		byOrder bool
		defer_  []string
	}{
		// Over by 5: c (the first in the order) goes.
		{limit: 125, defer_: []string{"c"}},
		// Over by 15: c then b.
		{limit: 115, defer_: []string{"c", "b"}},
		// Over by 30: c, b, then d (40, the largest of rank 2) leaves 70
		// and a room of 30; put back b then c (rule 5): only d stays out.
		{limit: 100, defer_: []string{"d"}},
		// Over by 60: c, b, d, e (30, id e before f) leave 40, room 30;
		// put back e (30), then nothing else fits.
		{limit: 70, defer_: []string{"c", "b", "d"}},
		// Limit 0: everything goes, listed in the total order.
		{limit: 0, defer_: []string{"c", "b", "d", "e", "f", "a"}},
		// By order: within rank 2 the latest Order goes first: e (6),
		// f (5), d (4).
		{limit: 0, byOrder: true, defer_: []string{"c", "b", "e", "f", "d", "a"}},
		// Over by 60 by order: c, b, e, f leave 50, room 20: put back b,
		// then c.
		{limit: 70, byOrder: true, defer_: []string{"e", "f"}},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("limit=%d/byOrder=%v", tt.limit, tt.byOrder)
		t.Run(name, func(t *testing.T) {
			items := rule2Items()
			r, err := Fit(Request{Items: items, Limit: tt.limit, ByOrder: tt.byOrder})
			if err != nil {
				t.Fatal(err)
			}
			if got := deferredIDs(r); !slices.Equal(got, tt.defer_) {
				t.Errorf("deferred %v, want %v", got, tt.defer_)
			}
			// Every arrival order gives the same decisions.
			slices.Reverse(items)
			r2, err := Fit(Request{Items: items, Limit: tt.limit, ByOrder: tt.byOrder})
			if err != nil {
				t.Fatal(err)
			}
			if got := deferredIDs(r2); !slices.Equal(got, tt.defer_) {
				t.Errorf("reversed input: deferred %v, want %v", got, tt.defer_)
			}
			if r.Used != r2.Used {
				t.Errorf("used %d, reversed %d", r.Used, r2.Used)
			}
		})
	}
}

// Rule 2: ids must be unique, or the order would not be total.
func TestFitRule2DuplicateID(t *testing.T) {
	_, err := Fit(Request{Items: []Item{{ID: "x", Tokens: 1}, {ID: "x", Tokens: 2}}, Limit: 1})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("err %v, want ErrInvalid quoting \"x\"", err)
	}
}

// Rule 3: pinned items are never dropped or truncated, and pinned items that
// alone exceed the limit fail under every action, before anything else.
func TestFitRule3Pinned(t *testing.T) {
	tok := newWordTok()
	// The pinned item is the least important and truncatable: still kept
	// whole. 20 pinned + 30 + 30 = 80 for a limit of 55: the walk skips
	// the pinned item and defers y (rank 5), leaving 50 and a room of 5.
	items := []Item{
		{ID: "pin", Rank: 11, Tokens: 20, Pinned: true, Action: Truncate, Text: words("p", 20)},
		{ID: "x", Rank: 1, Tokens: 30},
		{ID: "y", Rank: 5, Tokens: 30},
	}
	r, err := Fit(Request{Items: items, Limit: 55, Counter: tok})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keptIDs(r), []string{"pin", "x"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	if r.Kept[0].Truncated || r.Kept[0].Text != items[0].Text || r.Used != 50 {
		t.Errorf("pinned kept as %+v, used %d; want untouched, used 50", r.Kept[0], r.Used)
	}

	// Pinned alone over the limit: 20 + 25 pinned + frame 5 = 50 > 49.
	for _, action := range []Action{Drop, Truncate, Fail, ""} {
		t.Run("over/"+string(action), func(t *testing.T) {
			items := []Item{
				{ID: "p2", Kind: "rule", Tokens: 25, Pinned: true, Action: action, Text: words("q", 25)},
				{ID: "free", Kind: "note", Tokens: 1, Rank: 9},
				{ID: "p1", Kind: "canon", Tokens: 20, Pinned: true, Action: action, Text: words("p", 20)},
			}
			r, err := Fit(Request{Items: items, Limit: 49, Frame: 5, Counter: tok})
			var oe *OverflowError
			if !errors.As(err, &oe) || !errors.Is(err, ErrOverBudget) {
				t.Fatalf("err %v, want an *OverflowError wrapping ErrOverBudget", err)
			}
			if oe.Cause != CausePinned || !slices.Equal(oe.IDs, []string{"p1", "p2"}) || !slices.Equal(oe.Kinds, []string{"canon", "rule"}) || oe.Needed != 50 || oe.Limit != 49 {
				t.Errorf("error %+v, want pinned p1, p2 (canon, rule) needing 50 of 49", oe)
			}
			if len(r.Kept) != 0 || len(r.Deferred) != 0 || r.Overflowed {
				t.Errorf("result %+v, want nothing decided", r)
			}
			for _, want := range []string{`"p1"`, `"p2"`, "50", "49", "nothing was dropped"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %s", err, want)
				}
			}
		})
	}
	// Exactly at the limit is fine.
	if _, err := Fit(Request{Items: items[:1], Limit: 20}); err != nil {
		t.Errorf("pinned 20 in 20: %v", err)
	}
}

// Rule 4: the overflow actions drop, truncate and fail.
func TestFitRule4Actions(t *testing.T) {
	tok := newWordTok()
	text := words("w", 20) // 20 tokens
	base := func(action Action, min int) []Item {
		return []Item{
			{ID: "keep", Rank: 1, Tokens: 10},
			{ID: "t", Kind: "memory", Rank: 5, Tokens: 20, Action: action, Text: text, MinTokens: min},
		}
	}
	// 30 tokens for a limit of 25: over by 5.
	t.Run("drop", func(t *testing.T) {
		r, err := Fit(Request{Items: base(Drop, 0), Limit: 25, Counter: tok})
		if err != nil {
			t.Fatal(err)
		}
		if got := deferredIDs(r); !slices.Equal(got, []string{"t"}) || r.Used != 10 {
			t.Errorf("deferred %v used %d, want [t] and 10", got, r.Used)
		}
		if d := r.Deferred[0]; d.Rule != RuleBudget || d.Tokens != 20 || d.Reason == "" {
			t.Errorf("deferred %+v, want rule budget, 20 tokens, a reason", d)
		}
	})
	t.Run("truncate", func(t *testing.T) {
		// Room for t: 20 - 5 = 15. The marker "\n[... 9 tokens cut]" is
		// 4 words, so 11 words of text stay and 9 are cut: 11 + 4 = 15.
		r, err := Fit(Request{Items: base(Truncate, 1), Limit: 25, Counter: tok})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Deferred) != 0 || len(r.Kept) != 2 {
			t.Fatalf("kept %v deferred %v, want both kept", keptIDs(r), deferredIDs(r))
		}
		k := r.Kept[1]
		want := words("w", 11) + "\n[... 9 tokens cut]"
		if !k.Truncated || k.Cut != 9 || k.Tokens != 15 || k.Text != want {
			t.Errorf("kept %+v, want truncated to %q (15 tokens, 9 cut)", k, want)
		}
		if k.Item.Text != text {
			t.Errorf("the item's own text changed")
		}
		if r.Used != 25 || !r.Overflowed {
			t.Errorf("used %d overflowed %v, want 25 and true", r.Used, r.Overflowed)
		}
	})
	t.Run("truncate with overhead", func(t *testing.T) {
		// Tokens 24 for a 20-word text: 4 tokens of heading stay whole.
		// 34 for a limit of 25: over by 9, room 15 = 4 + 7 words + 4.
		items := base(Truncate, 1)
		items[1].Tokens = 24
		r, err := Fit(Request{Items: items, Limit: 25, Counter: tok})
		if err != nil {
			t.Fatal(err)
		}
		k := r.Kept[1]
		if k.Text != words("w", 7)+"\n[... 13 tokens cut]" || k.Tokens != 15 || k.Cut != 13 {
			t.Errorf("kept %+v, want 7 words, 13 cut, 15 tokens", k)
		}
	})
	t.Run("truncate below minimum", func(t *testing.T) {
		// Only 11 words fit; the minimum is 12: dropped whole.
		r, err := Fit(Request{Items: base(Truncate, 12), Limit: 25, Counter: tok})
		if err != nil {
			t.Fatal(err)
		}
		if got := deferredIDs(r); !slices.Equal(got, []string{"t"}) {
			t.Fatalf("deferred %v, want [t]", got)
		}
		if d := r.Deferred[0]; d.Rule != RuleMinimum || !strings.Contains(d.Reason, "12") || d.Tokens != 20 {
			t.Errorf("deferred %+v, want rule minimum naming the minimum 12, 20 tokens", d)
		}
		// The minimum itself is allowed: 11.
		r, err = Fit(Request{Items: base(Truncate, 11), Limit: 25, Counter: tok})
		if err != nil || len(r.Kept) != 2 || r.Kept[1].Cut != 9 {
			t.Errorf("minimum 11: kept %v err %v, want t cut by 9", keptIDs(r), err)
		}
	})
	t.Run("truncate default minimum", func(t *testing.T) {
		// MinTokens 0 means DefaultMinTokens (16): 11 words are too few.
		r, err := Fit(Request{Items: base(Truncate, 0), Limit: 25, Counter: tok})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Deferred) != 1 || r.Deferred[0].Rule != RuleMinimum || !strings.Contains(r.Deferred[0].Reason, "16") {
			t.Errorf("deferred %+v, want t dropped below the default minimum 16", r.Deferred)
		}
	})
	t.Run("truncate without a tokenizer", func(t *testing.T) {
		r, err := Fit(Request{Items: base(Truncate, 1), Limit: 25, Counter: wordCounter{}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Deferred) != 1 || r.Deferred[0].Rule != RuleMinimum || !strings.Contains(r.Deferred[0].Reason, "word-counter") {
			t.Errorf("deferred %+v, want t dropped naming the counter", r.Deferred)
		}
	})
	t.Run("truncate cannot help", func(t *testing.T) {
		// Over by 25 with t worth 20: cutting it cannot fit; dropped, and
		// keep (10, rank 1) goes too.
		r, err := Fit(Request{Items: base(Truncate, 0), Limit: 5, Counter: tok})
		if err != nil {
			t.Fatal(err)
		}
		if got := deferredIDs(r); !slices.Equal(got, []string{"t", "keep"}) || r.Deferred[0].Rule != RuleBudget {
			t.Errorf("deferred %v (%+v), want [t keep], t by rule budget", got, r.Deferred)
		}
	})
	t.Run("fail", func(t *testing.T) {
		r, err := Fit(Request{Items: base(Fail, 0), Limit: 25, Counter: tok})
		var oe *OverflowError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOverBudget) {
			t.Fatalf("err %v, want *OverflowError", err)
		}
		if oe.Cause != CauseFail || !slices.Equal(oe.IDs, []string{"t"}) || !slices.Equal(oe.Kinds, []string{"memory"}) || oe.Needed != 30 || oe.Limit != 25 {
			t.Errorf("error %+v, want fail of t (memory) needing 30 of 25", oe)
		}
		if len(r.Kept) != 0 || len(r.Deferred) != 0 || r.Overflowed {
			t.Errorf("result %+v, want nothing dropped or truncated", r)
		}
		if !strings.Contains(err.Error(), `"t"`) || !strings.Contains(err.Error(), "fail") {
			t.Errorf("error %q should name \"t\" and the fail action", err)
		}
	})
	t.Run("fail not reached", func(t *testing.T) {
		// The fail item is the most important; dropping the other is
		// enough, so the fit goes ahead.
		items := []Item{
			{ID: "f", Rank: 1, Tokens: 10, Action: Fail},
			{ID: "d", Rank: 5, Tokens: 20},
		}
		r, err := Fit(Request{Items: items, Limit: 25})
		if err != nil || !slices.Equal(deferredIDs(r), []string{"d"}) {
			t.Errorf("deferred %v err %v, want [d] and no error", deferredIDs(r), err)
		}
	})
	t.Run("fail of nothing", func(t *testing.T) {
		// A Fail item of 0 tokens is passed over: cutting it frees nothing.
		items := []Item{
			{ID: "f", Rank: 9, Tokens: 0, Action: Fail},
			{ID: "d", Rank: 5, Tokens: 20},
			{ID: "k", Rank: 1, Tokens: 10},
		}
		r, err := Fit(Request{Items: items, Limit: 25})
		if err != nil || !slices.Equal(deferredIDs(r), []string{"d"}) || !slices.Equal(keptIDs(r), []string{"f", "k"}) {
			t.Errorf("kept %v deferred %v err %v, want [f k], [d], no error", keptIDs(r), deferredIDs(r), err)
		}
	})
	t.Run("bad action", func(t *testing.T) {
		_, err := Fit(Request{Items: []Item{{ID: "z", Action: "squash"}}, Limit: 1})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"squash"`) || !strings.Contains(err.Error(), "truncate") {
			t.Errorf("err %v, want ErrInvalid quoting squash and naming the actions", err)
		}
	})
}

// Rule 5: put back, from the most important deferred item, each that still
// fits.
func TestFitRule5PutBack(t *testing.T) {
	// lmpack's reason for put-back: one huge file in an important category
	// would otherwise push out every smaller file in the less important
	// ones.
	items := []Item{
		{ID: "src", Rank: 1, Tokens: 10},
		{ID: "big", Rank: 2, Tokens: 95},
		{ID: "doc-a", Rank: 8, Tokens: 30},
		{ID: "doc-b", Rank: 8, Tokens: 20},
		{ID: "doc-c", Rank: 8, Tokens: 10},
	}
	// Total 165, limit 100: walk defers doc-a (135), doc-b (115),
	// doc-c (105), big (10). Room 90: big (95) no; doc-c (10) yes, room
	// 80; doc-b (20) yes, room 60; doc-a (30) yes, room 30.
	r, err := Fit(Request{Items: items, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keptIDs(r), []string{"src", "doc-a", "doc-b", "doc-c"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	if got := deferredIDs(r); !slices.Equal(got, []string{"big"}) || r.Used != 70 {
		t.Errorf("deferred %v used %d, want [big] and 70", got, r.Used)
	}
	// The most important deferred item comes back first, even when that
	// leaves no room for a less important one: limit 60 defers doc-a,
	// doc-b, doc-c, big (10 left, room 50); big no; doc-c (10) room 40;
	// doc-b (20) room 20; doc-a (30) no.
	r, err = Fit(Request{Items: items, Limit: 60})
	if err != nil {
		t.Fatal(err)
	}
	if got := deferredIDs(r); !slices.Equal(got, []string{"doc-a", "big"}) || r.Used != 40 {
		t.Errorf("limit 60: deferred %v used %d, want [doc-a big] and 40", got, r.Used)
	}
	if !slices.ContainsFunc(r.Diagnostics, func(s string) bool { return strings.HasPrefix(s, "put back 2 items (30 tokens)") }) {
		t.Errorf("diagnostics %q, want a put-back of 2 items, 30 tokens", r.Diagnostics)
	}
}

// Rule 5 with a truncatable item: it comes back cut when it does not fit
// whole but can keep its minimum.
func TestFitRule5PutBackTruncated(t *testing.T) {
	tok := newWordTok()
	items := []Item{
		{ID: "a", Rank: 1, Tokens: 10},
		{ID: "big", Rank: 2, Tokens: 50},
		{ID: "t", Rank: 3, Tokens: 20, Action: Truncate, Text: words("w", 20), MinTokens: 2},
	}
	// 80 for 40: t cannot be cut to fit (over by 40, t is 20): dropped;
	// then big goes: 10 used, room 30. Put back big (50) no; t (20) yes.
	r, err := Fit(Request{Items: items, Limit: 40, Counter: tok})
	if err != nil {
		t.Fatal(err)
	}
	if got := deferredIDs(r); !slices.Equal(got, []string{"big"}) || r.Used != 30 {
		t.Fatalf("deferred %v used %d, want [big] and 30", got, r.Used)
	}
	// Limit 25: room 15 after the walk: t comes back cut to 15 (11 words
	// and the 4-word marker).
	r, err = Fit(Request{Items: items, Limit: 25, Counter: tok})
	if err != nil {
		t.Fatal(err)
	}
	if got := deferredIDs(r); !slices.Equal(got, []string{"big"}) || r.Used != 25 {
		t.Fatalf("deferred %v used %d, want [big] and 25", got, r.Used)
	}
	if k := r.Kept[1]; k.ID != "t" || !k.Truncated || k.Tokens != 15 || k.Cut != 9 {
		t.Errorf("kept %+v, want t cut by 9 to 15 tokens", k)
	}
}

// wordRender renders each kept item as its Tokens words plus one word of
// separator, and the frame as frame words: the separators are what a sum
// of items does not see. Its count does not depend on the order of the
// items (a renderer whose boundaries merge tokens would).
func wordRender(frame int, calls *int) func([]Fitted) string {
	return func(kept []Fitted) string {
		*calls++
		var parts []string
		if frame > 0 {
			parts = append(parts, words("frame", frame))
		}
		for _, k := range kept {
			parts = append(parts, "---")
			if k.Tokens > 0 {
				parts = append(parts, words(k.ID, k.Tokens))
			}
		}
		return strings.Join(parts, " ")
	}
}

// Rule 6: the rendered whole is counted again; while it is over, the next
// item in the order is deferred and the whole counted again.
func TestFitRule6Recount(t *testing.T) {
	tok := newWordTok()
	items := []Item{
		{ID: "a", Rank: 1, Tokens: 10},
		{ID: "b", Rank: 2, Tokens: 10},
		{ID: "c", Rank: 3, Tokens: 10},
	}
	t.Run("one more", func(t *testing.T) {
		// The sum, 2 + 30 = 32, fits 33; rendered 2 + 33 = 35 does not.
		// c goes: 2 + 22 = 24.
		calls := 0
		r, err := Fit(Request{Items: items, Limit: 33, Frame: 2, Counter: tok, Render: wordRender(2, &calls)})
		if err != nil {
			t.Fatal(err)
		}
		if got := deferredIDs(r); !slices.Equal(got, []string{"c"}) || r.Deferred[0].Rule != RuleRecount {
			t.Errorf("deferred %+v, want c by rule recount", r.Deferred)
		}
		if r.Used != 24 || calls != 2 || tok.Count(r.Rendered) != 24 {
			t.Errorf("used %d after %d renderings, rendered %d tokens; want 24 after 2", r.Used, calls, tok.Count(r.Rendered))
		}
	})
	t.Run("fits rendered", func(t *testing.T) {
		calls := 0
		r, err := Fit(Request{Items: items, Limit: 35, Frame: 2, Counter: tok, Render: wordRender(2, &calls)})
		if err != nil || r.Overflowed || r.Used != 35 || calls != 1 {
			t.Errorf("used %d overflowed %v calls %d err %v, want 35, false, 1", r.Used, r.Overflowed, calls, err)
		}
	})
	t.Run("after the walk", func(t *testing.T) {
		// Limit 22: the walk defers c (sum 22 fits); rendered 24 > 22:
		// b goes (rule 6): rendered 2 + 11 = 13.
		calls := 0
		r, err := Fit(Request{Items: items, Limit: 22, Frame: 2, Counter: tok, Render: wordRender(2, &calls)})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Deferred) != 2 || r.Deferred[0].ID != "c" || r.Deferred[0].Rule != RuleBudget || r.Deferred[1].ID != "b" || r.Deferred[1].Rule != RuleRecount {
			t.Errorf("deferred %+v, want c by budget then b by recount", r.Deferred)
		}
		if r.Used != 13 || calls != 2 {
			t.Errorf("used %d after %d renderings, want 13 after 2", r.Used, calls)
		}
	})
	t.Run("cut before drop", func(t *testing.T) {
		// t (rank 3, truncatable) is next in the order. The sum 2 + 30
		// fits 33; rendered 2 + 11 + 21 = 34 is over by 1: t is cut to
		// 19 (15 words and the 4-word marker), rendered 33.
		cut := []Item{items[0], {ID: "t", Rank: 3, Tokens: 20, Action: Truncate, Text: words("w", 20), MinTokens: 1}}
		calls := 0
		r, err := Fit(Request{Items: cut, Limit: 33, Frame: 2, Counter: tok, Render: wordRender(2, &calls)})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Deferred) != 0 || len(r.Kept) != 2 || r.Used != 33 || calls != 2 {
			t.Fatalf("kept %v deferred %v used %d calls %d, want both kept, 33, 2 renderings", keptIDs(r), deferredIDs(r), r.Used, calls)
		}
		if k := r.Kept[1]; !k.Truncated || k.Tokens != 19 || k.Cut != 5 {
			t.Errorf("kept %+v, want t cut by 5 to 19 tokens", k)
		}
	})
	t.Run("pinned still over", func(t *testing.T) {
		// a pinned: sum 10 fits 10 with b and c gone... rendered a is 11.
		pinned := slices.Clone(items)
		pinned[0].Pinned = true
		calls := 0
		_, err := Fit(Request{Items: pinned, Limit: 10, Counter: tok, Render: wordRender(0, &calls)})
		var oe *OverflowError
		if !errors.As(err, &oe) || oe.Cause != CausePinned || oe.Needed != 11 {
			t.Errorf("err %v, want pinned overflow needing 11", err)
		}
	})
	t.Run("fail reached", func(t *testing.T) {
		failing := slices.Clone(items)
		failing[2].Action = Fail
		calls := 0
		_, err := Fit(Request{Items: failing, Limit: 33, Frame: 2, Counter: tok, Render: wordRender(2, &calls)})
		var oe *OverflowError
		if !errors.As(err, &oe) || oe.Cause != CauseFail || !slices.Equal(oe.IDs, []string{"c"}) || oe.Needed != 35 {
			t.Errorf("err %v, want fail overflow of c needing 35", err)
		}
	})
	t.Run("frame renders over", func(t *testing.T) {
		// Frame declared 2 but renders as 5 words: nothing fits 4.
		calls := 0
		r, err := Fit(Request{Items: items, Limit: 4, Frame: 2, Counter: tok, Render: wordRender(5, &calls)})
		if err != nil {
			t.Fatal(err)
		}
		if !r.FrameOnly || len(r.Kept) != 0 || len(r.Deferred) != 3 || r.Used != 5 {
			t.Errorf("frameOnly %v kept %v deferred %v used %d, want frame only, all deferred, used 5", r.FrameOnly, keptIDs(r), deferredIDs(r), r.Used)
		}
	})
	t.Run("render needs a counter", func(t *testing.T) {
		calls := 0
		_, err := Fit(Request{Items: items, Limit: 4, Render: wordRender(5, &calls)})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("err %v, want ErrInvalid", err)
		}
	})
}

// Rule 7: a limit below the frame defers everything and warns, unless
// pinned content exists (then rule 3).
func TestFitRule7Frame(t *testing.T) {
	items := []Item{
		{ID: "a", Rank: 1, Tokens: 1},
		{ID: "b", Rank: 2, Tokens: 0},
	}
	r, err := Fit(Request{Items: items, Limit: 9, Frame: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !r.FrameOnly || len(r.Kept) != 0 || !slices.Equal(deferredIDs(r), []string{"b", "a"}) || r.Used != 10 || !r.Overflowed {
		t.Errorf("result %+v, want frame only, b and a deferred, used 10", r)
	}
	for _, d := range r.Deferred {
		if d.Rule != RuleFrame || !strings.Contains(d.Reason, "9") || !strings.Contains(d.Reason, "10") {
			t.Errorf("deferred %+v, want rule frame naming the limit 9 and frame 10", d)
		}
	}
	if len(r.Diagnostics) != 1 || !strings.HasPrefix(r.Diagnostics[0], "warning:") {
		t.Errorf("diagnostics %q, want one warning", r.Diagnostics)
	}
	// The frame exactly at the limit fits.
	r, err = Fit(Request{Items: items[1:], Limit: 10, Frame: 10})
	if err != nil || r.FrameOnly || len(r.Kept) != 1 {
		t.Errorf("frame 10 in 10: %+v %v, want b (0 tokens) kept", r, err)
	}
	// With pinned content, rule 3: even a pinned item of 0 tokens.
	items[1].Pinned = true
	_, err = Fit(Request{Items: items, Limit: 9, Frame: 10})
	var oe *OverflowError
	if !errors.As(err, &oe) || oe.Cause != CausePinned || oe.Needed != 10 {
		t.Errorf("err %v, want pinned overflow needing 10", err)
	}
	// With content whose action is Fail, rule 4: refused, not deferred.
	_, err = Fit(Request{Items: []Item{{ID: "a", Tokens: 1}, {ID: "f", Tokens: 2, Action: Fail}}, Limit: 9, Frame: 10})
	if !errors.As(err, &oe) || oe.Cause != CauseFail || !slices.Equal(oe.IDs, []string{"f"}) || oe.Needed != 13 {
		t.Errorf("err %v, want fail overflow of f needing 13", err)
	}
	// With a renderer, the frame is rendered and counted.
	calls := 0
	r, err = Fit(Request{Items: items[:1], Limit: 3, Frame: 4, Counter: newWordTok(), Render: wordRender(4, &calls)})
	if err != nil || !r.FrameOnly || calls != 1 || r.Used != 4 || r.Rendered != words("frame", 4) {
		t.Errorf("rendered frame only: %+v %v (calls %d)", r, err, calls)
	}
}

// Deferral notes carry the rule, a reason in words and the tokens the item
// would have cost; survivors keep their arrival order.
func TestFitDeferredNotes(t *testing.T) {
	items := []Item{
		{ID: "z", Rank: 1, Tokens: 5},
		{ID: "m", Rank: 4, Tokens: 7, Kind: "scene"},
		{ID: "a", Rank: 2, Tokens: 5},
	}
	r, err := Fit(Request{Items: items, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := keptIDs(r); !slices.Equal(got, []string{"z", "a"}) {
		t.Errorf("kept %v, want arrival order [z a]", got)
	}
	d := r.Deferred[0]
	if d.ID != "m" || d.Kind != "scene" || d.Rank != 4 || d.Tokens != 7 || d.Rule != RuleBudget || d.Reason != "dropped: over budget" {
		t.Errorf("deferred %+v", d)
	}
}

func TestFitInvalid(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"negative limit", Request{Limit: -3}, "-3"},
		{"negative frame", Request{Frame: -2}, "-2"},
		{"negative tokens", Request{Items: []Item{{ID: "n", Tokens: -1}}}, `"n"`},
		{"huge tokens", Request{Items: []Item{{ID: "h", Tokens: MaxBudget + 1}}}, "2147483648"},
		{"huge frame", Request{Frame: MaxBudget + 1}, "2147483648"},
		{"negative minimum", Request{Items: []Item{{ID: "m", MinTokens: -4}}}, "-4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(tt.req)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want ErrInvalid quoting %s", err, tt.want)
			}
		})
	}
}

// The precomputed keys sort exactly as rule 2 reads, over extreme values.
func TestFitOrderKeys(t *testing.T) {
	ref := func(a, b Item, byOrder bool) int {
		if c := -cmpInt(int64(a.Rank), int64(b.Rank)); c != 0 {
			return c
		}
		if a.Score != b.Score { // -0 == 0
			if a.Score < b.Score {
				return -1
			}
			return 1
		}
		sa, sb := int64(a.Tokens), int64(b.Tokens)
		if byOrder {
			sa, sb = a.Order, b.Order
		}
		if c := -cmpInt(sa, sb); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	ranks := []int{-1 << 40, -3, 0, 1, 2, 11, 1 << 40}
	scores := []float64{math.Inf(-1), -2.5, -1e-300, math.Copysign(0, -1), 0, 1e-300, 0.5, 7, math.Inf(1)}
	sizes := []int64{math.MinInt64, -1, 0, 1, 2000, math.MaxInt64}
	var items []Item
	for i, r := range ranks {
		for j, s := range scores {
			for k, z := range sizes {
				id := fmt.Sprintf("%d-%d-%d", (i*7+j*3+k)%5, j, k)
				items = append(items, Item{ID: id, Rank: r, Score: s, Tokens: int(max(0, min(z, 1<<40))), Order: z})
			}
		}
	}
	for _, byOrder := range []bool{false, true} {
		for i := range items {
			for j := range items {
				a, b := items[i], items[j]
				got := compareKeys([]Item{a, b}, makeKey(&a, byOrder, 0), makeKey(&b, byOrder, 1))
				if want := ref(a, b, byOrder); got != want {
					t.Fatalf("byOrder %v: compare(%+v, %+v) = %d, want %d", byOrder, a, b, got, want)
				}
			}
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
