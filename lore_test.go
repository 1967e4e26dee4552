package lore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// openFresh makes a store in a temporary directory and opens it; the
// caller closes it (tests that reopen it their own way).
func openFresh(t *testing.T) (*lore.Lore, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	return openAt(t, dir, nil), dir
}

// openAt opens the store in dir with opts.
func openAt(t *testing.T, dir string, opts *lore.Options) *lore.Lore {
	t.Helper()
	l, err := lore.Open(dir, opts)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	return l
}

// openTemp opens a fresh store in a temporary directory and checks it on
// cleanup: the store's invariants and the index watermark.
func openTemp(t *testing.T) (*lore.Lore, string) {
	t.Helper()
	l, dir := openFresh(t)
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return l, dir
}

func mustCheck(t *testing.T, l *lore.Lore) {
	t.Helper()
	probs, err := l.Check()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("check: %s/%s: %s", p.NS, p.ID, p.What)
	}
}

func searchIDs(t *testing.T, l *lore.Lore, ns, text string) []string {
	t.Helper()
	hits, err := l.Search(context.Background(), index.Query{NS: ns, Text: text})
	if err != nil {
		t.Fatalf("search %q in %q: %v", text, ns, err)
	}
	var ids []string
	for _, h := range hits {
		if h.NS != ns {
			t.Errorf("search in %q returned a record of %q: %s", ns, h.NS, h.ID)
		}
		ids = append(ids, h.ID)
	}
	return ids
}

func TestPutIndexesAndSearchFinds(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "bell", Kind: "canon", Title: "The tide bell", Body: "It rings at slack water."}); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, l, "n", "slack water"); len(got) != 1 || got[0] != "bell" {
		t.Fatalf("search after put = %v, want [bell]", got)
	}
	if err := l.Delete(ctx, "n", "bell", true); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, l, "n", "slack water"); len(got) != 0 {
		t.Fatalf("search after delete = %v, want nothing (a ghost)", got)
	}
	mustCheck(t, l)
}

