package index

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lorekeep/lore/store"
)

// source yields recs the way store.ForEach does.
func source(recs []store.Record) func(func(store.Record) error) error {
	return func(fn func(store.Record) error) error {
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestRebuildSwap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The old index holds a ghost the store no longer has.
	mustApply(t, ix, []store.Record{rec("n", "ghost", "", "phantom", "")}, nil, 90)
	ix.Close()

	fresh := append(genRecords("n", maxBatchDocs+10), rec("m", "x", "fact", "lighthouse", ""))
	if err := Rebuild(dir, source(fresh), 120); err != nil {
		t.Fatalf("Rebuild: %v", err)
	}
	assertNoTemp(t, filepath.Dir(dir))

	ix, err = Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("Open after Rebuild: %v", err)
	}
	defer ix.Close()
	if wm, _ := ix.Watermark(); wm != 120 {
		t.Errorf("Watermark() after Rebuild = %d, want 120", wm)
	}
	if n, _ := ix.Count(); n != uint64(len(fresh)) {
		t.Errorf("Count() after Rebuild = %d, want %d", n, len(fresh))
	}
	if got := search(t, ix, Query{NS: "n", Text: "phantom"}); len(got) != 0 {
		t.Errorf("ghost survived Rebuild: %v", ids(got))
	}
	if got := search(t, ix, Query{NS: "m", Text: "lighthouse"}); !sameIDs(got, "m:x") {
		t.Errorf("after Rebuild, lighthouse in m = %v, want m:x", ids(got))
	}
}

func TestRebuildFailureKeepsOld(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, ix, []store.Record{rec("n", "old", "", "original", "")}, nil, 5)
	ix.Close()

	boom := errors.New("store read failed")
	recs := genRecords("n", maxBatchDocs+10) // fail after a sub-batch was written
	src := func(fn func(store.Record) error) error {
		for i, r := range recs {
			if i == len(recs)-1 {
				return boom
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
	if err := Rebuild(dir, src, 50); !errors.Is(err, boom) {
		t.Fatalf("Rebuild with a failing source: error = %v, want %v", err, boom)
	}
	// A bad record is refused too, and also leaves the old index.
	bad := []store.Record{rec("n", "a", "", "t", ""), rec("", "b", "", "t", "")}
	if err := Rebuild(dir, source(bad), 50); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Rebuild with a bad record: error = %v, want ErrInvalid", err)
	}
	assertNoTemp(t, filepath.Dir(dir))

	ix, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("Open after failed Rebuild: %v", err)
	}
	defer ix.Close()
	if wm, _ := ix.Watermark(); wm != 5 {
		t.Errorf("Watermark() after failed Rebuild = %d, want 5", wm)
	}
	if got := search(t, ix, Query{NS: "n", Text: "original"}); !sameIDs(got, "n:old") {
		t.Errorf("old index damaged by a failed Rebuild: %v", ids(got))
	}
	if n, _ := ix.Count(); n != 1 {
		t.Errorf("Count() after failed Rebuild = %d, want 1", n)
	}
}

func TestRebuildMissingAndStale(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "lore")
	dir := filepath.Join(parent, "index")
	// A crashed build left a temporary directory, with files in it.
	stale := filepath.Join(parent, tmpPrefix(dir)+"123")
	if err := os.MkdirAll(filepath.Join(stale, "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "index", "index_meta.json"), []byte("{}"), 0o644)
	// A neighbour that only looks similar must survive.
	keep := filepath.Join(parent, "index-backup")
	os.MkdirAll(keep, 0o755)

	if err := Rebuild(dir, source(genRecords("n", 3)), 3); err != nil {
		t.Fatalf("Rebuild into a missing dir: %v", err)
	}
	assertNoTemp(t, parent)
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Rebuild removed an unrelated directory: %v", err)
	}
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, _ := ix.Count(); n != 3 {
		t.Errorf("Count() = %d, want 3", n)
	}
	if err := Rebuild(dir, nil, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Rebuild(nil source): %v, want ErrInvalid", err)
	}
}

// TestRebuildCrash kills a child process in the middle of Rebuild (after a
// sub-batch reached disk) and checks the old index is whole; the next build
// clears the leftovers.
func TestRebuildCrash(t *testing.T) {
	if dir := os.Getenv("LORE_INDEX_REBUILD_CRASH_DIR"); dir != "" {
		recs := genRecords("n", maxBatchDocs+100)
		src := func(fn func(store.Record) error) error {
			for i, r := range recs {
				if i == maxBatchDocs+50 {
					os.Exit(0) // crash: no cleanup, no rename
				}
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}
		Rebuild(dir, src, 99)
		os.Exit(4) // not reached
	}
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, ix, []store.Record{rec("n", "old", "", "original", "")}, nil, 5)
	ix.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestRebuildCrash$")
	cmd.Env = append(os.Environ(), "LORE_INDEX_REBUILD_CRASH_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), tmpPrefix(dir)+"*"))
	if len(leftovers) == 0 {
		t.Fatalf("the crashed Rebuild left no temporary directory: did it crash mid-build?")
	}

	ix, err = Open(dir, nil)
	if err != nil {
		t.Fatalf("Open after a crashed Rebuild: %v", err)
	}
	wm, _ := ix.Watermark()
	n, _ := ix.Count()
	hits := search(t, ix, Query{NS: "n", Text: "original"})
	ix.Close()
	if wm != 5 || n != 1 || !sameIDs(hits, "n:old") {
		t.Errorf("after a crashed Rebuild: watermark %d, count %d, hits %v; want the old index (5, 1, [n:old])", wm, n, ids(hits))
	}

	if err := Rebuild(dir, source(genRecords("n", 3)), 6); err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, filepath.Dir(dir))
}
