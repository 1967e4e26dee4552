package budget

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lmpackFile is one file of the lmpack repository as its budget document
// describes it.
type lmpackFile struct {
	path   string
	tokens int
}

// lmpackRepo builds the worked example of lmpack-budget.txt: the lmpack
// repository (about 34k tokens) packed into 20,000 with the default priority
// src, lib, app, packages, (root), tests, test, docs. The sizes the document
// prints are used as printed; the others are chosen to agree with its text:
// 16 docs files (13 dropped from 1,236 down to 123, three of 48 to 76 that
// come back), 9 tests (the four largest dropped, five smaller kept), and 29
// sources and root files that all stay. The dropped files free 14,013
// tokens, as printed.
func lmpackRepo() (files []lmpackFile, frame int) {
	docs := []lmpackFile{
		{"docs/src/content/docs/index.mdx", 1236},
		{"docs/src/content/docs/reference/cli.md", 1175},
		{"docs/src/content/docs/reference/configuration.md", 892},
		{"docs/src/content/docs/guides/budget.md", 850},
		{"docs/src/content/docs/guides/categories.md", 780},
		{"docs/src/content/docs/guides/git-diff.md", 720},
		{"docs/src/content/docs/guides/formats.md", 650},
		{"docs/src/content/docs/guides/tokenizers.md", 600},
		{"docs/src/content/docs/getting-started.md", 540},
		{"docs/astro.config.mjs", 480},
		{"docs/README.md", 380},
		{"docs/src/styles/custom.css", 252},
		{"docs/package.json", 123},
		{"docs/tsconfig.json", 76},
		{"docs/src/env.d.ts", 61},
		{"docs/.gitignore", 48},
	}
	tests := []lmpackFile{
		{"tests/cli.test.ts", 1496},
		{"tests/select.test.ts", 1465},
		{"tests/budget.test.ts", 1302},
		{"tests/content.test.ts", 1072},
		{"tests/render.test.ts", 980},
		{"tests/config.test.ts", 870},
		{"tests/tree.test.ts", 640},
		{"tests/tokens.test.ts", 420},
		{"tests/helpers.ts", 310},
	}
	// 29 sources and root files, 16,345 tokens together.
	var rest []lmpackFile
	sum := 0
	for i := range 19 {
		f := lmpackFile{fmt.Sprintf("src/mod%02d.ts", i), 450 + 31*i}
		rest = append(rest, f)
		sum += f.tokens
	}
	for i := range 9 {
		f := lmpackFile{fmt.Sprintf("root-%d.json", i), 120 + 9*i}
		rest = append(rest, f)
		sum += f.tokens
	}
	rest = append(rest, lmpackFile{"README.md", 16345 - sum})
	files = slices.Concat(rest, tests, docs)
	return files, 150
}

// lmpackCategory is the top-level directory, or (root).
func lmpackCategory(path string) string {
	if dir, _, ok := strings.Cut(path, "/"); ok {
		return dir
	}
	return "(root)"
}

