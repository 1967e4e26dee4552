package budget

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// randomRequest builds a request from a seed: up to 40 items with ties in
// rank, score and size, some pinned, mixed actions, a limit anywhere from 0
// to a little over the total, sometimes a frame, sometimes ByOrder, and
// sometimes a renderer whose separators the sums do not see.
func randomRequest(seed uint64, tok *wordTok) Request {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	n := rng.IntN(41)
	req := Request{Counter: tok, ByOrder: rng.IntN(3) == 0}
	if rng.IntN(5) == 0 {
		req.Counter = wordCounter{} // cannot cut: Truncate items drop whole
	}
	if rng.IntN(3) == 0 {
		req.Frame = rng.IntN(12)
	}
	total := req.Frame
	for i := range n {
		it := Item{
			ID:     fmt.Sprintf("i%02d", i),
			Kind:   []string{"scene", "canon", "memory"}[rng.IntN(3)],
			Tokens: rng.IntN(61),
			Rank:   1 + rng.IntN(6),
			Score:  float64(rng.IntN(3)) / 2,
			Order:  int64(rng.IntN(20)),
			Pinned: rng.IntN(12) == 0,
		}
		switch p := rng.IntN(20); {
		case p < 5:
			it.Action = Truncate
			// Text of Tokens words, or fewer (the rest is overhead).
			it.Text = words(it.ID+"w", max(0, it.Tokens-rng.IntN(4)))
			it.MinTokens = rng.IntN(6)
		case p < 7:
			it.Action = Fail
		case p < 12:
			it.Action = Drop
		}
		total += it.Tokens
		req.Items = append(req.Items, it)
	}
	req.Limit = rng.IntN(total + 11)
	if rng.IntN(4) == 0 {
		calls := 0
		req.Render = wordRender(req.Frame, &calls)
	}
	return req
}

// checkFit checks the invariants of Fit on one request and its result.
func checkFit(t *testing.T, req Request, r Result, err error) {
	t.Helper()
	total, pinned := req.Frame, req.Frame
	hasPinned := false
	for _, it := range req.Items {
		total += it.Tokens
		if it.Pinned {
			pinned += it.Tokens
			hasPinned = true
		}
	}
	if err != nil {
		var oe *OverflowError
		if !errors.As(err, &oe) || !errors.Is(err, ErrOverBudget) {
			t.Fatalf("err %v, want only overflow errors for valid input", err)
		}
		if len(r.Kept) != 0 || len(r.Deferred) != 0 || r.Overflowed {
			t.Fatalf("an error with a result: %+v", r)
		}
		switch oe.Cause {
		case CausePinned:
			if !hasPinned || (pinned <= req.Limit && req.Render == nil) {
				t.Fatalf("pinned overflow %v with pinned %d (any %v) for %d", err, pinned, hasPinned, req.Limit)
			}
		case CauseFail:
			i := slices.IndexFunc(req.Items, func(it Item) bool { return it.ID == oe.IDs[0] })
			if i < 0 || req.Items[i].Action != Fail || req.Items[i].Pinned {
				t.Fatalf("fail overflow %v names an item that is not a non-pinned fail item", err)
			}
			if total <= req.Limit && req.Render == nil {
				t.Fatalf("fail overflow %v although everything fits (%d of %d)", err, total, req.Limit)
			}
		default:
			t.Fatalf("unknown cause in %v", err)
		}
		return
	}
	// Every item exactly once; kept in arrival order; pinned kept whole.
	pos := map[string]int{}
	for i, it := range req.Items {
		pos[it.ID] = i
	}
	seen := map[string]bool{}
	last := -1
	sum := req.Frame
	for _, k := range r.Kept {
		i := pos[k.ID]
		if i <= last {
			t.Fatalf("kept %v out of arrival order", keptIDs(r))
		}
		last = i
		seen[k.ID] = true
		sum += k.Tokens
		it := req.Items[i]
		if k.Item != it {
			t.Fatalf("kept %s changed its item: %+v, was %+v", k.ID, k.Item, it)
		}
		if k.Truncated {
			tok, ok := req.Counter.(Tokenizer)
			if !ok {
				t.Fatalf("kept %s truncated by counter %q, which cannot cut", k.ID, req.Counter.Name())
			}
			checkTruncation(t, tok, it, k)
		} else if k.Text != it.Text || k.Tokens != it.Tokens || k.Cut != 0 {
			t.Fatalf("kept %s untruncated but changed: %+v", k.ID, k)
		}
	}
	for _, it := range req.Items {
		if it.Pinned && !seen[it.ID] {
			t.Fatalf("pinned %s not kept", it.ID)
		}
	}
	for j, d := range r.Deferred {
		if seen[d.ID] {
			t.Fatalf("%s both kept and deferred", d.ID)
		}
		seen[d.ID] = true
		if d.Item != req.Items[pos[d.ID]] || d.Tokens != d.Item.Tokens || d.Reason == "" || d.Pinned || d.Action == Fail {
			t.Fatalf("bad deferral %+v", d)
		}
		if j > 0 {
			a, b := r.Deferred[j-1].Item, d.Item
			pair := []Item{a, b}
			if compareKeys(pair, makeKey(&a, req.ByOrder, 0), makeKey(&b, req.ByOrder, 1)) >= 0 {
				t.Fatalf("deferred %v not in the total order", deferredIDs(r))
			}
		}
	}
	if len(seen) != len(req.Items) {
		t.Fatalf("%d items accounted for, want %d", len(seen), len(req.Items))
	}
	// Never over the limit, except the frame alone (rule 7).
	if req.Render != nil {
		if r.Used != req.Counter.Count(r.Rendered) || r.Rendered != req.Render(r.Kept) {
			t.Fatalf("used %d is not the count of the rendered kept items", r.Used)
		}
	} else if r.Used != sum {
		t.Fatalf("used %d, but frame and kept add up to %d", r.Used, sum)
	}
	if r.FrameOnly {
		if len(r.Kept) != 0 || (req.Limit >= req.Frame && req.Render == nil) {
			t.Fatalf("frame only with kept %v, limit %d, frame %d", keptIDs(r), req.Limit, req.Frame)
		}
	} else if r.Used > req.Limit {
		t.Fatalf("used %d over the limit %d", r.Used, req.Limit)
	}
	// Rule 1: everything fits, nothing changes.
	if total <= req.Limit && req.Render == nil && (r.Overflowed || len(r.Kept) != len(req.Items)) {
		t.Fatalf("everything fits (%d of %d) but something changed", total, req.Limit)
	}
	// Rule 5: no deferred item would still fit whole in the room left.
	if req.Render == nil && !r.FrameOnly {
		room := req.Limit - r.Used
		for _, d := range r.Deferred {
			if d.Tokens <= room {
				t.Fatalf("deferred %s (%d tokens) would fit in the room left (%d)", d.ID, d.Tokens, room)
			}
		}
	}
}

