package lore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// TestCheckComparesIndexWithStore: an index at the store's watermark that
// lost a record, or holds one the store does not, fails `lore check`
// with the record named; after a reindex the check is clean.
func TestCheckComparesIndexWithStore(t *testing.T) {
	l, dir := openFresh(t)
	ctx := context.Background()
	var recs []store.Record
	for i := range 30 {
		ns := []string{"a", "b/c"}[i%2]
		recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("r%02d", i), Body: "harbour lantern"})
	}
	if _, err := l.PutMany(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	if probs, err := l.Check(); err != nil || len(probs) != 0 {
		t.Fatalf("check of a sound store: %v, %+v", err, probs)
	}
	seq, _ := l.Store().LastSeq()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	// Damage the index behind the store's back, watermark unchanged: one
	// record dropped, one that the store never had added, and 25 more
	// dropped so that the report has to count some of them.
	ix, err := index.Open(filepath.Join(dir, lore.IndexDir), nil)
	if err != nil {
		t.Fatal(err)
	}
	del := []index.Key{{NS: "b/c", ID: "r03"}}
	for i := 4; i < 30; i++ {
		if i != 5 {
			del = append(del, index.Key{NS: []string{"a", "b/c"}[i%2], ID: fmt.Sprintf("r%02d", i)})
		}
	}
	ghost := store.Record{NS: "a", ID: "ghost", Body: "harbour lantern"}
	if err := ix.Apply([]store.Record{ghost}, del, seq); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ro := openAt(t, dir, &lore.Options{ReadOnly: true})
	probs, err := ro.Check()
	ro.Close()
	if err != nil {
		t.Fatal(err)
	}
	var lacks, holds, more int
	for _, p := range probs {
		switch {
		case strings.HasPrefix(p.What, "the index lacks"):
			lacks++
			if p.ID == "" || !strings.Contains(p.What, "lore reindex") {
				t.Errorf("problem %+v: want the record named and the repair", p)
			}
		case strings.HasPrefix(p.What, "the index holds this record"):
			holds++
			if p.NS != "a" || p.ID != "ghost" {
				t.Errorf("extra document reported as %+v; want a/ghost", p)
			}
		case strings.HasPrefix(p.What, "and 6 more records"):
			more++
		default:
			t.Errorf("unexpected problem %+v", p)
		}
	}
	if lacks != 20 || holds != 1 || more != 1 {
		t.Errorf("check named %d missing, %d extra, %d counted lines; want 20 named and 6 more missing, 1 extra:\n%+v", lacks, holds, more, probs)
	}

	rw := openAt(t, dir, nil)
	if err := rw.Reindex(); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	ro = openAt(t, dir, &lore.Options{ReadOnly: true})
	defer ro.Close()
	if probs, err := ro.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check after reindex: %v, %+v", err, probs)
	}
}

// A reindex killed before its rename leaves its build folder beside the
// index: check names it, with its size, as a warning, and the next
// reindex removes it.
func TestCheckNamesLeftoverIndexBuild(t *testing.T) {
	dir := t.TempDir()
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	left := filepath.Join(dir, "."+filepath.Base(lore.IndexDir)+".build-123")
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "seg.zap"), make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	probs, err := l.Check()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range probs {
		found = found || strings.Contains(p.What, left) && strings.Contains(p.What, "4,096 bytes") && p.Severity == store.SeverityWarning
	}
	if !found {
		t.Errorf("check: %+v; want a warning naming %s and its 4,096 bytes", probs, left)
	}
	if err := l.Reindex(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("reindex left %s", left)
	}
}
