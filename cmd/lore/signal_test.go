package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runBinary runs bin (from loreBinary) on the store dir as a fresh
// process and returns its stdout, stderr and exit code.
func runBinary(t *testing.T, bin, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--store", dir}, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// loreBinary links the test binary as "lore" in a temporary folder:
// testscript.Main runs the command when argv[0] is named so.
func loreBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "lore")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// SIGINT or SIGTERM sent to an import of 20,000 records once it has read
// them (its first progress line) leaves none of them, exits 130 or 143
// with one line saying nothing was imported, and leaves check clean.
func TestImportInterrupted(t *testing.T) {
	bin := loreBinary(t)
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"ns":"big","id":"r%05d","kind":"memory","title":"Record %d","body":"the keeper rings bell %d at slack water, then writes it in the log"}`+"\n", i, i, i)
	}
	in := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(sigName(tc.sig), func(t *testing.T) {
			dir := newStore(t)
			cmd := exec.Command(bin, "--store", dir, "import", in)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			var lines []string
			if sc.Scan() {
				lines = append(lines, sc.Text())
				cmd.Process.Signal(tc.sig)
			}
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("import after %s: %v, stderr %q; want exit %d", sigName(tc.sig), err, lines, tc.code)
			}
			last := lines[len(lines)-1]
			if !strings.Contains(last, "interrupted by "+sigName(tc.sig)) || !strings.Contains(last, "nothing") {
				t.Errorf("last line %q: want it to say the import was interrupted and nothing written", last)
			}
			out, errs, code := runCLI(t, "", "--store", dir, "--json", "stats")
			if code != 0 || !strings.Contains(out, `"records": 0`) {
				t.Errorf("stats after the interrupted import: exit %d, %s %s; want 0 records", code, out, errs)
			}
			if _, errs, code := runCLI(t, "", "--store", dir, "check"); code != 0 {
				t.Errorf("check after the interrupted import: exit %d: %s", code, errs)
			}
		})
	}
}
