package pack

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/numfmt"
)

// packWordCounter counts one token a word, so logic tests can be read by
// eye. It is not exact for anything; the real tokenizer tests below are.
type packWordCounter struct{}

func (packWordCounter) Name() string          { return "words" }
func (packWordCounter) Count(text string) int { return len(strings.Fields(text)) }

var (
	packCounterOnce sync.Once
	packCounterVal  budget.Counter
	packCounterErr  error
)

// packRealCounter is the real o200k_base counter, loaded once.
func packRealCounter(t testing.TB) budget.Counter {
	t.Helper()
	packCounterOnce.Do(func() { packCounterVal, packCounterErr = budget.NewCounter("o200k_base") })
	if packCounterErr != nil {
		t.Fatalf("budget.NewCounter(o200k_base): %v", packCounterErr)
	}
	return packCounterVal
}

// packWriteTree writes files (slash paths) under root.
func packWriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func packPaths(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

func packDeferredPaths(ds []Deferred) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Path)
	}
	return out
}

func packMust(t testing.TB, dir string, opts Options) *Pack {
	t.Helper()
	p, err := Dir(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Dir(%q, %+v): %v", dir, opts, err)
	}
	return p
}

func TestPackCategoriesAndRanks(t *testing.T) {
	tests := []struct {
		path string
		cats []Category
		want string
	}{
		{"README.md", []Category{}, Root},
		{"src/a/b.ts", []Category{}, "src"},
		{"README.md", nil, "docs"}, // nil: DefaultCategories
		{"cmd/tool/main.go", nil, "src"},
		{"lib/x.rs", nil, "src"},
		{"store/bolt_test.go", nil, "tests"},
		{"pkg/test_api.py", nil, "tests"},
		{"pkg/api_test.py", nil, "tests"},
		{"web/app.test.tsx", nil, "tests"},
		{"web/app.spec.js", nil, "tests"},
		{"spec/user_spec.rb", nil, "tests"},
		{"tests/helpers.py", nil, "tests"},
		{"src/test/java/AppTest.java", nil, "test"},
		{"store/testdata/fuzz/FuzzX/abc", nil, "fixtures"},
		{"store/testdata/x_test.go", nil, "fixtures"},
		{"fixtures/a.json", nil, "fixtures"},
		{"fuzz/corpus/seed1", nil, "fixtures"},
		{"docs/conf.py", nil, "docs"},
		{"docs/guide/index.mdx", nil, "docs"},
		{"go.sum", nil, "lock"},
		{"web/package-lock.json", nil, "lock"},
		{"Cargo.lock", nil, "lock"},
		{"vendor/x/y.go", nil, "vendor"},
		{"go.mod", nil, Root},
		{".ci/run", nil, ".ci"},
		{"src/a.test.ts", []Category{{"*.test.ts", "tests"}}, "tests"},
		{"src/a.test.ts", []Category{{"src/", "code"}, {"*.test.ts", "tests"}}, "code"}, // first match wins
		{"docs/x/y.md", []Category{{"docs", "manual"}}, "manual"},                       // a dir pattern covers what is inside
		{"pkg/docs/y.md", []Category{{"/docs", "manual"}}, "pkg"},                       // anchored: only the top docs
		{"a/b/c.go", []Category{{"a/**/*.go", "go"}}, "go"},
	}
	for _, tt := range tests {
		set, err := Options{Categories: tt.cats}.settle()
		if err != nil {
			t.Fatalf("compile %+v: %v", tt.cats, err)
		}
		if got := packCategory(set.cats, tt.path); got != tt.want {
			t.Errorf("category of %q with %+v = %q, want %q", tt.path, tt.cats, got, tt.want)
		}
	}

	items := []*fileItem{
		{File: File{Path: "a", Category: "src"}},
		{File: File{Path: "b", Category: "docs"}},
		{File: File{Path: "c", Category: "zeta"}},
		{File: File{Path: "d", Category: "alpha"}},
		{File: File{Path: "e", Category: Root}},
	}
	packRank(items, []string{"src", Root, "docs"})
	got := map[string]int{}
	for _, it := range items {
		got[it.Category] = it.rank
	}
	// alpha and zeta are not listed: one pool, after every listed one.
	want := map[string]int{"src": 1, Root: 2, "docs": 3, "alpha": 4, "zeta": 4}
	for c, r := range want {
		if got[c] != r {
			t.Errorf("rank of %q = %d, want %d (all: %v)", c, got[c], r, got)
		}
	}
}