// A crash after the bbolt commit and before the index write is simulated by
// writing through the store alone: the next open, read-only or not, must
// catch the index up from the change log when it can, so search finds the
// record.
func TestCrashBetweenCommitAndIndexWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "gone", Body: "lantern oil"}); err != nil {
		t.Fatal(err)
	}
	// The put is indexed behind it (index_behind.go), from the change log:
	// an update step that started after the two writes below would index
	// them too, and the index would not lag (85 runs in 300 on a busy
	// machine). Flush waits until that update is done.
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	// Committed in bbolt, never indexed: a put and a delete.
	if _, err := l.Store().Put(store.Record{NS: "n", ID: "late", Body: "harbour lantern"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Store().Delete("n", "gone", false); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	// While another reader holds the index, a read-only open cannot take
	// its write lock: it answers flagged as unchecked, with no ghost.
	other, err := index.Open(filepath.Join(dir, lore.IndexDir), &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ro.Stale() {
		t.Errorf("read-only open of a lagging index held by another reader: Stale() = false, want true")
	}
	// It answers from the store for what the index lacks: the committed
	// record is found, the deleted one is not.
	if got := searchIDs(t, ro, "n", "lantern"); len(got) != 1 || got[0] != "late" {
		t.Errorf("read-only search with the index held elsewhere = %v, want [late]", got)
	}
	p, err := ro.Packet(ctx, packet.Request{NS: "n", Query: "harbour", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 1 || p.Records[0].ID != "late" {
		t.Errorf("read-only packet with the index held elsewhere: %+v; want the committed record late", p.Records)
	}
	if probs, _ := ro.Check(); len(probs) == 0 {
		t.Errorf("check on a lagging index reported nothing")
	}
	ro.Close()
	other.Close()

	// Alone, a read-only open catches the index up itself (it is derived;
	// the bbolt file stays read-only).
	ro, err = lore.Open(dir, &lore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if ro.Stale() {
		t.Errorf("read-only open with the index free: Stale() = true, want it caught up")
	}
	if got := searchIDs(t, ro, "n", "lantern"); len(got) != 1 || got[0] != "late" {
		t.Errorf("read-only search after the catch-up = %v, want [late]", got)
	}
	mustCheck(t, ro)
	ro.Close()

	l, err = lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := searchIDs(t, l, "n", "lantern"); len(got) != 1 || got[0] != "late" {
		t.Fatalf("search after reopen = %v, want [late]", got)
	}
	mustCheck(t, l)
}

func TestReindexRebuildsFromStoreAlone(t *testing.T) {
	l, dir := openTemp(t)
	ctx := context.Background()
	for i := range 30 {
		if _, err := l.Put(ctx, store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Body: fmt.Sprintf("record number %d about gulls", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Reindex(); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, l, "n", "gulls"); len(got) != 20 && len(got) != 30 {
		t.Fatalf("after reindex, search found %d records, want all 30 (or the default limit)", len(got))
	}
	mustCheck(t, l)

	// A destroyed index is rebuilt on the next writable open.
	l.Close()
	if err := os.RemoveAll(filepath.Join(dir, lore.IndexDir)); err != nil {
		t.Fatal(err)
	}
	l2, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if got := searchIDs(t, l2, "n", "r07 gulls"); len(got) == 0 {
		t.Fatalf("after the index folder was removed and the store reopened, search found nothing")
	}
	mustCheck(t, l2)
}

func TestSearchNeverCrossesNamespaces(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	recs := []store.Record{
		{NS: "novel-a", ID: "mara", Kind: "character", Body: "Mara keeps the lighthouse."},
		{NS: "novel-b", ID: "mara", Kind: "character", Body: "Mara keeps the lighthouse too, in another book."},
		{NS: "novel-a/drafts", ID: "mara-draft", Body: "Mara lighthouse draft."},
	}
	if _, err := l.PutMany(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"novel-a", "novel-b", "novel-a/drafts"} {
		if got := searchIDs(t, l, ns, "Mara lighthouse"); len(got) != 1 {
			t.Errorf("search in %s = %v, want exactly its own record", ns, got)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := l.Put(ctx, store.Record{NS: "c", ID: id, Body: "shared word " + id}); err != nil {
					errs <- err
					return
				}
				if _, err := l.Get("c", id); err != nil {
					errs <- err
					return
				}
				if _, err := l.Search(ctx, index.Query{NS: "c", Text: "shared"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := l.Stats("c")
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 80 {
		t.Errorf("records after 8x10 concurrent puts = %d, want 80", st.Records)
	}
	mustCheck(t, l)
}

func TestOpenErrors(t *testing.T) {
	_, err := lore.Open(filepath.Join(t.TempDir(), "missing"), nil)
	if !errors.Is(err, lore.ErrNoStore) {
		t.Errorf("open of a missing dir: err = %v, want ErrNoStore", err)
	}
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	if err := lore.Init(dir); !errors.Is(err, lore.ErrExists) {
		t.Errorf("second init: err = %v, want ErrExists", err)
	}
	if err := os.WriteFile(filepath.Join(dir, lore.ConfigFile), []byte(`{"encodng": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = lore.Open(dir, nil)
	if !errors.Is(err, lore.ErrConfig) || !bytes.Contains([]byte(err.Error()), []byte("encodng")) {
		t.Errorf("open with a typo in lore.json: err = %v, want ErrConfig naming the field", err)
	}
}

// Restoring an older backup leaves an index that is ahead of the store; the
// next open must rebuild it, or search would show records the store lacks.
func TestRestoredBackupRebuildsIndex(t *testing.T) {
	l, dir := openTemp(t)
	ctx := context.Background()
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "old", Body: "harbour bell"}); err != nil {
		t.Fatal(err)
	}
	var backup bytes.Buffer
	if _, err := l.Backup(&backup); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "new", Body: "harbour gull"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := os.WriteFile(filepath.Join(dir, lore.BoltFile), backup.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if got := searchIDs(t, l2, "n", "harbour"); len(got) != 1 || got[0] != "old" {
		t.Fatalf("after restoring the backup, search = %v, want [old]", got)
	}
	mustCheck(t, l2)
}

// The lore.json example in the README is a valid configuration.
func TestReadmeConfigExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const open = "```json\n{\n  \"encoding\""
	i := bytes.Index(readme, []byte(open))
	if i < 0 {
		t.Fatal("README has no lore.json example")
	}
	body := readme[i+len("```json\n"):]
	body = body[:bytes.Index(body, []byte("```"))]
	path := filepath.Join(t.TempDir(), lore.ConfigFile)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := lore.LoadConfig(path)
	if err != nil {
		t.Fatalf("README's lore.json example: %v", err)
	}
	if cfg.Packet.Overflow["canon"] != "fail" || len(cfg.Pack.Priority) == 0 {
		t.Errorf("README's lore.json example loaded as %+v: sections missing", cfg)
	}
}
