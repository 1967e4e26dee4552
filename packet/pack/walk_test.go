package pack

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPackWalk(t *testing.T) {
	root := t.TempDir()
	packWriteTree(t, root, map[string]string{
		".gitignore":             "*.log\nbuild/\n/only-root.txt\n!keep.log\n",
		"a.go":                   "package a\n",
		"debug.log":              "noise\n",
		"keep.log":               "kept by negation\n",
		"only-root.txt":          "ignored at the root\n",
		"build/out.go":           "ignored dir\n",
		"src/only-root.txt":      "not anchored here\n",
		"src/b.go":               "package src\n",
		"src/sub/.gitignore":     "*.tmp\n!wanted.tmp\n/local.txt\n",
		"src/sub/x.tmp":          "ignored by nested\n",
		"src/sub/wanted.tmp":     "re-included by nested\n",
		"src/sub/local.txt":      "anchored nested\n",
		"src/sub/deep/local.txt": "anchored to sub/ only\n",
		".git/HEAD":              "ref: refs/heads/main\n",
		".lore/lore.json":        "{}\n",
		"nested/.git/config":     "[core]\n",
		"img.png":                "\x89PNG\r\n\x1a\n\x00\x00\x00",
		"latin1.txt":             "caf\xe9\n",
	})
	outside := t.TempDir()
	packWriteTree(t, outside, map[string]string{"secret.txt": "outside\n"})
	mustLink := func(target, link string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	mustLink(filepath.Join(outside, "secret.txt"), "leak.txt")
	mustLink("a.go", "alias.go")
	mustLink("src", "srclink")
	mustLink("missing", "broken")

	p := packMust(t, root, Options{Counter: packWordCounter{}})
	wantFiles := []string{
		".gitignore", "a.go", "alias.go", "keep.log",
		"src/b.go", "src/only-root.txt",
		"src/sub/.gitignore", "src/sub/deep/local.txt", "src/sub/wanted.tmp",
	}
	if got := packPaths(p.Files); !slices.Equal(got, wantFiles) {
		t.Errorf("packed files:\n got %q\nwant %q", got, wantFiles)
	}
	var gotNot []string
	for _, n := range p.NotPacked {
		gotNot = append(gotNot, n.Path+": "+n.Reason)
	}
	wantNot := []string{
		"broken: " + fileReasonBroken,
		"img.png: " + fileReasonBinary,
		"latin1.txt: " + fileReasonBinary,
		"leak.txt: " + fileReasonSymlink,
		"srclink: " + fileReasonLinkDir,
	}
	if !slices.Equal(gotNot, wantNot) {
		t.Errorf("not packed:\n got %q\nwant %q", gotNot, wantNot)
	}
	out, _ := p.Render("")
	if strings.Contains(string(out), "outside") || strings.Contains(string(out), "PNG") {
		t.Errorf("pack leaks content it must not pack:\n%s", out)
	}
	if !strings.Contains(string(out), "`img.png` (binary, 11 bytes)") {
		t.Errorf("binary file not listed in the pack:\n%s", out)
	}
	if !strings.Contains(p.Report(), "  img.png  (binary, 11 bytes)\n") {
		t.Errorf("binary file not listed in the report:\n%s", p.Report())
	}
	if p.ExitCode() != 0 {
		t.Errorf("ExitCode = %d, want 0 (no budget, nothing dropped)", p.ExitCode())
	}
}

func TestPackMaxFileBytes(t *testing.T) {
	root := t.TempDir()
	packWriteTree(t, root, map[string]string{"big.txt": strings.Repeat("word ", 100), "small.txt": "hi\n"})
	p := packMust(t, root, Options{Counter: packWordCounter{}, MaxFileBytes: 100})
	if got := packPaths(p.Files); !slices.Equal(got, []string{"small.txt"}) {
		t.Errorf("packed %q, want only small.txt", got)
	}
	if len(p.NotPacked) != 1 || p.NotPacked[0].Reason != fileReasonTooLarge || p.NotPacked[0].Bytes != 500 {
		t.Errorf("not packed = %+v, want big.txt too large (500 bytes)", p.NotPacked)
	}
}

func TestPackUnreadableFile(t *testing.T) {
	root := t.TempDir()
	packWriteTree(t, root, map[string]string{"ok.txt": "fine\n", "locked.txt": "secret\n"})
	locked := filepath.Join(root, "locked.txt")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(locked); err == nil {
		// Root reads mode-0 files: make the read fail in the walker
		// itself, the way it fails for an ordinary user.
		f.Close()
		w := fileWalker{ctx: context.Background(), root: root, readFile: func(name string) ([]byte, error) {
			if filepath.Base(name) == "locked.txt" {
				return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
			}
			return os.ReadFile(name)
		}}
		for _, name := range []string{"locked.txt", "ok.txt"} {
			if err := w.file(name, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
		}
		if len(w.out) != 2 || w.out[0].notPacked != fileReasonNoRead || w.out[1].notPacked != "" {
			t.Errorf("walk with an unreadable locked.txt = %+v, want it listed as unreadable and ok.txt packed", w.out)
		}
		return
	}
	p := packMust(t, root, Options{Counter: packWordCounter{}})
	if got := packPaths(p.Files); !slices.Equal(got, []string{"ok.txt"}) {
		t.Errorf("packed %q, want ok.txt", got)
	}
	if len(p.NotPacked) != 1 || p.NotPacked[0].Reason != fileReasonNoRead {
		t.Errorf("not packed = %+v, want locked.txt unreadable", p.NotPacked)
	}
}

// TestPackIgnoreAbove packs a subdirectory of a work tree: the .gitignore
// files above it and .git/info/exclude apply, anchored where they live;
// outside a work tree they do not.
func TestPackIgnoreAbove(t *testing.T) {
	for _, repo := range []bool{true, false} {
		top := t.TempDir()
		packWriteTree(t, top, map[string]string{
			".gitignore":     "*.log\n/top.txt\nsub/gen/\n",
			"sub/.gitignore": "!keep.log\n",
			"sub/a.go":       "package sub\n",
			"sub/a.log":      "log\n",
			"sub/keep.log":   "kept by the nested negation\n",
			"sub/top.txt":    "anchored to the top: not this one\n",
			"sub/gen/x.go":   "generated\n",
			"sub/secret.txt": "excluded locally\n",
			"sub/deep/b.log": "log\n",
			"sub/deep/c.go":  "package deep\n",
		})
		if repo {
			packWriteTree(t, top, map[string]string{".git/info/exclude": "# local\nsecret.txt\n"})
		}
		p := packMust(t, filepath.Join(top, "sub"), Options{Counter: packWordCounter{}})
		want := []string{".gitignore", "a.go", "deep/c.go", "keep.log", "top.txt"}
		if !repo {
			want = []string{".gitignore", "a.go", "a.log", "deep/b.log", "deep/c.go", "gen/x.go", "keep.log", "secret.txt", "top.txt"}
		}
		if got := packPaths(p.Files); !slices.Equal(got, want) {
			t.Errorf("work tree %v: packed\n got %q\nwant %q", repo, got, want)
		}
	}
}

// TestPackExclude packs a directory into a file inside it, twice: the
// second pack must not hold the first one's output (lore pack . -o
// pack.md), whether the path is given relative to DIR or absolute.
func TestPackExclude(t *testing.T) {
	root := t.TempDir()
	packWriteTree(t, root, map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n", "sub/c.txt": "gamma\n"})
	c := packRealCounter(t)
	first := packMust(t, root, Options{Counter: c, Exclude: []string{"pack.md"}}) // not written yet
	out, err := first.Render("")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pack.md"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pack.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	paths := func(p *Pack) []string {
		var out []string
		for _, f := range p.Files {
			out = append(out, f.Path)
		}
		for _, n := range p.NotPacked {
			out = append(out, n.Path)
		}
		slices.Sort(out)
		return out
	}
	if got := paths(packMust(t, root, Options{Counter: c})); !slices.Contains(got, "pack.md") {
		t.Fatalf("without Exclude the earlier output is packed (the bug this guards): %v", got)
	}
	tests := []struct {
		name    string
		exclude []string
		want    []string
	}{
		{"relative", []string{"pack.md"}, []string{"a.txt", "sub/b.txt", "sub/c.txt"}},
		{"absolute", []string{filepath.Join(root, "pack.md")}, []string{"a.txt", "sub/b.txt", "sub/c.txt"}},
		{"dot slash", []string{"./pack.md"}, []string{"a.txt", "sub/b.txt", "sub/c.txt"}},
		{"directory", []string{"sub", "pack.md"}, []string{"a.txt"}},
		{"file in a directory", []string{"sub/b.txt", "pack.md"}, []string{"a.txt", "sub/c.txt"}},
		{"outside and empty", []string{"", "../elsewhere.md", filepath.Join(t.TempDir(), "x")}, []string{"a.txt", "link.md", "pack.md", "sub/b.txt", "sub/c.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := paths(packMust(t, root, Options{Counter: c, Exclude: tt.exclude}))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Exclude %q: packed %v, want %v", tt.exclude, got, tt.want)
			}
		})
	}
	// The same pack, twice: the second run does not grow.
	again := packMust(t, root, Options{Counter: c, Exclude: []string{"pack.md", "link.md"}})
	if again.Hash != first.Hash {
		t.Errorf("second pack hash %s differs from the first %s: it packed something new", again.Hash, first.Hash)
	}
}