// TestPackDropOrder checks the lmpack order with a word counter: the
// unlisted categories first, as one pool, largest first; then listed ones
// from the end of priority, largest first within each; then put-back.
func TestPackDropOrder(t *testing.T) {
	root := t.TempDir()
	w := func(n int) string { return strings.Repeat("w ", n) }
	packWriteTree(t, root, map[string]string{
		"src/main.go":   w(300),
		"README.md":     w(100),
		"docs/big.md":   w(200),
		"docs/small.md": w(10),
		"tests/a_test":  w(300),
		"tests/b_test":  w(90),
		"vendor/lib.go": w(160),
		"aux/run.sh":    w(180),
	})
	opts := Options{Counter: packWordCounter{}, Categories: []Category{}, Priority: []string{"src", Root, "tests", "docs"}}
	all := packMust(t, root, opts)
	if all.ExitCode() != 0 || len(all.Deferred) != 0 {
		t.Fatalf("no budget: exit %d, deferred %v", all.ExitCode(), packDeferredPaths(all.Deferred))
	}
	// 700 words over (about 750 with the notes): the pool of aux and
	// vendor (unlisted), largest first whatever the name (aux 187, then
	// vendor 167), all docs (224) are not enough, tests/a (307) is; then
	// docs/small (17) fits again, docs/big does not.
	opts.Budget = all.Tokens - 700
	p := packMust(t, root, opts)
	want := []string{"aux/run.sh", "vendor/lib.go", "docs/big.md", "tests/a_test"}
	if got := packDeferredPaths(p.Deferred); !slices.Equal(got, want) {
		t.Errorf("budget %d: deferred %q, want %q\nreport:\n%s", opts.Budget, got, want, p.Report())
	}
	if !slices.Contains(packPaths(p.Files), "docs/small.md") {
		t.Errorf("docs/small.md was not put back: kept %q", packPaths(p.Files))
	}
	if p.Tokens > opts.Budget {
		t.Errorf("pack counts %d tokens, over budget %d", p.Tokens, opts.Budget)
	}
	if p.ExitCode() != 2 {
		t.Errorf("ExitCode = %d, want 2", p.ExitCode())
	}
}

// TestPackFrameOnly: below the frame every file is dropped and the pack
// is cut to what the budget holds: at 90 tokens its title and the
// warning, at 5 less; the report warns either way.
func TestPackFrameOnly(t *testing.T) {
	root := t.TempDir()
	packWriteTree(t, root, map[string]string{"a.go": "package a // alpha\n", "b/c.go": "package c // gamma\n"})
	c := packRealCounter(t)
	for _, format := range []string{"md", "xml", "json"} {
		for _, b := range []int{5, 90} {
			p := packMust(t, root, Options{Counter: c, Budget: b, Format: format})
			if !p.FrameOnly || len(p.Files) != 0 || len(p.Deferred) != 2 || p.ExitCode() != 2 {
				t.Errorf("%s %d: frame only = %v, files %d, deferred %d, exit %d; want true, 0, 2, 2",
					format, b, p.FrameOnly, len(p.Files), len(p.Deferred), p.ExitCode())
			}
			out, _ := p.Render("")
			if n := c.Count(string(out)); n > b || strings.Contains(string(out), "alpha") {
				t.Errorf("%s %d: a pack below the frame holds no file and no more than its budget; %d tokens:\n%s", format, b, n, out)
			}
			if inBand := strings.Contains(string(out), "below the frame"); inBand != (b == 90) {
				t.Errorf("%s %d: the warning in the pack = %v, want %v:\n%s", format, b, inBand, b == 90, out)
			}
			rep := p.Report()
			if !strings.Contains(rep, fmt.Sprintf("Warning: budget %d is below the frame of the pack (", b)) || !strings.Contains(rep, "Dropped by budget: 2 files") {
				t.Errorf("%s %d: report:\n%s", format, b, rep)
			}
		}
	}
}

