package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
)

// Every command on a store whose lore.bolt is cut short (to 0 bytes, to
// 8 KB, to half) exits 1 with a message naming the file and what is wrong,
// panics or faults never, and writes nothing; check --salvage then gets
// back what is readable.
func TestDamagedStoreEveryCommand(t *testing.T) {
	dir := newStore(t)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, `{"ns":"n","id":"r%03d","kind":"canon","title":"Record %d","body":"%s","links":[{"rel":"mentions","to":"r%03d"}]}`+"\n",
			i, i, strings.Repeat(fmt.Sprintf("the lamp burns %d nights. ", i), 20), (i+1)%300)
	}
	in := filepath.Join(t.TempDir(), "recs.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "", "--store", dir, "import", in); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	bolt := filepath.Join(dir, lore.BoltFile)
	full, err := os.ReadFile(bolt)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	commands := [][]string{
		{"put", "--ns", "n", "--body", "x", "new"}, {"get", "--ns", "n", "r001"}, {"rm", "--ns", "n", "r001"},
		{"ls", "--ns", "n"}, {"link", "--ns", "n", "r001", "mentions", "r002"}, {"unlink", "--ns", "n", "r000", "mentions", "r001"},
		{"neighbors", "--ns", "n", "r001"}, {"import", in}, {"export"}, {"export", "-o", filepath.Join(out, "x.jsonl")},
		{"stats"}, {"search", "--ns", "n", "lamp"}, {"reindex"}, {"check"}, {"backup", filepath.Join(out, "b.bolt")},
		{"packet", "--ns", "n", "--budget", "2k", "lamp"}, {"serve", "--http", "127.0.0.1:0"},
	}
	for _, cut := range []int{0, 8192, len(full) / 2} {
		want := "is truncated"
		if cut == 0 {
			want = "is empty (0 bytes)"
		}
		for _, args := range commands {
			if err := os.WriteFile(bolt, full[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runCLI(t, "", append([]string{"--store", dir}, args...)...)
			if code != exitError || !strings.Contains(stderr, bolt) || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--salvage") {
				t.Errorf("%s on lore.bolt cut to %d bytes: exit %d, stderr %q; want exit 1 naming %s, saying %q and how to salvage", args[0], cut, code, stderr, bolt, want)
			}
			if got, _ := os.ReadFile(bolt); !bytes.Equal(got, full[:cut]) {
				t.Errorf("%s on lore.bolt cut to %d bytes: the file changed to %d bytes; want it left as it was", args[0], cut, len(got))
			}
		}
		for _, f := range []string{"x.jsonl", "b.bolt"} {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				t.Errorf("cut to %d: %s was written from a damaged store", cut, f)
			}
		}
	}
	// Salvage the half store into a new one, which then checks clean.
	rescued := filepath.Join(t.TempDir(), ".lore")
	_, stderr, code := runCLI(t, "", "--store", dir, "check", "--salvage", rescued)
	if code != 0 || !strings.Contains(stderr, "salvaged ") {
		t.Fatalf("check --salvage: exit %d: %s", code, stderr)
	}
	t.Logf("salvage of the half store: %s", strings.TrimSpace(stderr))
	if _, stderr, code := runCLI(t, "", "--store", rescued, "check"); code != 0 {
		t.Errorf("check of the salvaged store: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "--store", dir, "check", "--salvage", rescued); code != exitError || !strings.Contains(stderr, "already holds a store") {
		t.Errorf("salvage into a store: exit %d: %s; want exit 1, refused", code, stderr)
	}
}
