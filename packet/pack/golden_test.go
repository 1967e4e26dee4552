package pack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/internal/numfmt"
)

const packSmallDir = "../../testdata/pack/small"

// TestPackGolden compares whole packs of testdata/pack/small with the
// golden files beside it, in every format, without a budget and under one
// that drops files. Refresh with -update-pack.
func TestPackGolden(t *testing.T) {
	c := packRealCounter(t)
	if *packUpdate {
		if err := os.RemoveAll(packSmallDir); err != nil {
			t.Fatal(err)
		}
		packWriteTree(t, packSmallDir, packSmallFiles)
	}
	for _, limit := range []int{0, 330} {
		for _, format := range []string{"md", "xml", "json"} {
			name := fmt.Sprintf("small-%d.%s", limit, format)
			t.Run(name, func(t *testing.T) {
				p := packMust(t, packSmallDir, Options{Counter: c, Budget: limit, Format: format})
				out, err := p.Render("")
				if err != nil {
					t.Fatal(err)
				}
				got := string(out) + "\n<!-- report -->\n" + p.Report() + fmt.Sprintf("<!-- exit %d -->\n", p.ExitCode())
				path := filepath.Join("..", "..", "testdata", "pack", name+".golden")
				if *packUpdate {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (refresh with -update-pack)", err)
				}
				if got != string(want) {
					t.Errorf("pack differs from %s (refresh with -update-pack if intended):\n%s", path, got)
				}
				if strings.Contains(got, "ignored\n") {
					t.Errorf("scratch.tmp is ignored by .gitignore but was packed")
				}
				if limit > 0 && (p.ExitCode() != 2 || p.Tokens > limit) {
					t.Errorf("budget %d: exit %d, tokens %d", limit, p.ExitCode(), p.Tokens)
				}
			})
		}
	}
}

// TestPackGroupedNotes packs many small files under a budget where one
// note a file would crowd files out: the notes come one a directory, the
// report still lists every file, and the pack still fits.
func TestPackGroupedNotes(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"src/main.go": "package main\n\nfunc main() {}\n"}
	for i := range 60 {
		files[fmt.Sprintf("docs/part%d/page%02d.md", i%3, i)] = strings.Repeat(fmt.Sprintf("Page %d of the manual. ", i), 20) + "\n"
	}
	packWriteTree(t, root, files)
	c := packRealCounter(t)
	p := packMust(t, root, Options{Counter: c, Budget: 600})
	if !p.GroupedNotes || p.Tokens > 600 || p.ExitCode() != 2 {
		t.Fatalf("grouped %v, tokens %d, exit %d; want grouped notes within 600, exit 2\n%s", p.GroupedNotes, p.Tokens, p.ExitCode(), p.Report())
	}
	out, _ := p.Render("")
	s := string(out)
	for _, dir := range []string{"docs/part0/", "docs/part1/", "docs/part2/"} {
		if !strings.Contains(s, "- `"+dir+"`: ") {
			t.Errorf("no grouped note for %s in\n%s", dir, s[strings.Index(s, "## Deferred"):])
		}
	}
	if !strings.Contains(s, "> Warning: the deferral notes are grouped by directory") || c.Count(s) != p.Tokens {
		t.Errorf("the pack must carry the grouping warning and count %d tokens (counts %d)", p.Tokens, c.Count(s))
	}
	if strings.Contains(s, "page00.md`: ") {
		t.Errorf("a per-file note in grouped mode")
	}
	if !strings.Contains(s, "## File: src/main.go") {
		t.Errorf("src/main.go should be packed")
	}
	if n := strings.Count(p.ReportFull(), "(category docs)"); n != len(p.Deferred) || n < 50 {
		t.Errorf("the full report lists %d deferred docs, want every one of %d", n, len(p.Deferred))
	}
	// More than ReportListMax dropped: the report sums them up by
	// category, one line for all the docs.
	freed := 0
	for _, d := range p.Deferred {
		freed += d.Tokens
	}
	sum := fmt.Sprintf("Dropped by budget: %d files, %s tokens freed, by category (--report full lists each file):\n  %s  %d files  (category docs)\n",
		len(p.Deferred), numfmt.Thousands(freed), numfmt.Thousands(freed), len(p.Deferred))
	if r := p.Report(); !strings.Contains(r, sum) || strings.Count(r, "\n") != 4 {
		t.Errorf("report:\n%s\nwant it to hold:\n%s", r, sum)
	}
	// With room to spare, one note a file again.
	q := packMust(t, root, Options{Counter: c, Budget: 5000})
	if q.GroupedNotes || len(q.Deferred) == 0 || q.Tokens > 5000 {
		t.Errorf("budget 5,000: tokens %d, grouped %v, deferred %d; want per-file notes", q.Tokens, q.GroupedNotes, len(q.Deferred))
	}
}

// ExampleDir packs a small project under a budget and prints the
// report that `lore pack` writes on stderr.
func ExampleDir() {
	p, err := Dir(context.Background(), "../../testdata/pack/small", Options{Budget: 330})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(p.Report())
	fmt.Println("exit code:", p.ExitCode())
	// Output:
	// Packed: 4 files, 329 tokens (99% of budget 330)
	// Dropped by budget: 3 files, 268 tokens freed:
	//   202  docs/intro.md  (category docs)
	//    38  README.md  (category docs)
	//    28  docs/guide.md  (category docs)
	// Listed, not packed: 1 file:
	//   logo.bin  (binary, 3 bytes)
	// exit code: 2
}
