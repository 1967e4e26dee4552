package budget

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Grow: a large item that does not fit blocks nothing after it at the
// steps, and a late item joins only the prefix.
func TestFitGrowFillsPastALargeItem(t *testing.T) {
	items := []Item{
		{ID: "big", Rank: 1, Tokens: 300},
		{ID: "b", Rank: 2, Tokens: 40},
		{ID: "c", Rank: 3, Tokens: 50},
		{ID: "late", Rank: 4, Tokens: 10, Late: true},
	}
	checkGrowKeeps(t, items, []growCase{
		{100, nil},                      // below the first step only the prefix runs, and big ends it
		{GrowFirst, []string{"b", "c"}}, // first fit at the first step: b and c past big
		{GrowFirst + 100, []string{"b", "c"}},
		{390, []string{"big", "b", "c"}}, // big in the prefix; late then over
		{400, []string{"big", "b", "c", "late"}},
	})
	// Below the first step, b and c fit the room the prefix left behind
	// big: they are held back, not over budget.
	res, err := Fit(Request{Items: items, Limit: 100, Grow: true})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, d := range res.Deferred {
		rules[d.ID] = d.Rule
	}
	want := map[string]string{"big": RuleBudget, "b": RuleHeldBack, "c": RuleHeldBack, "late": RuleHeldBack}
	if !maps.Equal(rules, want) {
		t.Errorf("limit 100: deferred by %v, want %v", rules, want)
	}
	// Without Grow, the prefix stops at the large item.
	res, err = Fit(Request{Items: items, Limit: 100, Prefix: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := keptIDs(res); len(got) != 0 {
		t.Errorf("prefix at 100: kept %v, want nothing", got)
	}
}

// TestFitGrowMonotone: on random items (some pinned, some late, a late
// one given only from a limit on and less important than those given
// before it, as a deeper search brings more hits; some with a rest that
// extends them, as an excerpt's does),
// every item kept at a limit is kept at every larger limit, and nothing
// kept is over the limit.
func TestFitGrowMonotone(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + r.IntN(30)
		all := make([]Item, n)
		from := make([]int, n) // the limit from which a late item is given
		for i := range all {
			all[i] = Item{ID: fmt.Sprintf("i%02d", i), Rank: 1 + r.IntN(6), Score: float64(r.IntN(5)),
				Tokens: 1 + r.IntN(300), Late: r.IntN(4) == 0, Pinned: r.IntN(15) == 0}
			if all[i].Late && !all[i].Pinned {
				from[i] = 1 + r.IntN(2999)
			}
		}
		// A deeper search brings hits less important than the hits it had
		// (a late item given from a larger limit scores lower), though
		// of a rank above some items that are not late.
		for i := range all {
			if from[i] > 0 {
				all[i].Rank, all[i].Score = 3, -float64(from[i])
			}
		}
		// Some items shown by an excerpt have a rest (Extends), the lead
		// among them at times: late, given at every limit.
		for i := range n {
			if it := all[i]; !it.Late && !it.Pinned && r.IntN(3) == 0 {
				all = append(all, Item{ID: it.ID + "+", Rank: it.Rank, Score: it.Score - 0.5, Tokens: 1 + r.IntN(400), Late: true, Extends: it.ID})
				from = append(from, 0)
			}
		}
		frame := r.IntN(50)
		var prev []string
		for limit := 0; limit < 4000; limit += 1 + r.IntN(40) {
			var items []Item
			for i, it := range all {
				if limit >= from[i] {
					items = append(items, it)
				}
			}
			res, err := Fit(Request{Items: items, Limit: limit, Frame: frame, Grow: true})
			if err != nil {
				prev = nil // pinned items over the limit: refused
				continue
			}
			got := keptIDs(res)
			for _, id := range prev {
				if !slices.Contains(got, id) {
					t.Fatalf("seed %d: %s kept at a smaller limit, not at %d (%v, then %v)", seed, id, limit, prev, got)
				}
			}
			if res.Used > limit && !res.FrameOnly {
				t.Fatalf("seed %d limit %d: used %d", seed, limit, res.Used)
			}
			// An item out that fits the room left is held back, and
			// one held back fits it (a rest keeps its rule: holdBack).
			for _, d := range res.Deferred {
				if strings.HasSuffix(d.ID, "+") {
					continue
				}
				if fitsRoom := d.Tokens <= limit-res.Used; fitsRoom != (d.Rule == RuleHeldBack) && !res.FrameOnly {
					t.Fatalf("seed %d limit %d: %s of %d tokens deferred by rule %q with %d tokens left", seed, limit, d.ID, d.Tokens, d.Rule, limit-res.Used)
				}
			}
			prev = got
		}
	}
}

// Grow: an item whose action is Fail that the fill leaves out fails the
// fit, as it does when the walk meets it. Here the walk stops once it has
// deferred c, but the fill lets the small b and c in at its first step,
// and f no longer fits after them.
func TestFitGrowFailItemLeftOutFails(t *testing.T) {
	items := []Item{
		{ID: "a", Rank: 1, Tokens: 120},
		{ID: "f", Rank: 2, Tokens: 150, Action: Fail},
		{ID: "b", Rank: 3, Tokens: 20},
		{ID: "c", Rank: 4, Tokens: 50},
	}
	_, err := Fit(Request{Items: items, Limit: 300, Grow: true})
	var oe *OverflowError
	if !errors.As(err, &oe) || oe.Cause != CauseFail || !slices.Equal(oe.IDs, []string{"f"}) {
		t.Fatalf("grow leaving out the fail item f: %v; want a fail error naming f", err)
	}
	// Where the fill holds it, the fit stands.
	res, err := Fit(Request{Items: items, Limit: 340, Grow: true})
	if err != nil || !slices.Contains(keptIDs(res), "f") {
		t.Fatalf("limit 340: kept %v, %v; want f kept", keptIDs(res), err)
	}
}

// An item that extends another (Item.Extends) is kept only beside it, by
// a growing fill and by the re-count after it (which takes out first
// what was let in last); without a re-count, a larger limit keeps every
// item a smaller one does, extensions included.
func TestFitGrowExtends(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 13))
		var items []Item
		for i := range 2 + r.IntN(20) {
			base := Item{ID: fmt.Sprintf("r%d", i), Rank: 1 + r.IntN(3), Score: r.Float64(), Tokens: 10 + r.IntN(150)}
			items = append(items, base)
			if r.IntN(2) == 0 {
				items = append(items, Item{ID: base.ID + "+", Rank: base.Rank, Score: base.Score - 1, Tokens: 5 + r.IntN(300),
					Late: r.IntN(2) == 0, Extends: base.ID})
			}
		}
		var prev []string
		for limit := 0; limit <= 3000; limit += 1 + r.IntN(120) {
			res, err := Fit(Request{Items: items, Limit: limit, Grow: true})
			if err != nil {
				t.Fatal(err)
			}
			got := keptIDs(res)
			checkExtended(t, fmt.Sprintf("seed %d limit %d", seed, limit), res, got)
			for _, id := range prev {
				if !slices.Contains(got, id) {
					t.Fatalf("seed %d: %s kept below limit %d but not at it: %v then %v", seed, id, limit, prev, got)
				}
			}
			prev = got
			// The rendered whole counts a random overage more than the
			// items' sum.
			over := r.IntN(60)
			res, err = Fit(Request{Items: items, Limit: limit, Grow: true, Counter: sumCounter{},
				Render: func(kept []Fitted) string {
					total := over
					for _, k := range kept {
						total += k.Tokens
					}
					return strconv.Itoa(total)
				}})
			if err != nil {
				t.Fatal(err)
			}
			checkExtended(t, fmt.Sprintf("seed %d limit %d, re-counted", seed, limit), res, keptIDs(res))
		}
	}
}

