package main

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
)

// runCLI runs one command line in-process and returns its output and code.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRootCommand(&streams{in: strings.NewReader(stdin), out: &out, err: &errb})
	root.SetArgs(args)
	err := root.Execute()
	code = reportExit(&errb, err)
	return out.String(), errb.String(), code
}

func newStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if _, errs, code := runCLI(t, "", "--store", dir, "init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	return dir
}

// While one process holds the store for writing, a writer fails within its
// --lock-timeout with a message naming the store; bbolt's flock conflicts
// between two opens of one file even inside one process.
func TestLockTimeoutNamesTheStore(t *testing.T) {
	dir := newStore(t)
	holder, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "--store", dir, "--lock-timeout", "300ms", "put", "--body", "x", "r1")
	holder.Close()
	if code != exitError {
		t.Fatalf("put beside a writer: exit %d, want %d", code, exitError)
	}
	for _, want := range []string{filepath.Join(dir, lore.BoltFile), "another process holds it"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("put beside a writer: stderr %q does not contain %q", stderr, want)
		}
	}
	if _, stderr, code := runCLI(t, "", "--store", dir, "put", "--body", "x", "r1"); code != 0 {
		t.Fatalf("put after the writer closed: exit %d: %s", code, stderr)
	}
}

func TestReadersRunBesideAReader(t *testing.T) {
	dir := newStore(t)
	if _, stderr, code := runCLI(t, "", "--store", dir, "put", "--body", "kept", "r1"); code != 0 {
		t.Fatalf("put: exit %d: %s", code, stderr)
	}
	reader, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, args := range [][]string{{"ls"}, {"get", "r1"}, {"search", "kept"}, {"stats"}, {"export"}} {
		out, stderr, code := runCLI(t, "", append([]string{"--store", dir, "--lock-timeout", "300ms"}, args...)...)
		if code != 0 {
			t.Errorf("%v beside a reader: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(out, "r1") && args[0] != "stats" {
			t.Errorf("%v beside a reader: stdout %q does not mention r1", args, out)
		}
	}
}

// export writes JSONL that import reads back into an identical store: the
// second export is byte-identical to the first.
func TestExportImportRoundTrip(t *testing.T) {
	src := newStore(t)
	canon, err := filepath.Abs("../../testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"tidewater-lamp", "glass-orchard"} {
		if _, stderr, code := runCLI(t, "", "--store", src, "import", "--ns", ns, filepath.Join(canon, ns)); code != 0 {
			t.Fatalf("import %s: exit %d: %s", ns, code, stderr)
		}
	}
	// Two more versions of one record: history to carry over.
	for _, body := range []string{"second version", "third version"} {
		if _, stderr, code := runCLI(t, "", "--store", src, "put", "--ns", "tidewater-lamp", "--body", body, "mara"); code != 0 {
			t.Fatalf("put: exit %d: %s", code, stderr)
		}
	}
	first, stderr, code := runCLI(t, "", "--store", src, "export")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	withHistory, _, _ := runCLI(t, "", "--store", src, "export", "--history")
	if n := strings.Count(withHistory, `"id":"mara"`) - strings.Count(first, `"id":"mara"`); n != 2 {
		t.Fatalf("export --history has %d more lines of mara than export; want her 2 earlier versions", n)
	}
	dst := newStore(t)
	if _, stderr, code := runCLI(t, withHistory, "--store", dst, "import", "-"); code != 0 {
		t.Fatalf("import of the export: exit %d: %s", code, stderr)
	}
	// Byte for byte: stamps, versions, history, hashes, token counts, links.
	for _, c := range []struct{ name, want string }{{"export", first}, {"export --history", withHistory}} {
		got, _, _ := runCLI(t, "", append([]string{"--store", dst}, strings.Fields(c.name)...)...)
		if got != c.want {
			t.Fatalf("%s after import differs from the original (%d vs %d bytes); first difference near %q",
				c.name, len(got), len(c.want), firstDiff(got, c.want))
		}
	}
	if v1, _, code := runCLI(t, "", "--store", dst, "get", "--ns", "tidewater-lamp", "--version", "2", "mara"); code != 0 || !strings.Contains(v1, "second version") {
		t.Fatalf("version 2 of mara after the import: exit %d, %q", code, v1)
	}
	// Import again: everything unchanged, nothing written.
	_, stderr, code = runCLI(t, first, "--store", dst, "import", "-")
	if code != 0 || !strings.Contains(stderr, " 0 added, 0 updated, ") {
		t.Fatalf("re-import: exit %d, summary %q: want nothing added or updated", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "--store", dst, "check"); code != 0 {
		t.Fatalf("check after round trip: exit %d: %s", code, stderr)
	}
}

// firstDiff returns a little of a from where a and b first differ.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-40):min(len(a), i+40)]
}

func TestImportIsAllOrNothing(t *testing.T) {
	dir := newStore(t)
	in := filepath.Join(t.TempDir(), "in.jsonl")
	data := `{"id":"good-1","body":"fine"}
{"id":"","body":"no id"}
{"id":"good-2","body":"fine"
{"ns":"Bad NS","id":"x"}
`
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "--store", dir, "import", in)
	if code != exitError {
		t.Fatalf("import with bad lines: exit %d, want 1", code)
	}
	for _, want := range []string{in + ":2", in + ":3", in + ":4", "nothing imported"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not name %q", stderr, want)
		}
	}
	out, _, _ := runCLI(t, "", "--store", dir, "ls")
	if out != "" {
		t.Fatalf("after a refused import, ls shows %q: want nothing written", out)
	}
	_, stderr, code = runCLI(t, "", "--store", dir, "import", "--skip-bad", in)
	if code != exitError || !strings.Contains(stderr, "1 added") {
		t.Fatalf("--skip-bad: exit %d, stderr %q: want the good line imported and exit 1 for the skipped ones", code, stderr)
	}
	out, _, _ = runCLI(t, "", "--store", dir, "ls")
	if !strings.Contains(out, "good-1") {
		t.Fatalf("after --skip-bad, ls = %q, want good-1", out)
	}
}

