package storetest_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
	bolt "go.etcd.io/bbolt"
)

// recorder is a testing.TB that keeps failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestOpenChecksOnCleanup(t *testing.T) {
	var path string
	t.Run("healthy", func(t *testing.T) {
		s := storetest.Open(t, nil)
		path = s.Path()
		if _, err := s.Put(store.Record{NS: "a", ID: "x"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Link(store.Link{NS: "a", From: "x", Rel: "r", To: "x"}); err != nil {
			t.Fatal(err)
		}
	})
	if filepath.Base(path) != "lore.bolt" {
		t.Errorf("store path %q; want a lore.bolt in a temp dir", path)
	}
}

func TestCheckFileReportsProblems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(store.Record{NS: "a", ID: "x"})
	s.Link(store.Link{NS: "a", From: "x", Rel: "r", To: "gone"})
	s.Close()

	rec := &recorder{TB: t}
	storetest.CheckFile(rec, path, nil)
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "dangling link") {
		t.Errorf("CheckFile on a store with a dangling link reported %q; want one dangling link", rec.errs)
	}
	rec = &recorder{TB: t}
	storetest.CheckFile(rec, path, nil, func(p store.Problem) bool { return strings.HasPrefix(p.What, "dangling") })
	if len(rec.errs) != 0 {
		t.Errorf("CheckFile with the dangling link ignored reported %q", rec.errs)
	}

	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("links_in")).Delete([]byte("a\x00gone\x00r\x00x"))
	})
	db.Close()
	rec = &recorder{TB: t}
	storetest.CheckFile(rec, path, nil, func(p store.Problem) bool { return strings.HasPrefix(p.What, "dangling") })
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "stored outgoing but not incoming") {
		t.Errorf("CheckFile with one link direction missing reported %q", rec.errs)
	}
}