// checkExtended fails when res keeps an item without the one it extends.
func checkExtended(t *testing.T, label string, res Result, kept []string) {
	t.Helper()
	for _, k := range res.Kept {
		if k.Extends != "" && !slices.Contains(kept, k.Extends) {
			t.Fatalf("%s: %s kept without %s: %v", label, k.ID, k.Extends, kept)
		}
	}
}

// sumCounter counts a render that is a number as that many tokens.
type sumCounter struct{}

func (sumCounter) Count(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
func (sumCounter) Name() string { return "sum" }

// Extends is refused where Fit cannot honour it.
func TestFitExtendsInvalid(t *testing.T) {
	for _, c := range []struct {
		name string
		req  Request
	}{
		{"without Grow", Request{Items: []Item{{ID: "a", Tokens: 1}, {ID: "a+", Tokens: 1, Extends: "a"}}, Limit: 10}},
		{"unknown item", Request{Items: []Item{{ID: "a", Tokens: 1}, {ID: "a+", Tokens: 1, Extends: "b"}}, Limit: 10, Grow: true}},
		{"itself", Request{Items: []Item{{ID: "a", Tokens: 1, Extends: "a"}}, Limit: 10, Grow: true}},
		{"a chain", Request{Items: []Item{{ID: "a", Tokens: 1}, {ID: "a+", Tokens: 1, Extends: "a"}, {ID: "a++", Tokens: 1, Extends: "a+"}}, Limit: 10, Grow: true}},
	} {
		if _, err := Fit(c.req); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", c.name, err)
		}
	}
}