// The worked example of lmpack-budget.txt: docs go first, largest first;
// then the four largest tests; then put-back returns the three smallest docs
// files; all sources, the root files and five smaller tests stay.
func TestFitLmpackExample(t *testing.T) {
	files, frame := lmpackRepo()
	priority := []string{"src", "lib", "app", "packages", "(root)", "tests", "test", "docs"}
	var items []Item
	total := frame
	for _, f := range files {
		cat := lmpackCategory(f.path)
		rank := slices.Index(priority, cat) + 1
		if rank == 0 {
			t.Fatalf("%s: category %q not in the priority", f.path, cat)
		}
		items = append(items, Item{ID: f.path, Kind: cat, Tokens: f.tokens, Rank: rank})
		total += f.tokens
	}
	if len(items) != 54 || total < 33_500 || total > 34_500 {
		t.Fatalf("the repository has %d files, %d tokens; the document says 54 (37 + 17), about 34k", len(items), total)
	}
	r, err := Fit(Request{Items: items, Limit: 20_000, Frame: frame})
	if err != nil {
		t.Fatal(err)
	}
	// "Packed: 37 files ... Dropped by budget: 17 files, 14,013 tokens freed"
	freed := 0
	for _, d := range r.Deferred {
		freed += d.Tokens
	}
	if len(r.Kept) != 37 || len(r.Deferred) != 17 || freed != 14_013 {
		t.Errorf("kept %d, deferred %d freeing %d; want 37, 17, 14,013", len(r.Kept), len(r.Deferred), freed)
	}
	// The document reports 19,859 tokens: the rendered pack counted whole
	// (rule 6). Summing file sizes, this pack uses 19,900 of 20,000, and
	// the room left (100) is less than the smallest file still out (123).
	if r.Used != 19_900 || r.Used > r.Limit {
		t.Errorf("used %d of %d, want 19,900", r.Used, r.Limit)
	}
	// The dropped list as printed: docs largest first, then the tests.
	var want []string
	for _, f := range files {
		if lmpackCategory(f.path) == "docs" && f.tokens >= 123 {
			want = append(want, f.path)
		}
	}
	want = append(want, "tests/cli.test.ts", "tests/select.test.ts", "tests/budget.test.ts", "tests/content.test.ts")
	if got := deferredIDs(r); !slices.Equal(got, want) {
		t.Errorf("dropped\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, d := range r.Deferred[:3] {
		if wantTokens := []int{1236, 1175, 892}[i]; d.Tokens != wantTokens || d.Rule != RuleBudget {
			t.Errorf("dropped[%d] = %s %d (%s), want %d by rule budget", i, d.ID, d.Tokens, d.Rule, wantTokens)
		}
	}
	// The three smallest docs files came back (48 to 76 tokens each),
	// and everything else that stayed is sources, root files and five tests.
	byCat := map[string][]int{}
	for _, k := range r.Kept {
		byCat[k.Kind] = append(byCat[k.Kind], k.Tokens)
	}
	if got := byCat["docs"]; !slices.Equal(got, []int{76, 61, 48}) {
		t.Errorf("docs kept %v, want the three smallest [76 61 48]", got)
	}
	if got := byCat["tests"]; len(got) != 5 || slices.Max(got) >= 1072 {
		t.Errorf("tests kept %v, want five, all smaller than 1,072", got)
	}
	if got := len(byCat["src"]) + len(byCat["(root)"]); got != 29 {
		t.Errorf("sources and root files kept %d, want all 29", got)
	}
	if !slices.ContainsFunc(r.Diagnostics, func(s string) bool { return strings.HasPrefix(s, "put back 3 items (185 tokens)") }) {
		t.Errorf("diagnostics %q, want the three docs files put back (185 tokens)", r.Diagnostics)
	}
}

// symfonicItems are a system prompt, tools and memories in the shape of
// symfonic's overflow examples: instructions that must not be cut, a tool
// manifest that must not be half-kept, memory that can go.
func symfonicItems() []Item {
	return []Item{
		{ID: "system", Kind: "instructions", Tokens: 40, Rank: 1, Order: 0, Pinned: true},
		{ID: "tools", Kind: "tool-manifest", Tokens: 30, Rank: 2, Order: 1},
		{ID: "mem-1", Kind: "memory", Tokens: 20, Rank: 3, Order: 2},
		{ID: "mem-2", Kind: "memory", Tokens: 25, Rank: 3, Order: 3},
		{ID: "mem-3", Kind: "memory", Tokens: 15, Rank: 3, Order: 4},
	}
}

// The cases of symfonic-overflow.txt.
func TestFitSymfonic(t *testing.T) {
	tok := newWordTok()
	t.Run("all fit", func(t *testing.T) {
		items := symfonicItems()
		for _, a := range []Action{Drop, Truncate, Fail} {
			for i := range items {
				items[i].Action = a
			}
			r, err := Fit(Request{Items: items, Limit: 130, Counter: tok, ByOrder: true})
			if err != nil || r.Overflowed || len(r.Kept) != 5 || r.Used != 130 {
				t.Errorf("action %s: kept %v used %d err %v, want all 5, 130", a, keptIDs(r), r.Used, err)
			}
		}
	})
	t.Run("fail leaves nothing changed", func(t *testing.T) {
		items := symfonicItems()
		for i := range items {
			items[i].Action = Fail
		}
		r, err := Fit(Request{Items: items, Limit: 129, Counter: tok, ByOrder: true})
		var oe *OverflowError
		if !errors.As(err, &oe) || oe.Cause != CauseFail || oe.Needed != 130 || oe.Limit != 129 {
			t.Fatalf("err %v, want a fail overflow needing 130 of 129", err)
		}
		// What renders last goes first: mem-3 is the content that overflowed.
		if !slices.Equal(oe.IDs, []string{"mem-3"}) {
			t.Errorf("overflowed %v, want [mem-3]", oe.IDs)
		}
		if len(r.Kept) != 0 || len(r.Deferred) != 0 || r.Overflowed {
			t.Errorf("result %+v, want nothing truncated or dropped", r)
		}
	})
	t.Run("pinned alone over the limit", func(t *testing.T) {
		for _, a := range []Action{Drop, Truncate, Fail} {
			items := symfonicItems()
			for i := range items {
				items[i].Action = a
				items[i].Text = words(items[i].ID, items[i].Tokens)
			}
			_, err := Fit(Request{Items: items, Limit: 39, Counter: tok, ByOrder: true})
			var oe *OverflowError
			if !errors.As(err, &oe) || oe.Cause != CausePinned || !slices.Equal(oe.IDs, []string{"system"}) {
				t.Errorf("action %s: err %v, want pinned overflow of system", a, err)
			}
		}
	})
	t.Run("drop walks the reverse order", func(t *testing.T) {
		// 130 for 100 by order: mem-3 (15), mem-2 (25) go; 90 left, room
		// 10: nothing comes back.
		r, err := Fit(Request{Items: symfonicItems(), Limit: 100, ByOrder: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := deferredIDs(r); !slices.Equal(got, []string{"mem-3", "mem-2"}) {
			t.Errorf("deferred %v, want [mem-3 mem-2]", got)
		}
		if got := keptIDs(r); !slices.Equal(got, []string{"system", "tools", "mem-1"}) {
			t.Errorf("kept %v, want arrival order [system tools mem-1]", got)
		}
	})
	t.Run("survivors keep arrival order", func(t *testing.T) {
		items := symfonicItems()
		slices.Reverse(items)
		r, err := Fit(Request{Items: items, Limit: 100, ByOrder: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := keptIDs(r); !slices.Equal(got, []string{"mem-1", "tools", "system"}) {
			t.Errorf("kept %v, want the arrival order [mem-1 tools system]", got)
		}
		if got := deferredIDs(r); !slices.Equal(got, []string{"mem-3", "mem-2"}) {
			t.Errorf("deferred %v, want the same decisions [mem-3 mem-2]", got)
		}
	})
	t.Run("same input twice", func(t *testing.T) {
		items := symfonicItems()
		for i := range items {
			items[i].Action = Truncate
			items[i].MinTokens = 3
			items[i].Text = words(items[i].ID, items[i].Tokens)
		}
		req := Request{Items: items, Limit: 95, Counter: tok, ByOrder: true}
		a, errA := Fit(req)
		b, errB := Fit(req)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) {
			t.Errorf("two fits of the same input differ:\n%#v\n%#v", a, b)
		}
		// 130 for 95 by order: mem-3 (15), over by 35, more than itself:
		// dropped. mem-2 (25), over by 20, cut to 5 tokens would keep 1
		// word, below its minimum of 3: dropped. 90 fits, room 5, and
		// neither comes back cut to 5 for the same reason.
		if got := deferredIDs(a); !slices.Equal(got, []string{"mem-3", "mem-2"}) {
			t.Errorf("deferred %v, want [mem-3 mem-2]", got)
		}
	})
}
