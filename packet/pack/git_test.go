package pack

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestPackGitDiff(t *testing.T) {
	root := packGitTree(t)
	c := packRealCounter(t)
	p := packMust(t, root, Options{Counter: c, GitDiff: true})
	want := []string{"lib/new.go", "lib/x.go", "src/a.go", "src/b.go", "src/c.go"}
	if got := packPaths(p.Files); !slices.Equal(got, want) {
		t.Errorf("git diff scope = %q, want %q", got, want)
	}
	out, _ := p.Render("")
	for _, f := range p.Files {
		wantFocus := f.Path == "src/a.go" || f.Path == "lib/new.go"
		if f.Focus != wantFocus {
			t.Errorf("%s: focus = %v, want %v", f.Path, f.Focus, wantFocus)
		}
		if marked := strings.Contains(string(out), "## File: "+f.Path+" (changed)\n"); marked != wantFocus {
			t.Errorf("%s: marked changed in the pack = %v, want %v", f.Path, marked, wantFocus)
		}
	}
	// Tight budget: the neighbours go first, largest first; the changed
	// files stay although src is the most important category.
	var focus, neighbours int
	for _, f := range p.Files {
		if f.Focus {
			focus += f.Tokens
		} else {
			neighbours += f.Tokens
		}
	}
	// Room for the changed files and the three neighbours' notes, not
	// for the big neighbours.
	limit := p.Tokens - neighbours + 100
	q := packMust(t, root, Options{Counter: c, GitDiff: true, Budget: limit})
	if got := packPaths(q.Files); !slices.Contains(got, "src/a.go") || !slices.Contains(got, "lib/new.go") {
		t.Errorf("budget %d: changed files must stay, kept %q\n%s", limit, got, q.Report())
	}
	if got := packDeferredPaths(q.Deferred); len(got) < 2 || got[0] != "src/b.go" || got[1] != "src/c.go" {
		t.Errorf("budget %d: deferred %q, want the neighbours largest first\n%s", limit, got, q.Report())
	}
	if !strings.Contains(q.Report(), "neighbour of a changed file") || q.ExitCode() != 2 || q.Tokens > limit {
		t.Errorf("report should name the neighbour reason, exit 2, fit in %d:\n%s", limit, q.Report())
	}
	// A changed file too big for the budget: the changed files lose their
	// pin, a warning says so, and the rest is still packed.
	packWriteTree(t, root, map[string]string{"src/a.go": "package src // a changed " + strings.Repeat("ay ", 400) + "\n"})
	grown := packMust(t, root, Options{Counter: c, GitDiff: true})
	big, others := 0, 0
	for _, f := range grown.Files {
		switch {
		case f.Path == "src/a.go":
			big = f.Tokens
		case !f.Focus:
			others += f.Tokens
		}
	}
	// Room for the frame, lib/new.go and the notes, not for src/a.go.
	limit = grown.Tokens - others - big/2
	tiny := packMust(t, root, Options{Counter: c, GitDiff: true, Budget: limit})
	if !slices.ContainsFunc(tiny.Warnings, func(w string) bool { return strings.Contains(w, "changed files alone") }) {
		t.Errorf("budget %d: want a warning that the changed files alone overflow, got %q", limit, tiny.Warnings)
	}
	if tiny.FrameOnly || len(tiny.Files) == 0 || tiny.Tokens > limit || slices.Contains(packPaths(tiny.Files), "src/a.go") {
		t.Errorf("budget %d: want the other files packed within it, not src/a.go: frame only %v, kept %q, %d tokens",
			limit, tiny.FrameOnly, packPaths(tiny.Files), tiny.Tokens)
	}

	// Not a work tree: a clear error.
	if _, err := Dir(context.Background(), t.TempDir(), Options{Counter: c, GitDiff: true}); !errors.Is(err, ErrGit) {
		t.Errorf("git diff outside a repository: err = %v, want ErrGit", err)
	}
}

// packGitTree is a committed work tree with one file changed, one
// untracked and one ignored.
func packGitTree(t *testing.T) string {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	packWriteTree(t, root, map[string]string{
		".gitignore":     "*.log\n",
		"src/a.go":       "package src // a\n",
		"src/b.go":       "package src // b " + strings.Repeat("bee ", 200) + "\n",
		"src/c.go":       "package src // c " + strings.Repeat("sea ", 100) + "\n",
		"docs/guide.md":  "guide\n",
		"lib/x.go":       "package lib\n",
		"lib/other/y.go": "package other\n",
		"README.md":      "readme\n",
	})
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	packWriteTree(t, root, map[string]string{
		"src/a.go":        "package src // a changed\n",
		"lib/new.go":      "package lib // untracked\n",
		"lib/ignored.log": "ignored\n",
	})
	return root
}