// From GrowFuller on, a step lets in the rest of an item (Extends) that
// costs no more than the item by first fit, late as it is: here d's rest
// comes in beside d at the step of 1,596 tokens, past c's, which does
// not fit there. Below GrowFuller a rest joins only the last prefix,
// which ends at the first rest that does not fit. (The lead, a, and the
// two items after it, b and b2, have no rest here: see
// TestFitGrowLeadRestFirst and
// TestFitGrowNextRestFirstWhereRoomIsLargeShare; c's would come first
// only from GrowMore.)
func TestFitGrowFullerRests(t *testing.T) {
	items := []Item{
		{ID: "a", Rank: 1, Score: 3, Tokens: 300},
		{ID: "b", Rank: 1, Score: 2.5, Tokens: 300},
		{ID: "b2", Rank: 1, Score: 2.2, Tokens: 300},
		{ID: "c", Rank: 1, Score: 2, Tokens: 300},
		{ID: "c+", Rank: 1, Score: 1.9, Tokens: 290, Late: true, Extends: "c"},
		{ID: "d", Rank: 1, Score: 1, Tokens: 300},
		{ID: "d+", Rank: 1, Score: 0.9, Tokens: 50, Late: true, Extends: "d"},
	}
	checkGrowKeeps(t, items, []growCase{
		{1300, []string{"a", "b", "b2", "c"}},
		{1550, []string{"a", "b", "b2", "c", "d"}},             // the step of 1,596 is past the limit: the prefix ends at c+
		{1600, []string{"a", "b", "b2", "c", "d", "d+"}},       // d+ at the step of 1,596, past c+
		{1840, []string{"a", "b", "b2", "c", "c+", "d", "d+"}}, // all
	})
}

// From the step that reaches GrowLead, the rest of the lead (the most
// important item) is the first item out: a limit short of the next step
// takes it in its prefix before the items after the lead, and the fill
// stays monotone.
func TestFitGrowLeadRestFirst(t *testing.T) {
	items := []Item{
		{ID: "a", Rank: 1, Score: 3, Tokens: 200},
		{ID: "a+", Rank: 1, Score: 2.9, Tokens: 300, Late: true, Extends: "a"},
		{ID: "b", Rank: 1, Score: 2, Tokens: 200},
		{ID: "c", Rank: 1, Score: 1, Tokens: 200},
		{ID: "d", Rank: 1, Score: 0.5, Tokens: 200},
		{ID: "e", Rank: 1, Score: 0.4, Tokens: 200},
	}
	checkGrowKeeps(t, items, []growCase{
		{300, []string{"a"}},
		{700, []string{"a", "b", "c"}},             // the steps of 256, 496 and 696
		{900, []string{"a", "a+", "b", "c"}},       // the next step would be 896, past 768: a+ leads the prefix (it was d)
		{1100, []string{"a", "a+", "b", "c", "d"}}, // a+ at the step of 1,024, then d in the prefix
		{1400, []string{"a", "a+", "b", "c", "d", "e"}},
	})
	var before []string
	for limit := 100; limit <= 1400; limit += 10 {
		res, err := Fit(Request{Items: items, Limit: limit, Grow: true})
		if err != nil {
			t.Fatal(err)
		}
		got := keptIDs(res)
		for _, id := range before {
			if !slices.Contains(got, id) {
				t.Errorf("limit %d lacks %s, which %d tokens less kept", limit, id, 10)
			}
		}
		before = got
	}
}