func TestPackErrors(t *testing.T) {
	root := t.TempDir()
	packWriteTree(t, root, map[string]string{"a.txt": "a\n"})
	file := filepath.Join(root, "a.txt")
	tests := []struct {
		name  string
		dir   string
		opts  Options
		want  error
		quote string
	}{
		{"negative budget", root, Options{Budget: -5}, ErrInvalid, "-5"},
		{"bad format", root, Options{Format: "yaml"}, ErrInvalid, `"yaml"`},
		{"empty priority", root, Options{Priority: []string{"src", " "}}, ErrInvalid, `" "`},
		{"empty category", root, Options{Categories: []Category{{Pattern: "*.md"}}}, ErrInvalid, `"*.md"`},
		{"negated category", root, Options{Categories: []Category{{"!x", "c"}}}, ErrInvalid, `"!x"`},
		{"comment category", root, Options{Categories: []Category{{"#x", "c"}}}, ErrInvalid, `"#x"`},
		{"unclosed class", root, Options{Categories: []Category{{"[", "c"}}}, ErrInvalid, `"["`},
		{"unclosed class in a segment", root, Options{Categories: []Category{{"docs/a[b/*.md", "c"}}}, ErrInvalid, `"docs/a[b/*.md"`},
		{"trailing backslash", root, Options{Categories: []Category{{`src\`, "c"}}}, ErrInvalid, `"src\\"`},
		{"not a directory", file, Options{}, ErrInvalid, "a.txt"},
		{"missing", filepath.Join(root, "nope"), Options{}, fs.ErrNotExist, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Counter = packWordCounter{}
			_, err := Dir(context.Background(), tt.dir, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want errors.Is %v", err, tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.quote) || msg != strings.ToLower(msg[:1])+msg[1:] {
				t.Errorf("error %q should quote %s and start lowercase", msg, tt.quote)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Dir(ctx, root, Options{Counter: packWordCounter{}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}

// packSmallFiles is a small project with every kind of content the
// renderers must escape; testdata/pack/small holds the same files.
var packSmallFiles = map[string]string{
	"README.md":          "# Demo\n\nSome `code` and a fence:\n\n```go\nx := 1\n```\n",
	"src/main.go":        "package main\n\nfunc main() { println(\"<&>\") }\n",
	"src/util/str.go":    "package util\n\n// Quote says \"hi\" & <bye>.\nfunc Quote() string { return `]]>` }\n",
	"tests/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	"docs/guide.md":      "Guide text without a final newline",
	"docs/intro.md":      strings.Repeat("Intro paragraph with some words. ", 30) + "\n",
	"logo.bin":           "\x00\x01\x02",
	".gitignore":         "*.tmp\n",
	"scratch.tmp":        "ignored\n",
}

// packSmallTree writes packSmallFiles to a temporary directory, plus a
// file whose name holds a tab and whose content a control character.
func packSmallTree(t testing.TB) string {
	root := t.TempDir()
	packWriteTree(t, root, packSmallFiles)
	packWriteTree(t, root, map[string]string{
		"tab\tname.txt":      "tabs\tand\tcontrol \x01 chars\n",
		"new\nline/file.txt": "a directory whose name holds a newline\n",
	})
	return root
}

func TestPackFormats(t *testing.T) {
	root := packSmallTree(t)
	c := packRealCounter(t)
	hashes := map[string]string{}
	for _, format := range []string{"md", "xml", "json"} {
		p := packMust(t, root, Options{Counter: c, Format: format})
		out, err := p.Render("")
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Count(string(out)); n != p.Tokens {
			t.Errorf("%s: Tokens = %d, the rendering counts %d", format, p.Tokens, n)
		}
		if !strings.Contains(string(out), fmt.Sprint(p.Tokens)) && !strings.Contains(string(out), numfmt.Thousands(p.Tokens)) {
			t.Errorf("%s: the pack does not state its token total %d", format, p.Tokens)
		}
		hashes[format] = p.Hash
		switch format {
		case "md":
			packCheckMD(t, string(out))
		case "xml":
			packCheckXML(t, out)
		case "json":
			packCheckJSON(t, p, out)
		}
	}
	if hashes["md"] != hashes["xml"] || hashes["md"] != hashes["json"] || !strings.HasPrefix(hashes["md"], "sha256:") {
		t.Errorf("the content hash must not depend on the format: %v", hashes)
	}
	// The pack hash is the full digest, as long as a packet's.
	if h := hashes["md"]; !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(h) {
		t.Errorf("pack hash %q: want sha256: and 64 hex digits", h)
	}
	// Rendering a pack in another format than it was fitted in works too.
	p := packMust(t, root, Options{Counter: c})
	other, err := p.Render("json")
	if err != nil {
		t.Fatal(err)
	}
	var j struct{ Hash string }
	if err := json.Unmarshal(other, &j); err != nil || j.Hash != p.Hash {
		t.Errorf("md pack rendered as json: hash %q (err %v), want %q", j.Hash, err, p.Hash)
	}
	if _, err := p.Render("pdf"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Render(pdf): err = %v, want ErrInvalid", err)
	}
}

// packCheckMD checks a markdown pack of packSmallTree.
func packCheckMD(t *testing.T, s string) {
	t.Helper()
	for _, want := range []string{"# Pack: ", "## Tree", "## File: src/main.go", "````markdown\n", "└── ", "`logo.bin` (binary"} {
		if !strings.Contains(s, want) {
			t.Errorf("md: missing %q in\n%s", want, s)
		}
	}
	if !strings.Contains(s, "## File: \"new\\nline/file.txt\"\n") || !strings.Contains(s, "├── \"new\\nline\"/\n") {
		t.Errorf("md: a path with a newline must be quoted in headings and the tree:\n%s", s)
	}
	if !strings.Contains(s, "Guide text without a final newline\n```\n") {
		t.Errorf("md: a file without a final newline must still close its fence:\n%s", s)
	}
}

// packCheckXML checks that an XML pack is well-formed and carries the
// contents back.
func packCheckXML(t *testing.T, out []byte) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(out)))
	var texts []string
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("xml: not well-formed: %v\n%s", err, out)
			}
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(cd))
		}
	}
	joined := strings.Join(texts, "")
	if !strings.Contains(joined, `println("<&>")`) || !strings.Contains(joined, "return `]]>`") {
		t.Errorf("xml: content not round-tripped: %q", joined)
	}
}

