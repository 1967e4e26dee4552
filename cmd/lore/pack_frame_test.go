package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
)

// TestPackBelowFrameCLI runs `lore pack` as a user does, at every budget
// from 1 to twice the frame, with and without --git-diff, in md, xml and
// json: stdout never counts over the budget (the real tokenizer, in the
// encoding pack counts with), the exit code is 2 whenever a file was
// dropped, and below the frame stderr warns with the frame's size, a
// budget at which the frame is written whole.
func TestPackBelowFrameCLI(t *testing.T) {
	t.Setenv("LORE_STORE", "")
	t.Chdir(t.TempDir()) // no store above: no lore.json to pick up
	root := packGitRepo(t)
	c, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	below := regexp.MustCompile(`(?m)^Warning: budget [\d,]+ is below the frame of the pack \(([\d,]+) tokens\)`)
	packed := regexp.MustCompile(`(?m)^Packed: \d+ files?, ([\d,]+) tokens`)
	number := func(s string) int {
		n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if err != nil {
			t.Fatalf("number %q: %v", s, err)
		}
		return n
	}
	for _, gitDiff := range []bool{false, true} {
		for _, format := range []string{"md", "xml", "json"} {
			name := fmt.Sprintf("%s git-diff=%v", format, gitDiff)
			// run packs at budget b and returns stdout, stderr, the exit
			// code and the frame size stderr names (0 if none).
			run := func(b int) (string, string, int, int) {
				args := []string{"pack", root, "--format", format, "--budget", strconv.Itoa(b)}
				if gitDiff {
					args = append(args, "--git-diff")
				}
				out, errs, code := runCLI(t, "", args...)
				frame := 0
				if m := below.FindStringSubmatch(errs); m != nil {
					frame = number(m[1])
				}
				return out, errs, code, frame
			}
			_, errs, _, frame := run(1)
			if frame < 2 {
				t.Fatalf("%s budget 1: stderr names no frame:\n%s", name, errs)
			}
			whole := map[int]bool{} // frame sizes named and checked
			for b := 1; b <= 2*frame; b++ {
				out, errs, code, named := run(b)
				n := c.Count(out)
				if n > b {
					t.Errorf("%s budget %d: stdout counts %d tokens, over the budget:\n%s", name, b, n, out)
				}
				if m := packed.FindStringSubmatch(errs); m == nil || number(m[1]) != n {
					t.Errorf("%s budget %d: the report does not state the %d tokens written:\n%s", name, b, n, errs)
				}
				want := 0
				if strings.Contains(errs, "Dropped by budget") || named > 0 {
					want = exitDeferred
				}
				if code != want {
					t.Errorf("%s budget %d: exit %d, want %d:\n%s", name, b, code, want, errs)
				}
				if named == 0 || whole[named] {
					continue
				}
				if named <= b {
					t.Errorf("%s budget %d: warned below a frame of %d tokens", name, b, named)
				}
				out, errs, _, again := run(named)
				if again != 0 || c.Count(out) > named {
					t.Errorf("%s budget %d names a frame of %d tokens, but at %d the pack is cut again:\n%s", name, b, named, named, errs)
				}
				whole[named] = true
			}
			t.Logf("%s: frame %d tokens, budgets 1-%d swept", name, frame, 2*frame)
		}
	}
}

// packGitRepo is a committed git work tree with one file changed and one
// untracked, made by the real git.
func packGitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := filepath.Join(t.TempDir(), "proj")
	write := func(files map[string]string) {
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
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write(map[string]string{
		"src/main.go":   "package main\n\nfunc main() { println(\"hello\") }\n",
		"src/util.go":   "package main // util " + strings.Repeat("helper ", 80) + "\n",
		"docs/guide.md": "# Guide\n\n" + strings.Repeat("The lamp is lit at dusk. ", 30) + "\n",
		"README.md":     "# proj\n",
	})
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "init")
	write(map[string]string{
		"src/main.go": "package main\n\nfunc main() { println(\"hello, harbour\") }\n",
		"src/new.go":  "package main // untracked\n",
	})
	return root
}
