package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/damage"
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
	in := importJSONL(t, dir, b.String())
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
	// Nor into a folder inside the damaged store, directly or through a
	// symlink: nothing is made there.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, inside := range []string{filepath.Join(dir, "rescued"), filepath.Join(link, "rescued", "deeper")} {
		if _, stderr, code := runCLI(t, "", "--store", dir, "check", "--salvage", inside); code != exitError || !strings.Contains(stderr, "inside the damaged store") {
			t.Errorf("salvage into %s: exit %d: %s; want exit 1, refused", inside, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rescued")); err == nil {
		t.Errorf("a refused salvage made %s", filepath.Join(dir, "rescued"))
	}
}

// A store whose newer meta page is damaged is refused by every command,
// read-only ones too, naming the page and the salvage: bbolt would open
// it from the older meta page, with the records of the last import gone,
// and the first write after that would make the loss final.
func TestDamagedMetaPageEveryCommand(t *testing.T) {
	dir := newStore(t)
	var b strings.Builder
	for i := range 58 {
		fmt.Fprintf(&b, `{"ns":"n","id":"r%03d","kind":"canon","title":"Record %d","body":"the lamp burns %d nights."}`+"\n", i, i, i)
	}
	in := importJSONL(t, dir, b.String())
	bolt := filepath.Join(dir, lore.BoltFile)
	full, err := os.ReadFile(bolt)
	if err != nil {
		t.Fatal(err)
	}
	// The meta pages are pages 0 and 1 (bbolt's page size is the OS's,
	// 4,096 here), each a 16-byte page header, then the meta with its
	// txid at byte 48; damage a byte of the newer one.
	const ps = 4096
	txid := func(pg int) uint64 { return binary.LittleEndian.Uint64(full[pg*ps+16+48:]) }
	newer := 0
	if txid(1) > txid(0) {
		newer = 1
	}
	damaged := bytes.Clone(full)
	damaged[newer*ps+16+20] ^= 0xff // the root bucket's page id
	out := t.TempDir()
	for _, args := range [][]string{
		{"ls", "--ns", "n"}, {"stats"}, {"export"}, {"get", "--ns", "n", "r001"}, {"search", "--ns", "n", "lamp"},
		{"packet", "--ns", "n", "--budget", "2k", "lamp"}, {"put", "--ns", "n", "--body", "x", "new"}, {"import", in},
		{"rm", "--ns", "n", "r001"}, {"reindex"}, {"check"}, {"backup", filepath.Join(out, "b.bolt")},
	} {
		if err := os.WriteFile(bolt, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runCLI(t, "", append([]string{"--store", dir}, args...)...)
		want := fmt.Sprintf("its meta page %d is bad", newer)
		if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--salvage") || strings.Contains(stdout, "r001") {
			t.Errorf("%s with meta page %d damaged: exit %d, stderr %q; want exit 1 saying %q and how to salvage, nothing listed", args[0], newer, code, stderr, want)
		}
		if got, _ := os.ReadFile(bolt); !bytes.Equal(got, damaged) {
			t.Errorf("%s with meta page %d damaged: the file was written", args[0], newer)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "b.bolt")); err == nil {
		t.Error("backup copied a store whose meta page is damaged")
	}
	// The salvage reads the pages the older root does not lead to: every
	// record comes back, and the report says the loss cannot be counted.
	rescued := filepath.Join(t.TempDir(), ".lore")
	_, stderr, code := runCLI(t, "", "--store", dir, "check", "--salvage", rescued)
	if code != 0 || !strings.Contains(stderr, "salvaged 58 records") || !strings.Contains(stderr, "an unknown number more") {
		t.Fatalf("check --salvage: exit %d: %s; want all 58 records, the loss unknown", code, stderr)
	}
	stdout, _, code := runCLI(t, "", "--store", rescued, "get", "--ns", "n", "r057")
	if code != 0 || !strings.Contains(stdout, "the lamp burns 57 nights.") {
		t.Errorf("get r057 from the salvaged store: exit %d: %s", code, stdout)
	}
}

// A read-only command on a store whose index has a damaged segment (cut
// to half) never fails for want of the index: get answers from the
// store, and search either answers (the index caught up past the
// damage) or says that `lore reindex` rebuilds the index. After the
// reindex, search and check are clean. bleve's choice of snapshot on such
// an index varies from run to run, so the damage is made several times.
func TestDamagedIndexSegment(t *testing.T) {
	dir := newStore(t)
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"ns":"n","id":"r%03d","kind":"canon","title":"Record %d","body":"the lamp burns %d nights"}`+"\n", i, i, i)
	}
	importJSONL(t, dir, b.String())
	ixDir := filepath.Join(dir, lore.IndexDir)
	pristine := filepath.Join(t.TempDir(), "index")
	if err := os.CopyFS(pristine, os.DirFS(ixDir)); err != nil {
		t.Fatal(err)
	}
	bin := loreBinary(t) // fresh processes: the failures this guards against came and went between them
	runBin := func(args ...string) (string, string, int) { return runBinary(t, bin, dir, args...) }
	for round := range 8 {
		if err := os.RemoveAll(ixDir); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(ixDir, os.DirFS(pristine)); err != nil {
			t.Fatal(err)
		}
		cutLargestSegment(t, filepath.Join(ixDir, "store"))
		if out, errs, code := runBin("get", "--ns", "n", "r007"); code != 0 || !strings.Contains(out, "lamp burns 7 nights") {
			t.Errorf("round %d: get with a damaged index: exit %d, %q, %s; want the record from the store", round, code, out, errs)
		}
		out, errs, code := runBin("search", "--ns", "n", "lamp")
		if code == 0 && !strings.Contains(out, "r0") || code != 0 && (code != exitError || !strings.Contains(errs, "lore reindex")) {
			t.Errorf("round %d: search with a damaged index: exit %d, %q, %s; want hits, or exit 1 naming lore reindex", round, code, out, errs)
		}
	}
	if _, errs, code := runCLI(t, "", "--store", dir, "reindex"); code != 0 {
		t.Fatalf("reindex: exit %d: %s", code, errs)
	}
	if out, errs, code := runCLI(t, "", "--store", dir, "search", "--ns", "n", "lamp"); code != 0 || !strings.Contains(out, "r0") {
		t.Errorf("search after reindex: exit %d, %q, %s", code, out, errs)
	}
	if _, errs, code := runCLI(t, "", "--store", dir, "check"); code != 0 {
		t.Errorf("check after reindex: exit %d: %s", code, errs)
	}
}

// importJSONL writes jsonl to a file, imports its records into the store
// dir, and returns the file's path.
func importJSONL(t *testing.T, dir, jsonl string) string {
	t.Helper()
	in := filepath.Join(t.TempDir(), "recs.jsonl")
	if err := os.WriteFile(in, []byte(jsonl), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "", "--store", dir, "import", in); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	return in
}

// cutLargestSegment truncates the largest bleve segment file in dir to
// half its size.
func cutLargestSegment(t *testing.T, dir string) {
	t.Helper()
	seg, err := damage.Largest(dir, "*.zap")
	if err == nil {
		err = damage.CutHalf(seg)
	}
	if err != nil {
		t.Fatal(err)
	}
}
