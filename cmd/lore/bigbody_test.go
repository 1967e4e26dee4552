package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// A --file over the body limit is refused before it is read, with the
// record and the limit named, and nothing is written; a small file is
// stored whole.
func TestPutFileOverLimit(t *testing.T) {
	dir := newStore(t)
	big := filepath.Join(t.TempDir(), "big.md")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the size is over the limit without writing 64 MiB.
	if err := f.Truncate(store.DefaultMaxBodyBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, errs, code := runCLI(t, "", "--store", dir, "put", "--ns", "n", "--file", big, "huge")
	for _, want := range []string{"record n/huge", big, "limit of 67108864 bytes"} {
		if !strings.Contains(errs, want) {
			t.Errorf("put of a file over the limit: stderr %q lacks %q", errs, want)
		}
	}
	if code != 1 {
		t.Errorf("put of a file over the limit: exit %d, want 1", code)
	}
	if out, _, _ := runCLI(t, "", "--store", dir, "ls", "--ns", "n"); strings.Contains(out, "huge") {
		t.Errorf("the refused record was written: %s", out)
	}
	small := filepath.Join(t.TempDir(), "small.md")
	if err := os.WriteFile(small, []byte("the keeper's log"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "", "--store", dir, "put", "--ns", "n", "--file", small, "log"); code != 0 {
		t.Fatalf("put of a small file: exit %d: %s", code, errs)
	}
	if out, _, _ := runCLI(t, "", "--store", dir, "get", "--ns", "n", "log"); !strings.Contains(out, "the keeper's log") {
		t.Errorf("get log: %q; want the file's text", out)
	}
}