// packCheckJSON checks a JSON pack against the pack it renders.
func packCheckJSON(t *testing.T, p *Pack, out []byte) {
	t.Helper()
	var j struct {
		Profile string `json:"profile"`
		Tokens  int    `json:"tokens"`
		Files   []struct {
			Path, Content string
		} `json:"files"`
		NotPacked []NotPacked `json:"not_packed"`
		Deferred  []Deferred  `json:"deferred"`
	}
	if err := json.Unmarshal(out, &j); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if j.Profile != "files" || j.Tokens != p.Tokens || len(j.Files) != len(p.Files) || j.Deferred == nil || len(j.NotPacked) != 1 {
		t.Errorf("json: %+v", j)
	}
	for i, f := range j.Files {
		if f.Content != p.Files[i].Content {
			t.Errorf("json: content of %s changed: %q", f.Path, f.Content)
		}
	}
}

// TestPackDeterministic packs the same content twice, the second time
// written in another order into another directory of the same name, and
// wants the same bytes in every format, with and without a budget.
func TestPackDeterministic(t *testing.T) {
	files := map[string]string{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		dir := []string{"src", "docs", "tests", "lib", "zz", ""}[i%6]
		name := fmt.Sprintf("f%02d.txt", i)
		if dir != "" {
			name = dir + "/" + name
		}
		files[name] = strings.Repeat(fmt.Sprintf("line %d of %s\n", r.IntN(1000), name), 1+r.IntN(20))
	}
	a := filepath.Join(t.TempDir(), "proj")
	b := filepath.Join(t.TempDir(), "proj")
	packWriteTree(t, a, files)
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	for _, k := range keys {
		packWriteTree(t, b, map[string]string{k: files[k]})
	}
	c := packRealCounter(t)
	for _, format := range []string{"md", "xml", "json"} {
		for _, limit := range []int{0, 1500} {
			opts := Options{Counter: c, Format: format, Budget: limit}
			pa, pb := packMust(t, a, opts), packMust(t, b, opts)
			pa2 := packMust(t, a, opts)
			oa, _ := pa.Render("")
			ob, _ := pb.Render("")
			oa2, _ := pa2.Render("")
			if string(oa) != string(ob) || string(oa) != string(oa2) {
				t.Errorf("%s budget %d: renderings differ", format, limit)
			}
			if pa.Report() != pb.Report() {
				t.Errorf("%s budget %d: reports differ:\n%s\n%s", format, limit, pa.Report(), pb.Report())
			}
			if limit > 0 && len(pa.Deferred) == 0 {
				t.Errorf("%s budget %d: expected something deferred", format, limit)
			}
		}
	}
}

