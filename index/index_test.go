package index

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
)

func TestOpenCreatesEmpty(t *testing.T) {
	ix, dir := openTemp(t)
	if wm, err := ix.Watermark(); err != nil || wm != 0 {
		t.Errorf("fresh Watermark() = %d, %v; want 0, nil", wm, err)
	}
	if n, err := ix.Count(); err != nil || n != 0 {
		t.Errorf("fresh Count() = %d, %v; want 0, nil", n, err)
	}
	if ix.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", ix.Dir(), dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "index_meta.json")); err != nil {
		t.Errorf("no index_meta.json in the new index: %v", err)
	}
	assertNoTemp(t, filepath.Dir(dir))
}

func TestOpenEmptyDirCreates(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("Open(empty dir): %v", err)
	}
	defer ix.Close()
	mustApply(t, ix, []store.Record{rec("n", "a", "", "hello", "")}, nil, 1)
	if got := search(t, ix, Query{NS: "n", Text: "hello"}); !sameIDs(got, "n:a") {
		t.Errorf("search after create in empty dir = %v", ids(got))
	}
}

func TestApplyPutDeleteReplace(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{
		rec("n", "a", "fact", "river", "the river floods"),
		rec("n", "b", "fact", "river", "the river freezes"),
		rec("m", "a", "fact", "river", "another namespace, same id"),
	}, nil, 1)

	// Replace n:a with new words; delete n:b; delete a key never indexed.
	mustApply(t, ix, []store.Record{rec("n", "a", "fact", "orchard", "apples")},
		[]Key{{"n", "b"}, {"n", "never"}}, 2)
	if got := search(t, ix, Query{NS: "n", Text: "river"}); len(got) != 0 {
		t.Errorf("after replace and delete, river in n = %v, want none", ids(got))
	}
	if got := search(t, ix, Query{NS: "n", Text: "apples"}); !sameIDs(got, "n:a") {
		t.Errorf("after replace, apples in n = %v, want n:a", ids(got))
	}
	if got := search(t, ix, Query{NS: "m", Text: "river"}); !sameIDs(got, "m:a") {
		t.Errorf("delete of n:b touched m: river in m = %v, want m:a", ids(got))
	}
	if n, _ := ix.Count(); n != 2 {
		t.Errorf("Count() = %d, want 2", n)
	}

	// A key both put and deleted in one Apply ends up deleted.
	mustApply(t, ix, []store.Record{rec("n", "c", "", "ghost", "")}, []Key{{"n", "c"}}, 3)
	if got := search(t, ix, Query{NS: "n", Text: "ghost"}); len(got) != 0 {
		t.Errorf("put+delete in one Apply left %v", ids(got))
	}
	// The last of two puts of one key wins.
	mustApply(t, ix, []store.Record{rec("n", "d", "", "first", ""), rec("n", "d", "", "second", "")}, nil, 4)
	if got := search(t, ix, Query{NS: "n", Text: "first second"}); !sameIDs(got, "n:d") {
		t.Errorf("double put = %v, want n:d once", ids(got))
	} else if got := search(t, ix, Query{NS: "n", Text: "first"}); len(got) != 0 {
		t.Errorf("double put: the first version is still indexed")
	}
	if wm, _ := ix.Watermark(); wm != 4 {
		t.Errorf("Watermark() = %d, want 4", wm)
	}
}

func TestApplyInvalid(t *testing.T) {
	ix, _ := openTemp(t)
	mustApply(t, ix, []store.Record{rec("n", "a", "", "kept", "")}, nil, 10)
	tests := []struct {
		name string
		put  []store.Record
		del  []Key
		seq  uint64
	}{
		{"empty ns", []store.Record{rec("", "x", "", "t", "")}, nil, 11},
		{"empty id", []store.Record{rec("n", "", "", "t", "")}, nil, 11},
		{"NUL in id", []store.Record{rec("n", "x\x00y", "", "t", "")}, nil, 11},
		{"NUL in ns", []store.Record{rec("n\x00m", "x", "", "t", "")}, nil, 11},
		{"bad delete key", nil, []Key{{"n", ""}}, 11},
		{"seq backwards", []store.Record{rec("n", "x", "", "t", "")}, nil, 9},
		// The valid first record must not be written either.
		{"bad record after a good one", []store.Record{rec("n", "good", "", "t", ""), rec("n", "", "", "t", "")}, nil, 11},
	}
	for _, tt := range tests {
		err := ix.Apply(tt.put, tt.del, tt.seq)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Apply error = %v, want ErrInvalid", tt.name, err)
		}
	}
	if wm, _ := ix.Watermark(); wm != 10 {
		t.Errorf("after refused Applies, Watermark() = %d, want 10", wm)
	}
	if n, _ := ix.Count(); n != 1 {
		t.Errorf("after refused Applies, Count() = %d, want 1", n)
	}
	// Same seq again is allowed (a re-applied change).
	mustApply(t, ix, nil, nil, 10)
}

func TestWatermarkPersistsAcrossReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// More records than one sub-batch holds: the watermark rides in the last.
	recs := genRecords("n", maxBatchDocs+500)
	mustApply(t, ix, recs, nil, 41)
	mustApply(t, ix, nil, []Key{{"n", recs[0].ID}}, 42)
	if err := ix.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := ix.Watermark(); !errors.Is(err, ErrClosed) {
		t.Errorf("Watermark after Close: %v, want ErrClosed", err)
	}

	for _, ro := range []bool{false, true} {
		ix, err := Open(dir, &Options{ReadOnly: ro})
		if err != nil {
			t.Fatalf("reopen (read-only %v): %v", ro, err)
		}
		if wm, err := ix.Watermark(); err != nil || wm != 42 {
			t.Errorf("reopened (read-only %v) Watermark() = %d, %v; want 42", ro, wm, err)
		}
		if n, _ := ix.Count(); n != uint64(len(recs)-1) {
			t.Errorf("reopened (read-only %v) Count() = %d, want %d", ro, n, len(recs)-1)
		}
		last := recs[len(recs)-1]
		got := search(t, ix, Query{NS: "n", Text: last.Title, Tags: last.Tags[:1], Kinds: []string{last.Kind}, Limit: 1000})
		if !containsID(got, last.ID) {
			t.Errorf("reopened (read-only %v): last record %s not found", ro, last.ID)
		}
		if containsID(search(t, ix, Query{NS: "n", Text: recs[0].Title, Limit: 5000}), recs[0].ID) {
			t.Errorf("reopened (read-only %v): deleted record %s found", ro, recs[0].ID)
		}
		ix.Close()
	}
}

func containsID(hits []Hit, id string) bool {
	for _, h := range hits {
		if h.ID == id {
			return true
		}
	}
	return false
}

// TestApplyDurableWithoutClose applies in a child process that exits
// without closing the index (as a crash would), then checks that what Apply
// acknowledged is there, documents and watermark together.
func TestApplyDurableWithoutClose(t *testing.T) {
	if dir := os.Getenv("LORE_INDEX_CRASH_DIR"); dir != "" {
		ix, err := Open(dir, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := ix.Apply(genRecords("n", 300), nil, 7); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if err := ix.Apply([]store.Record{rec("n", "late", "", "afterthought", "")}, []Key{{"n", "rec-000000"}}, 9); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0) // no Close: the persister is cut off mid-flight
	}
	dir := filepath.Join(t.TempDir(), "index")
	cmd := exec.Command(os.Args[0], "-test.run=^TestApplyDurableWithoutClose$")
	cmd.Env = append(os.Environ(), "LORE_INDEX_CRASH_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatalf("open after crash: %v", err)
	}
	defer ix.Close()
	if wm, _ := ix.Watermark(); wm != 9 {
		t.Errorf("after crash Watermark() = %d, want 9", wm)
	}
	if n, _ := ix.Count(); n != 300 {
		t.Errorf("after crash Count() = %d, want 300", n)
	}
	if got := search(t, ix, Query{NS: "n", Text: "afterthought"}); !sameIDs(got, "n:late") {
		t.Errorf("after crash, the last put = %v, want n:late", ids(got))
	}
}

func TestReadOnlyMissing(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "nope")
	for _, missing := range []string{gone, t.TempDir()} {
		_, err := Open(missing, &Options{ReadOnly: true})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("read-only Open(%s) error = %v, want ErrNotFound", missing, err)
		}
		if !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "rebuilt from it") {
			t.Errorf("error %q should name %s and say the index can be rebuilt", err, missing)
		}
		if entries, _ := os.ReadDir(missing); len(entries) > 0 {
			t.Errorf("read-only Open wrote into %s", missing)
		}
	}
	if _, err := os.Stat(gone); err == nil {
		t.Errorf("read-only Open created the missing directory")
	}
}

func TestReadOnlySideBySide(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, w, genRecords("n", 50), nil, 5)

	// While the writer is open, a reader waits for the lock and gives up.
	short := &Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond}
	if _, err := Open(dir, short); !errors.Is(err, ErrLocked) {
		t.Fatalf("read-only Open beside a writer: error = %v, want ErrLocked", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r1, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("first read-only Open: %v", err)
	}
	defer r1.Close()
	r2, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("second read-only Open beside the first: %v", err)
	}
	defer r2.Close()
	q := Query{NS: "n", Text: "dragon castle"}
	h1, h2 := search(t, r1, q), search(t, r2, q)
	if len(h1) == 0 || strings.Join(ids(h1), ",") != strings.Join(ids(h2), ",") {
		t.Errorf("two readers disagree or find nothing: %v vs %v", ids(h1), ids(h2))
	}
	if err := r1.Apply(genRecords("n", 1), nil, 6); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Apply on a read-only index: error = %v, want ErrReadOnly", err)
	}
	// A writer cannot open while readers hold the lock.
	if _, err := Open(dir, &Options{LockTimeout: 50 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Errorf("writer Open beside readers: error = %v, want ErrLocked", err)
	}
}

