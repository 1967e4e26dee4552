package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
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

// bigImport writes n JSONL records for the interrupt tests and returns
// the file's path.
func bigImport(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"ns":"big","id":"r%05d","kind":"memory","title":"Record %d","body":"the keeper rings bell %d at slack water, then writes it in the log"}`+"\n", i, i, i)
	}
	in := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return in
}

// interruptImport runs bin's import of in into dir and sends sig delay
// after the import's first line (it has read its input: before that the
// signal handler may not be set up yet). It returns the lines the import
// wrote on stderr and its exit code.
func interruptImport(t *testing.T, bin, dir, in string, sig syscall.Signal, delay time.Duration) (lines []string, code int) {
	t.Helper()
	cmd := exec.Command(bin, "--store", dir, "import", in)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	if sc.Scan() {
		lines = append(lines, sc.Text())
	}
	time.Sleep(delay)
	cmd.Process.Signal(sig)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return lines, ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return lines, 0
}

// SIGINT or SIGTERM sent to an import of 20,000 records once it has read
// them (its first progress line) leaves none of them, exits 130 or 143
// with one line saying nothing was imported, and leaves check clean.
func TestImportInterrupted(t *testing.T) {
	bin := loreBinary(t)
	in := bigImport(t, 20000)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(sigName(tc.sig), func(t *testing.T) {
			dir := newStore(t)
			lines, code := interruptImport(t, bin, dir, in, tc.sig, 0)
			if code != tc.code || len(lines) == 0 {
				t.Fatalf("import after %s: exit %d, stderr %q; want exit %d", sigName(tc.sig), code, lines, tc.code)
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

// A signal at any moment of an import tells the truth: exit 130 and a
// last line that says nothing was written, with no record in the store;
// or, once the commit has begun, the whole import written, exit 0, and a
// note that the signal came after the work was done. Never a mix, never a
// 130 over a store that holds the records.
func TestImportInterruptedAtManyDelays(t *testing.T) {
	bin := loreBinary(t)
	const n = 20000
	in := bigImport(t, n)
	outcomes := map[int]int{}
	for _, ms := range []int{0, 2, 5, 10, 20, 40, 80, 150, 250, 400, 600, 900, 1300, 2000} {
		delay := time.Duration(ms) * time.Millisecond
		dir := newStore(t)
		lines, code := interruptImport(t, bin, dir, in, syscall.SIGINT, delay)
		if len(lines) == 0 {
			t.Fatalf("SIGINT after %v: exit %d and nothing on stderr", delay, code)
		}
		outcomes[code]++
		last := lines[len(lines)-1]
		out, _, _ := runCLI(t, "", "--store", dir, "--json", "stats")
		switch code {
		case 130:
			if !strings.Contains(last, "nothing") || !strings.Contains(out, `"records": 0`) {
				t.Errorf("SIGINT after %v: exit 130, last line %q, stats %s; want nothing written and said so", delay, last, out)
			}
		case 0:
			if !strings.Contains(out, fmt.Sprintf(`"records": %d`, n)) || (strings.Contains(last, "interrupted") && !strings.Contains(last, "all of it was written")) {
				t.Errorf("SIGINT after %v: exit 0, last line %q, stats %s; want all %d records", delay, last, out, n)
			}
		default:
			t.Errorf("SIGINT after %v: exit %d: %q", delay, code, lines)
		}
		if _, errs, code := runCLI(t, "", "--store", dir, "check"); code != 0 {
			t.Errorf("check after SIGINT at %v: exit %d: %s", delay, code, errs)
		}
	}
	t.Logf("exit codes over the delays: %v", outcomes)
}

// importWithSignal runs the import command in this process on s, with
// onPhase told each phase of the store's write (store.Progress): it may
// send the signal, as cancel(&interrupted{...}) does in run; signalFirst
// sends it before the command starts. It returns the exit code run would
// report and stderr.
func importWithSignal(t *testing.T, s *streams, dir, in string, signalFirst bool, onPhase func(phase string, cancel context.CancelCauseFunc)) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if signalFirst {
		cancel(&interrupted{sig: syscall.SIGINT})
	}
	ctx = store.WithProgress(ctx, func(phase string, _, _ int) { onPhase(phase, cancel) })
	var errb strings.Builder
	s.in, s.out, s.err = strings.NewReader(""), io.Discard, &errb
	root := newRootCommand(s)
	root.SetArgs([]string{"--store", dir, "import", in})
	err := root.ExecuteContext(ctx)
	code := reportExit(&errb, withCause(ctx, err))
	return code, errb.String()
}

// The phase of the failure seen on a loaded machine: SIGINT during the
// index update after an import's commit, and run's grace running out
// after the write had ended but before the command had closed the store
// and said what it wrote. run then gave up on the command, exiting 130
// with "stopped" over a store holding every record (and the command's
// "all of it was written" note could come after it). A committed write
// must keep run waiting for the command's own report: exit 0 and a note.
func TestImportSignalAfterCommitIsNotStopped(t *testing.T) {
	dir, in := newStore(t), bigImport(t, 300)
	var s streams
	var phases []string
	code, errs := importWithSignal(t, &s, dir, in, false, func(phase string, cancel context.CancelCauseFunc) {
		phases = append(phases, phase)
		if phase == "indexing" { // after the commit
			cancel(&interrupted{sig: syscall.SIGINT})
		}
	})
	if !slices.Contains(phases, "indexing") {
		t.Fatalf("phases %q: no index update to send the signal in", phases)
	}
	if code != 0 || !strings.Contains(errs, "all of it was written") {
		t.Errorf("SIGINT during the index update: exit %d, stderr %q; want exit 0 and the note that all was written", code, errs)
	}
	// The command has ended its write and not yet returned to run: the
	// grace running out now must not let run call it stopped.
	if s.write.stop() {
		t.Errorf("run may give up on an import that committed: it would exit 130 over a store that holds the records")
	}
	if out, _, _ := runCLI(t, "", "--store", dir, "--json", "stats"); !strings.Contains(out, `"records": 300`) {
		t.Errorf("stats: %s; want the 300 records", out)
	}
}

// Before the commit, run may give up on an import after the grace, and
// then the import writes nothing: a signal before the write begins (run
// has already said "stopped"), or one during it (rolled back).
func TestImportSignalBeforeCommitWritesNothing(t *testing.T) {
	in := bigImport(t, 300)
	t.Run("run gave up before the write", func(t *testing.T) {
		dir := newStore(t)
		var s streams
		if !s.write.stop() {
			t.Fatal("no write begun: run may not give up")
		}
		code, errs := importWithSignal(t, &s, dir, in, true, func(string, context.CancelCauseFunc) {
			t.Error("the store was told to write after run gave up")
		})
		if code != 130 || !strings.Contains(lastLine(errs), "nothing imported") {
			t.Errorf("exit %d, stderr %q; want 130 and a last line saying nothing was imported", code, errs)
		}
		if out, _, _ := runCLI(t, "", "--store", dir, "--json", "stats"); !strings.Contains(out, `"records": 0`) {
			t.Errorf("stats: %s; want 0 records", out)
		}
		if s.write.begin() {
			t.Error("a write may begin after run gave up on the command")
		}
	})
	t.Run("signal in the write", func(t *testing.T) {
		dir := newStore(t)
		var s streams
		code, errs := importWithSignal(t, &s, dir, in, false, func(phase string, cancel context.CancelCauseFunc) {
			if phase == "writing" {
				cancel(&interrupted{sig: syscall.SIGINT})
			}
		})
		if code != 130 || !strings.Contains(lastLine(errs), "nothing") {
			t.Errorf("exit %d, stderr %q; want 130 and a last line saying nothing was written", code, errs)
		}
		if !s.write.stop() {
			t.Errorf("a write rolled back keeps run from giving up")
		}
		if out, _, _ := runCLI(t, "", "--store", dir, "--json", "stats"); !strings.Contains(out, `"records": 0`) {
			t.Errorf("stats: %s; want 0 records", out)
		}
	})
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