// TestLibraryLog: a message a library logs reaches stderr once, as a
// warning, with the repair for a damaged index snapshot.
func TestLibraryLog(t *testing.T) {
	var b strings.Builder
	l := &libraryLog{w: &b}
	logger := log.New(l, "", 0)
	for range 3 {
		logger.Printf("unable to load snapshot, failed to load segment: bad, continuing")
	}
	logger.Printf("something else")
	want := "warning: index: unable to load snapshot, failed to load segment: bad, continuing (the index is damaged; it is derived from the store: `lore reindex` rebuilds it)\n" +
		"warning: index: something else\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// A copy of the store's content (backup, export -o) is no easier to read
// than the store: it takes the mode of lore.bolt (0600); a pack of a
// directory's files is 0644.
func TestOutputModes(t *testing.T) {
	dir := newStore(t)
	if _, stderr, code := runCLI(t, "", "--store", dir, "put", "--ns", "n", "--body", "secret", "r"); code != 0 {
		t.Fatalf("put: %s", stderr)
	}
	out := t.TempDir()
	src := filepath.Join(out, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		file string
		want os.FileMode
	}{
		{[]string{"backup", filepath.Join(out, "b.bolt")}, "b.bolt", 0o600},
		{[]string{"export", "-o", filepath.Join(out, "x.jsonl")}, "x.jsonl", 0o600},
		{[]string{"pack", src, "-o", filepath.Join(out, "p.md")}, "p.md", 0o644},
	} {
		if _, stderr, code := runCLI(t, "", append([]string{"--store", dir}, c.args...)...); code != 0 && code != exitDeferred {
			t.Fatalf("%s: exit %d: %s", c.args[0], code, stderr)
		}
		fi, err := os.Stat(filepath.Join(out, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != c.want {
			t.Errorf("%s wrote %s with mode %o, want %o", c.args[0], c.file, got, c.want)
		}
	}
}
