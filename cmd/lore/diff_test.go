package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `lore diff` exits as diff(1): 0 for a packet file against itself, 1
// across two budgets (with the records added and changed in form), 2 for a markdown
// packet or a missing file.
func TestDiffCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if _, errs, code := runCLI(t, "", "demo", "--dir", dir); code != exitOK && code != exitDeferred {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	req := []string{"--store", dir, "packet", "--ns", "tidewater-lamp", "--focus", "scene-03", "--task", "draft", "--budget", "3000"}
	files := map[string]string{}
	for _, format := range []string{"json", "md"} {
		out, errs, code := runCLI(t, "", append(req, "--format", format)...)
		if code != exitOK && code != exitDeferred {
			t.Fatalf("packet: exit %d: %s", code, errs)
		}
		files[format] = filepath.Join(t.TempDir(), "p."+format)
		if err := os.WriteFile(files[format], []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, errs, code := runCLI(t, "", "diff", files["json"], files["json"]); code != exitDiffSame {
		t.Errorf("a file against itself: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code := runCLI(t, "", "--store", dir, "diff", "--ns", "tidewater-lamp", "--focus", "scene-03", "--task", "draft",
		"--budget", "2200", "--other-budget", "5000")
	if code != exitDiffDifferent || !strings.Contains(out, "+ style-voice") || !strings.Contains(out, "~ scene-02") {
		t.Errorf("2200 against 5000: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{{files["json"], files["md"]}, {files["json"], filepath.Join(dir, "no-such.json")}, {files["json"]}} {
		if _, errs, code := runCLI(t, "", append([]string{"diff"}, args...)...); code != exitDiffTrouble || errs == "" {
			t.Errorf("diff %v: exit %d, %q; want 2 with a message", args, code, errs)
		}
	}
}