func TestOpenBadDirs(t *testing.T) {
	good := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "index")
		ix, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustApply(t, ix, genRecords("n", 20), nil, 3)
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T) string
		wantErr error
	}{
		{"foreign files", func(t *testing.T) string {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
			return dir
		}, ErrCorrupt},
		{"meta corrupt", func(t *testing.T) string {
			dir := good(t)
			os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte("{nope"), 0o644)
			return dir
		}, ErrCorrupt},
		{"meta of another index type", func(t *testing.T) string {
			dir := good(t)
			os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte(`{"storage":"boltdb","index_type":"upside_down"}`), 0o644)
			return dir
		}, ErrCorrupt},
		{"root.bolt garbage", func(t *testing.T) string {
			dir := good(t)
			os.WriteFile(filepath.Join(dir, "store", "root.bolt"), []byte(strings.Repeat("garbage!", 1024)), 0o644)
			return dir
		}, ErrCorrupt},
		{"a file, not a dir", func(t *testing.T) string {
			f := filepath.Join(t.TempDir(), "index")
			os.WriteFile(f, []byte("x"), 0o644)
			return f
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t)
			for _, ro := range []bool{false, true} {
				ix, err := Open(dir, &Options{ReadOnly: ro})
				if err == nil {
					ix.Close()
					t.Fatalf("Open(%s, read-only %v) succeeded", dir, ro)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("Open(read-only %v) error = %v, want %v", ro, err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), dir) {
					t.Errorf("error %q does not name %s", err, dir)
				}
				if errors.Is(err, ErrCorrupt) && !strings.Contains(err.Error(), "rebuilt from it") {
					t.Errorf("error %q does not say the index can be rebuilt", err)
				}
			}
		})
	}
}

// TestOpenLostSegments deletes the segment files under a closed index.
// Scorch then falls back to an older snapshot it can load; whatever it
// loads, documents and watermark must agree (never a watermark claiming
// records the index lost), or Open must fail with ErrCorrupt.
func TestOpenLostSegments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, ix, genRecords("n", 20), nil, 3)
	ix.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if len(segs) == 0 {
		t.Fatalf("no segment files in %s", dir)
	}
	for _, s := range segs {
		os.Remove(s)
	}
	ix, err = Open(dir, nil)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open after losing segments: %v, want ErrCorrupt or success", err)
		}
		return
	}
	defer ix.Close()
	wm, _ := ix.Watermark()
	n, _ := ix.Count()
	if wm >= 3 && n != 20 || wm < 3 && n != 0 {
		t.Errorf("after losing segments: watermark %d with %d documents; want 3 with 20 or 0 with 0", wm, n)
	}
}

func TestOpenInvalidOptions(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "i"), &Options{LockTimeout: -time.Second}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative LockTimeout: error = %v, want ErrInvalid", err)
	}
	if _, err := Open("", nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty dir: error = %v, want ErrInvalid", err)
	}
}

func TestClosedIndex(t *testing.T) {
	ix, _ := openTemp(t)
	ix.Close()
	if err := ix.Apply(nil, nil, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply after Close: %v, want ErrClosed", err)
	}
	if _, err := ix.Count(); !errors.Is(err, ErrClosed) {
		t.Errorf("Count after Close: %v, want ErrClosed", err)
	}
	if _, err := ix.Search(t.Context(), Query{NS: "n"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close: %v, want ErrClosed", err)
	}
}

func assertNoTemp(t *testing.T, parent string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".build-") {
			t.Errorf("temporary directory left behind: %s", filepath.Join(parent, e.Name()))
		}
	}
}

// TestApplyParallelRepeats: an Apply large enough for batches in flight,
// holding keys put twice (the later version must win, though the two may
// go in different batches) and keys both put and deleted (gone).
func TestApplyParallelRepeats(t *testing.T) {
	ix, _ := openTemp(t)
	recs := genRecords("n", 4*parallelMinDocs)
	first, again := recs[3], recs[3]
	first.Title, again.Title = "zeppelin", "quartermaster"
	recs[3] = first
	put := append(recs, again)
	del := []Key{{"n", recs[10].ID}, {"n", recs[len(recs)-1].ID}}
	mustApply(t, ix, put, del, 9)
	if n, err := ix.Count(); err != nil || n != uint64(len(recs)-len(del)) {
		t.Errorf("Count() = %d, %v; want %d", n, err, len(recs)-len(del))
	}
	if hits := search(t, ix, Query{NS: "n", Text: "zeppelin", Limit: 10}); len(hits) != 0 {
		t.Errorf("search for the earlier title: %v; want nothing (the later version replaced it)", ids(hits))
	}
	if hits := search(t, ix, Query{NS: "n", Text: "quartermaster", Limit: 10}); !containsID(hits, first.ID) {
		t.Errorf("search for the later title: %v; want %s", ids(hits), first.ID)
	}
	hits := search(t, ix, Query{NS: "n", Text: "dragon castle river", Limit: 5000})
	for _, k := range del {
		if containsID(hits, k.ID) {
			t.Errorf("deleted %s is found", k.ID)
		}
	}
	if wm, err := ix.Watermark(); err != nil || wm != 9 {
		t.Errorf("Watermark() = %d, %v; want 9", wm, err)
	}
}
