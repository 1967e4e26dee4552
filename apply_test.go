package lore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store"
)

// linkedBatch returns n records of namespace ns, ids prefix0..prefixN-1,
// each linked to the next three, so the change log holds three link
// changes for every record change.
func linkedBatch(ns, prefix string, n int, word string) ([]store.Record, []store.Link) {
	var recs []store.Record
	var links []store.Link
	for i := range n {
		id := fmt.Sprint(prefix, i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "note", Body: fmt.Sprintf("%s number %d", word, i)})
		for j := 1; j <= 3; j++ {
			links = append(links, store.Link{NS: ns, From: id, Rel: "next", To: fmt.Sprint(prefix, (i+j)%n)})
		}
	}
	return recs, links
}

// TestIndexCatchesUpPastPagesOfLinks: the index takes in every record of
// writes whose change log is mostly links, across the pages the log is
// read in and past the records one update takes, and ends at the log's
// last change, deletions included.
func TestIndexCatchesUpPastPagesOfLinks(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	recs, links := linkedBatch("n", "a", 2600, "heron")
	if _, err := l.PutMany(ctx, recs, links); err != nil {
		t.Fatal(err)
	}
	// A write of links only, then deletions one at a time, then records
	// with links again.
	_, more := linkedBatch("n", "a", 2600, "heron")
	for i := range more {
		more[i].Rel = "echo"
	}
	if _, err := l.PutMany(ctx, nil, more); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := l.Delete(ctx, "n", fmt.Sprint("a", i*7), true); err != nil {
			t.Fatal(err)
		}
	}
	recs2, links2 := linkedBatch("n", "b", 300, "egret")
	if _, err := l.PutMany(ctx, recs2, links2); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, l) // every record indexed, no ghost, watermark at the end
	wm, err := l.IndexWatermark()
	if err != nil {
		t.Fatal(err)
	}
	last, err := l.Store().LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	if wm != last {
		t.Errorf("index watermark %d, store's last change %d", wm, last)
	}
	for _, q := range []struct{ word, want string }{{"heron 2599", "a2599"}, {"egret 299", "b299"}} {
		if got := searchIDs(t, l, "n", q.word); !slices.Contains(got, q.want) {
			t.Errorf("search %q: %v lacks %s", q.word, got, q.want)
		}
	}
	if got := searchIDs(t, l, "n", "heron 7"); slices.Contains(got, "a7") {
		t.Errorf("search finds a7 after its delete: %v", got)
	}
}

// TestSearchSeesEveryAcknowledgedWrite: writes return while the index
// takes them in, yet a search that starts after a write returns finds it,
// from the writer's goroutine and from others.
func TestSearchSeesEveryAcknowledgedWrite(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := range 25 {
				ns := fmt.Sprint("w", w)
				recs, links := linkedBatch(ns, fmt.Sprint("r", i, "-"), 40, fmt.Sprint("plover", i))
				if _, err := l.PutMany(ctx, recs, links); err != nil {
					t.Error(err)
					return
				}
				if got := searchIDs(t, l, ns, fmt.Sprint("plover", i)); len(got) == 0 {
					t.Errorf("writer %d: search right after write %d finds nothing", w, i)
				}
			}
		})
	}
	wg.Wait()
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, l)
}

// TestFailedUpdateIsReported: an index update that fails behind a write
// leaves the write saved, and Flush says the index lags; the next open
// rebuilds the index, which then finds every record.
func TestFailedUpdateIsReported(t *testing.T) {
	l, dir := openFresh(t)
	ctx := context.Background()
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "first", Body: "a curlew calls"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	// The index folder turns into a file: bleve cannot write a segment.
	ixDir := filepath.Join(dir, lore.IndexDir)
	if err := os.RemoveAll(ixDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ixDir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "second", Body: "a curlew answers"}); err != nil {
		t.Logf("put: %v", err) // the update may already have failed
	}
	err := l.Flush()
	if !errors.Is(err, lore.ErrIndexLags) {
		t.Fatalf("flush after a failed update: %v; want an error saying the index lags", err)
	}
	if _, err := l.Get("n", "second"); err != nil {
		t.Errorf("the write whose update failed is not saved: %v", err)
	}
	_ = l.Close() // closing the index may fail too
	if err := os.Remove(ixDir); err != nil {
		t.Fatal(err)
	}
	l = openAt(t, dir, nil)
	defer l.Close()
	got := searchIDs(t, l, "n", "curlew")
	slices.Sort(got)
	if !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("search after reopening: %v; want [first second]", got)
	}
	mustCheck(t, l)
}