// TestPackNeverOverBudget is the property of the re-count: whatever the
// budget, the rendering counted again whole never exceeds it, and the
// report's figures are the rendering's.
func TestPackNeverOverBudget(t *testing.T) {
	c := packRealCounter(t)
	roots := map[string]string{"small": packSmallTree(t), "lmpack": filepath.Join("..", "..", "testdata", "pack", "lmpack")}
	if _, err := os.Stat(roots["lmpack"]); err != nil {
		t.Fatalf("fixture missing (run go test -run TestPackLmpackFixture -update-pack ./packet/): %v", err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	report := regexp.MustCompile(`^Packed: (\d+) files?, ([\d,]+) tokens \((\d+)% of budget ([\d,]+)\)\n`)
	for name, root := range roots {
		full := packMust(t, root, Options{Counter: c})
		for i := range 8 {
			format := []string{"md", "xml", "json"}[i%3]
			limit := 1 + r.IntN(full.Tokens+full.Tokens/10)
			p := packMust(t, root, Options{Counter: c, Budget: limit, Format: format})
			out, _ := p.Render("")
			n := c.Count(string(out))
			if n != p.Tokens {
				t.Errorf("%s %s budget %d: Tokens %d, rendering counts %d", name, format, limit, p.Tokens, n)
			}
			if n > limit {
				t.Errorf("%s %s budget %d: rendering counts %d, over budget", name, format, limit, n)
			}
			if len(p.Files)+len(p.Deferred) != len(full.Files) {
				t.Errorf("%s %s budget %d: %d packed + %d deferred != %d files", name, format, limit, len(p.Files), len(p.Deferred), len(full.Files))
			}
			for _, w := range p.Warnings {
				if p.form != frameWhole {
					break // cut below the frame: TestPackFrameSweep
				}
				if !strings.Contains(string(out), packShownIn(format, w)) {
					t.Errorf("%s %s budget %d: warning %q is in the report but not in the pack", name, format, limit, w)
				}
			}
			m := report.FindStringSubmatch(p.Report())
			if m == nil || m[1] != fmt.Sprint(len(p.Files)) || m[2] != numfmt.Thousands(n) || m[4] != numfmt.Thousands(limit) {
				t.Errorf("%s %s budget %d: report does not match the pack (%d files, %d tokens):\n%s", name, format, limit, len(p.Files), n, p.Report())
			}
			wantExit := 0
			if len(p.Deferred) > 0 {
				wantExit = 2
			}
			if p.ExitCode() != wantExit {
				t.Errorf("%s %s budget %d: exit %d, want %d", name, format, limit, p.ExitCode(), wantExit)
			}
		}
	}
}

func TestPackThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 19859: "19,859", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := numfmt.Thousands(n); got != want {
			t.Errorf("numfmt.Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPackEstimateWarns(t *testing.T) {
	c, err := budget.NewCounter(budget.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	p := packMust(t, packSmallTree(t), Options{Counter: c, Budget: 2000})
	if !strings.Contains(p.Report(), "Warning: token counts are estimates") {
		t.Errorf("an estimating counter must say so in the report:\n%s", p.Report())
	}
	if p.Tokens > 2000 {
		t.Errorf("tokens %d over budget 2,000", p.Tokens)
	}
}