// checkTruncation checks a truncated item: a prefix of its text at a token
// boundary, valid UTF-8, no fewer tokens than its minimum, followed by the
// marker, and its cost is the overhead plus the count of its text.
func checkTruncation(t *testing.T, tok Tokenizer, it Item, k Fitted) {
	t.Helper()
	prefix, ok := strings.CutSuffix(k.Text, marker(k.Cut))
	if !ok {
		t.Fatalf("truncated %s: %q does not end with the marker for %d cut", it.ID, k.Text, k.Cut)
	}
	if !strings.HasPrefix(it.Text, prefix) || !utf8.ValidString(k.Text) {
		t.Fatalf("truncated %s: %q is not a valid UTF-8 prefix of %q", it.ID, prefix, it.Text)
	}
	toks := tok.Encode(it.Text)
	keep := len(toks) - k.Cut
	if k.Cut <= 0 || keep < minKeep(&it) || tok.Decode(toks[:keep]) != prefix {
		t.Fatalf("truncated %s: kept %d of %d tokens (minimum %d), prefix %q not at that token boundary", it.ID, keep, len(toks), minKeep(&it), prefix)
	}
	overhead := max(0, it.Tokens-len(toks))
	if k.Tokens != overhead+tok.Count(k.Text) || k.Tokens >= it.Tokens {
		t.Fatalf("truncated %s costs %d, want overhead %d + count %d, below %d", it.ID, k.Tokens, overhead, tok.Count(k.Text), it.Tokens)
	}
}

// fitAndCheck fits req, checks it, then fits a permutation of the items and
// checks the decisions are the same.
func fitAndCheck(t *testing.T, seed uint64) {
	tok := newWordTok()
	req := randomRequest(seed, tok)
	orig := slices.Clone(req.Items)
	r, err := Fit(req)
	if !slices.Equal(orig, req.Items) {
		t.Fatalf("Fit changed its input items")
	}
	checkFit(t, req, r, err)

	perm := req
	perm.Items = slices.Clone(req.Items)
	rng := rand.New(rand.NewPCG(seed, 1))
	rng.Shuffle(len(perm.Items), func(i, j int) { perm.Items[i], perm.Items[j] = perm.Items[j], perm.Items[i] })
	if req.Render != nil {
		calls := 0
		perm.Render = wordRender(req.Frame, &calls)
	}
	r2, err2 := Fit(perm)
	checkFit(t, perm, r2, err2)
	if fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Fatalf("permuted input: err %v, want %v", err2, err)
	}
	// Same decisions: deferred identical (total order), kept identical as
	// sets, same totals.
	if fmt.Sprintf("%#v", r.Deferred) != fmt.Sprintf("%#v", r2.Deferred) || r.Used != r2.Used || r.FrameOnly != r2.FrameOnly || r.Overflowed != r2.Overflowed {
		t.Fatalf("permuted input: deferred %v used %d, want %v used %d", deferredIDs(r2), r2.Used, deferredIDs(r), r.Used)
	}
	byID := func(a, b Fitted) int { return strings.Compare(a.ID, b.ID) }
	k1, k2 := slices.Clone(r.Kept), slices.Clone(r2.Kept)
	slices.SortFunc(k1, byID)
	slices.SortFunc(k2, byID)
	if fmt.Sprintf("%#v", k1) != fmt.Sprintf("%#v", k2) {
		t.Fatalf("permuted input: kept %v, want %v", keptIDs(r2), keptIDs(r))
	}
}

// Properties over random item sets: never over the limit unless an error,
// pinned always survive, permuting the input changes nothing, and after
// put-back no deferred item would still fit in the room left.
func TestFitProperties(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { fitAndCheck(t, seed) })
	}
}

func FuzzFitProperties(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(fitAndCheck)
}
