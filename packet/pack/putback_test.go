package pack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// refFile is a file as the reference sees it: what it is called, its
// category and what it costs on its own.
type refFile struct {
	path, category string
	tokens         int
}

// refLmpack is a small reimplementation of lmpack's four rules, written
// from lmpack-budget.txt and nothing of this package but a cost oracle
// (what the whole pack with a set of files in counts):
//
//  1. categories from the end of priority, the categories missing from
//     it (one pool) before any listed one;
//  2. largest first within a category (then by path);
//  3. put back what still fits: walk the dropped files back from the most
//     important and restore each one that still fits;
//  4. re-count: while the whole is over, drop the next file in the order.
//
// It returns the dropped files in the order of rules 1 and 2.
func refLmpack(files []refFile, priority []string, limit int, cost func(kept map[string]bool) int) []string {
	rank := map[string]int{}
	for _, c := range priority {
		if _, ok := rank[c]; !ok {
			rank[c] = len(rank) + 1
		}
	}
	rankOf := func(c string) int {
		if r, ok := rank[c]; ok {
			return r
		}
		return len(rank) + 1 // the pool
	}
	order := slices.Clone(files)
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ra, rb := rankOf(a.category), rankOf(b.category); ra != rb {
			return ra > rb
		}
		if a.tokens != b.tokens {
			return a.tokens > b.tokens
		}
		return a.path < b.path
	})
	kept := map[string]bool{}
	for _, f := range files {
		kept[f.path] = true
	}
	var dropped []refFile
	for _, f := range order { // rules 1 and 2
		if cost(kept) <= limit {
			break
		}
		delete(kept, f.path)
		dropped = append(dropped, f)
	}
	for i := len(dropped) - 1; i >= 0; i-- { // rule 3
		kept[dropped[i].path] = true
		if cost(kept) > limit {
			delete(kept, dropped[i].path)
		}
	}
	for _, f := range order { // rule 4
		if cost(kept) <= limit {
			break
		}
		delete(kept, f.path)
	}
	var out []string
	for _, f := range order {
		if !kept[f.path] {
			out = append(out, f.path)
		}
	}
	return out
}

// packPrepared packs dir like Dir and also returns the items and an
// oracle: what the pack in its final notes style counts with kept in.
func packPrepared(t *testing.T, dir string, opts Options) (*Pack, []*fileItem, func(map[string]bool) int) {
	t.Helper()
	p, items, set, err := packPrepare(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := packFit(p, items, set.counter); err != nil {
		t.Fatal(err)
	}
	cost := func(kept map[string]bool) int {
		v := *p
		f := &fitter{p: &v, items: items, counter: set.counter}
		_, n := f.view(kept, true)
		return n
	}
	return p, items, cost
}

// packRandomTree writes a tree of n files in a few top-level directories
// (their categories) and at the top, 20 to 400 words each.
func packRandomTree(t *testing.T, rng *rand.Rand, n int) (string, []string) {
	root := t.TempDir()
	dirs := []string{"src", "lib", "docs", "tests", "alpha", "zeta", "mid"}
	files := map[string]string{}
	words := strings.Fields("budget file pack token drop keep order rank pool largest first put back count whole frame note tree")
	for i := range n {
		dir := dirs[rng.IntN(len(dirs))]
		p := fmt.Sprintf("%s/f%03d.txt", dir, i)
		switch rng.IntN(6) {
		case 0:
			p = fmt.Sprintf("top%03d.txt", i)
		case 1:
			p = fmt.Sprintf("%s/sub%d/f%03d.txt", dir, rng.IntN(3), i)
		}
		var b strings.Builder
		for range 20 + rng.IntN(380) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		files[p] = b.String() + "\n"
	}
	packWriteTree(t, root, files)
	return root, dirs
}

// TestPackPutBackMatchesReference packs random trees under random
// priorities (some categories left out, so they form the pool) and
// budgets, and checks the dropped files, and their order, against the
// reference reimplementation of lmpack's four rules. Packs whose notes
// were grouped or that hold only the frame are outside the reference.
func TestPackPutBackMatchesReference(t *testing.T) {
	c := packRealCounter(t)
	compared := 0
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 11))
		root, dirs := packRandomTree(t, rng, 15+rng.IntN(30))
		priority := []string{Root}
		for _, d := range dirs {
			if rng.IntN(3) > 0 {
				priority = append(priority, d)
			}
		}
		rng.Shuffle(len(priority), func(i, j int) { priority[i], priority[j] = priority[j], priority[i] })
		full := packMust(t, root, Options{Counter: c, Categories: []Category{}, Priority: priority})
		for _, share := range []int{30, 60, 85} {
			for _, format := range []string{"md", "xml", "json"} {
				limit := full.Tokens * share / 100
				opts := Options{Counter: c, Budget: limit, Format: format, Categories: []Category{}, Priority: priority}
				p, items, cost := packPrepared(t, root, opts)
				if p.GroupedNotes || p.FrameOnly {
					continue
				}
				var files []refFile
				for _, it := range items {
					files = append(files, refFile{it.Path, it.Category, it.Tokens})
				}
				want := refLmpack(files, priority, limit, cost)
				if got := packDeferredPaths(p.Deferred); !slices.Equal(got, want) {
					t.Errorf("seed %d, priority %q, budget %d (%s): dropped\n got %q\nwant %q", seed, priority, limit, format, got, want)
				}
				compared++
			}
		}
	}
	if compared < 35 {
		t.Errorf("only %d packs compared with the reference; want at least 35", compared)
	}
}