// growCase is a limit and the items a growing fill keeps at it.
type growCase struct {
	limit int
	want  []string
}

// checkGrowKeeps fails for each case whose growing fill of items does
// not keep exactly its want, in order.
func checkGrowKeeps(t *testing.T, items []Item, cases []growCase) {
	t.Helper()
	for _, tc := range cases {
		res, err := Fit(Request{Items: items, Limit: tc.limit, Grow: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := keptIDs(res); !slices.Equal(got, tc.want) {
			t.Errorf("limit %d: kept %v, want %v", tc.limit, got, tc.want)
		}
	}
}

// The lead's rest moves to the front of the items out only once the lead
// is in: moved before it, a prefix passed over the rest (its item out)
// and went on to take i06+, which a larger limit, with the lead and its
// rest in, had no room for (a case TestFitGrowMonotone found).
func TestFitGrowLeadRestAfterLead(t *testing.T) {
	items := []Item{
		{ID: "i00", Rank: 5, Score: 0, Tokens: 173, Pinned: true},
		{ID: "i02", Rank: 5, Score: 2, Tokens: 126},
		{ID: "i03", Rank: 3, Score: 3, Tokens: 300},
		{ID: "i04", Rank: 6, Score: 3, Tokens: 39},
		{ID: "i06", Rank: 4, Score: 2, Tokens: 128},
		{ID: "i08", Rank: 6, Score: 3, Tokens: 55, Pinned: true},
		{ID: "i09", Rank: 5, Score: 0, Tokens: 92},
		{ID: "i02+", Rank: 5, Score: 1.5, Tokens: 196, Late: true, Extends: "i02"},
		{ID: "i03+", Rank: 3, Score: 2.5, Tokens: 236, Late: true, Extends: "i03"},
		{ID: "i06+", Rank: 4, Score: 1.5, Tokens: 190, Late: true, Extends: "i06"},
		{ID: "i09+", Rank: 5, Score: -0.5, Tokens: 193, Late: true, Extends: "i09"},
	}
	var before []string
	for limit := 900; limit <= 1600; limit++ {
		res, err := Fit(Request{Items: items, Limit: limit, Frame: 44, Grow: true})
		if err != nil {
			t.Fatal(err)
		}
		got := keptIDs(res)
		for _, id := range before {
			if !slices.Contains(got, id) {
				t.Fatalf("limit %d keeps %v, without %s, which limit %d kept", limit, got, id, limit-1)
			}
		}
		before = got
	}
}

// Where the first search's items, whole, are at most GrowShare times a
// step, the rests of the two items after the lead come first from
// GrowFuller, as the lead's does from GrowLead: here b+ and c+ come in
// before e at 1,300 tokens. With many more items (a long chat's pool),
// the same limit takes the next items instead and b+ and c+ wait behind
// every item that is not late.
func TestFitGrowNextRestFirstWhereRoomIsLargeShare(t *testing.T) {
	items := []Item{
		{ID: "a", Rank: 1, Score: 10, Tokens: 200},
		{ID: "a+", Rank: 1, Score: 0.9, Tokens: 100, Late: true, Extends: "a"},
		{ID: "b", Rank: 1, Score: 9, Tokens: 200},
		{ID: "b+", Rank: 1, Score: 0.8, Tokens: 150, Late: true, Extends: "b"},
		{ID: "c", Rank: 1, Score: 8, Tokens: 200},
		{ID: "c+", Rank: 1, Score: 0.7, Tokens: 150, Late: true, Extends: "c"},
		{ID: "d", Rank: 1, Score: 7, Tokens: 200},
		{ID: "e", Rank: 1, Score: 6, Tokens: 200},
		{ID: "f", Rank: 1, Score: 5, Tokens: 200},
	}
	checkGrowKeeps(t, items, []growCase{
		{1300, []string{"a", "a+", "b", "b+", "c", "c+", "d"}},
	})
	many := slices.Clone(items)
	for k := range 20 {
		many = append(many, Item{ID: fmt.Sprintf("z%02d", k), Rank: 1, Score: 4 - float64(k)/10, Tokens: 200})
	}
	checkGrowKeeps(t, many, []growCase{
		{1300, []string{"a", "a+", "b", "c", "d", "e", "f"}},
	})
}
