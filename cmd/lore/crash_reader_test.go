package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store"
)

// A writer that dies between its bbolt commit and its index update leaves
// the index behind the store: here the records are committed through the
// store alone, which leaves the same files. The next reader (search,
// packet, check, all read-only opens) catches the index up itself, so
// every committed record is found, and check is clean at once.
func TestReaderAfterCrashCatchesUp(t *testing.T) {
	bin := loreBinary(t)
	dir := newStore(t)
	st, err := store.Open(filepath.Join(dir, lore.BoltFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for i := range 2000 {
		recs = append(recs, store.Record{NS: "crash", ID: fmt.Sprintf("r%04d", i), Kind: "memory",
			Body: fmt.Sprintf("the keeper logged tide %d at the breakwater", i)})
	}
	if _, err := st.PutMany(recs, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) { return runBinary(t, bin, dir, args...) }
	out, errs, code := run("search", "--ns", "crash", "--limit", "5000", "breakwater")
	if n := strings.Count(out, "\n"); code != 0 || n != len(recs) {
		t.Fatalf("search after the crash: exit %d, %d hits; want 0 and %d\nstderr: %s", code, n, len(recs), errs)
	}
	if strings.Contains(errs, "unchecked") || strings.Contains(errs, "lag") {
		t.Errorf("search warned although it caught up: %s", errs)
	}
	if _, errs, code := run("check"); code != 0 {
		t.Errorf("check after the catch-up: exit %d: %s", code, errs)
	}
	out, errs, code = run("packet", "--ns", "crash", "--budget", "2000", "tide 1999")
	if code != 0 && code != 2 || !strings.Contains(out, "r1999") {
		t.Errorf("packet after the crash: exit %d, no r1999\n%s\nstderr: %s", code, out, errs)
	}
}
