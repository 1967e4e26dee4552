package pack

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestPackSourceOrder checks the order of sources under the default
// categories: the files behind the front doors go first, deepest first,
// then the front doors, deepest first, and largest first within a depth;
// with the user's own categories, largest first alone (lmpack's rule 2).
func TestPackSourceOrder(t *testing.T) {
	root := t.TempDir()
	body := func(n int) string { return "package x\n\n" + strings.Repeat("// words words words\n", n) }
	packWriteTree(t, root, map[string]string{
		"go.mod":            "// a comment\nmodule example.com/acme/widget/v2\n\ngo 1.24\n",
		"widget.go":         body(40), // the project's file: a front door at the top
		"helper.go":         body(10),
		"huge.go":           body(80),
		"doc.go":            body(5),
		"store/store.go":    body(30), // named after its directory
		"store/disk.go":     body(20),
		"store/doc.go":      body(3),
		"cmd/tool/main.go":  body(15),
		"cmd/tool/flags.go": body(25),
		"README.md":         "# Widget\n",
	})
	order := func(opts Options) []string {
		t.Helper()
		opts.Counter = packRealCounter(t)
		_, items, _, err := packPrepare(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range packDropOrder(items) {
			if it.Category == "src" {
				out = append(out, it.Path)
			}
		}
		return out
	}
	want := []string{
		"cmd/tool/flags.go",    // behind the front doors, depth 2
		"store/disk.go",        // depth 1
		"huge.go", "helper.go", // depth 0, largest first
		"cmd/tool/main.go",               // front doors, depth 2
		"store/store.go", "store/doc.go", // depth 1, largest first
		"widget.go", "doc.go", // the top, kept longest
	}
	if got := order(Options{}); !slices.Equal(got, want) {
		t.Errorf("default categories: drop order\n got %q\nwant %q", got, want)
	}
	own := []Category{{Pattern: "*.go", Category: "src"}}
	wantOwn := []string{"huge.go", "widget.go", "store/store.go", "cmd/tool/flags.go", "store/disk.go",
		"cmd/tool/main.go", "helper.go", "doc.go", "store/doc.go"}
	if got := order(Options{Categories: own}); !slices.Equal(got, wantOwn) {
		t.Errorf("own categories: drop order\n got %q\nwant %q (largest first)", got, wantOwn)
	}
}

// TestPackProjectNames reads the project's name from each manifest.
func TestPackProjectNames(t *testing.T) {
	tests := []struct {
		file, text, want string
	}{
		{"go.mod", "module github.com/acme/thing/v3\n", "thing"},
		{"go.mod", "module thing\n", "thing"},
		{"package.json", `{"version": "1.0.0", "name": "@acme/thing"}`, "thing"},
		{"Cargo.toml", "[workspace]\nname = \"not-this\"\n[package]\nversion = \"0.1.0\"\nname = \"thing\"\n", "thing"},
		{"pyproject.toml", "[build-system]\nrequires = []\n[project]\nname = \"my-thing\"\n", "my_thing"},
	}
	for _, tt := range tests {
		root := t.TempDir()
		packWriteTree(t, root, map[string]string{tt.file: tt.text})
		names := projectNames(root)
		if !names[tt.want] {
			t.Errorf("%s %q: names %v, want %q among them", tt.file, tt.text, names, tt.want)
		}
		if names["not-this"] || names["v3"] {
			t.Errorf("%s %q: names %v hold a name from outside the project's own entry", tt.file, tt.text, names)
		}
	}
}
