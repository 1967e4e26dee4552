//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `lore pack` on a folder holding a FIFO (and a link to it) packs the
// other files and lists the FIFO as not read; it never opens it, so it
// does not wait for a writer. The deadline only stops a hung child.
func TestPackListsFIFO(t *testing.T) {
	bin := loreBinary(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# Harbour\nThe lamp is lit.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "x.md"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("x.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "pack", root, "--budget", "2000")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pack: %v (ctx %v)\nstderr: %s", err, ctx.Err(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"The lamp is lit.", "- `x.md` (named pipe, not read", "- `link.md` (named pipe, not read"} {
		if !strings.Contains(out, want) {
			t.Errorf("pack output lacks %q:\n%s", want, out)
		}
	}
}