// packAssertNoneFits checks the put-back's promise on one pack: no
// dropped file fits back, by the real count of the whole pack with it in.
// With margin > 0 only the files costing at most margin more than the
// room are tried (a note costs far less than that, so the others cannot
// fit); 0 tries every one.
func packAssertNoneFits(t *testing.T, name string, p *Pack, cost func(map[string]bool) int, margin int) {
	t.Helper()
	kept := map[string]bool{}
	for _, f := range p.Files {
		kept[f.Path] = true
	}
	if n := cost(kept); n != p.Tokens || n > p.Budget {
		t.Errorf("%s: the pack counts %d (Tokens %d), budget %d", name, n, p.Tokens, p.Budget)
	}
	tried := 0
	for _, d := range p.Deferred {
		if margin > 0 && d.Tokens > p.Budget-p.Tokens+margin {
			continue
		}
		tried++
		kept[d.Path] = true
		if n := cost(kept); n <= p.Budget {
			t.Errorf("%s: %s (%d tokens) was dropped, but the pack with it counts %d of %d", name, d.Path, d.Tokens, n, p.Budget)
		}
		delete(kept, d.Path)
	}
	if len(p.Deferred) > 0 && tried == 0 {
		t.Errorf("%s: no dropped file was tried", name)
	}
}

// TestPackNoDroppedFileFits packs the lmpack fixture and this repository
// under several budgets, in every format, with the default categories:
// whatever was dropped does not fit back.
func TestPackNoDroppedFileFits(t *testing.T) {
	c := packRealCounter(t)
	cases := []struct {
		dir     string
		budget  int
		formats []string
		margin  int
	}{
		{packLmpackDir, 2000, []string{"md", "xml", "json"}, 0},
		{packLmpackDir, 9000, []string{"json"}, 0},
		{packLmpackDir, 30000, []string{"md"}, 0},
		{packSmallDir, 200, []string{"md", "xml", "json"}, 0},
		{packSmallDir, 450, []string{"md", "xml", "json"}, 0},
		// This repository: hundreds of dropped files, so only those near
		// the room are tried.
		{"../..", 20000, []string{"md"}, 120},
	}
	for _, tc := range cases {
		for _, format := range tc.formats {
			name := fmt.Sprintf("%s at %d (%s)", tc.dir, tc.budget, format)
			p, _, cost := packPrepared(t, tc.dir, Options{Counter: c, Budget: tc.budget, Format: format})
			if p.FrameOnly {
				continue
			}
			packAssertNoneFits(t, name, p, cost, tc.margin)
		}
	}
}

// TestPackRepository20k packs this repository at 20k with the default
// categories. The sources hold over ten times the budget, so what stays
// is the front doors, the top first (srcLevel): lore.go (the project's
// file) and doc.go of the root package, and the package docs of packet/,
// store/ and budget/. A test, fixture, doc or lock file is kept only if it
// is smaller than every dropped source file (it came back by the
// put-back, after no source fitted any more), and no source behind a
// front door is kept unless it is smaller than every dropped front door.
func TestPackRepository20k(t *testing.T) {
	p := packMust(t, "../..", Options{Counter: packRealCounter(t), Budget: 20000})
	if p.Tokens > 20000 || p.ExitCode() != 2 {
		t.Fatalf("tokens %d, exit %d; want within 20,000 and exit 2", p.Tokens, p.ExitCode())
	}
	project := projectNames("../..")
	smallestSource, smallestDoor := 1<<30, 1<<30
	for _, d := range p.Deferred {
		if d.Category == "src" {
			smallestSource = min(smallestSource, d.Tokens)
			if isFrontDoor(d.Path, project) {
				smallestDoor = min(smallestDoor, d.Tokens)
			}
		}
	}
	kept := map[string]bool{}
	for _, f := range p.Files {
		kept[f.Path] = true
		switch {
		case f.Category == "src" && !isFrontDoor(f.Path, project):
			if f.Tokens >= smallestDoor {
				t.Errorf("%s (%d tokens, behind a front door) was kept while a front door of %d tokens was dropped", f.Path, f.Tokens, smallestDoor)
			}
		case f.Category == "tests" || f.Category == "fixtures" || f.Category == "docs" || f.Category == "lock":
			if f.Tokens >= smallestSource {
				t.Errorf("%s (%s, %d tokens) was kept while a source of %d tokens was dropped", f.Path, f.Category, f.Tokens, smallestSource)
			}
		}
	}
	// The main front doors stay. Front doors go last, the deepest first
	// and the largest first among equally deep ones, so as the repository
	// grows by a package, one the budget cannot hold gives way only as the
	// largest door of its depth or deeper: at 20k, since server/, facts/
	// and web/ came, packet/doc.go (3,009 tokens) is that one.
	depth := func(path string) int { return strings.Count(path, "/") }
	for _, want := range []string{"lore.go", "doc.go", "packet/doc.go", "store/doc.go", "budget/doc.go"} {
		if kept[want] {
			continue
		}
		i := slices.IndexFunc(p.Deferred, func(d Deferred) bool { return d.Path == want })
		if i < 0 {
			t.Fatalf("%s is neither kept nor deferred", want)
		}
		for _, f := range p.Files {
			if f.Category == "src" && isFrontDoor(f.Path, project) && depth(f.Path) >= depth(want) && f.Tokens > p.Deferred[i].Tokens {
				t.Errorf("%s (%d tokens) was dropped while %s, a larger front door as deep or deeper (%d tokens), was kept\n%s",
					want, p.Deferred[i].Tokens, f.Path, f.Tokens, p.ReportFull())
			}
		}
	}
}
