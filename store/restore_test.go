package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
)

// TestRestore: records a restore creates keep their stamps and history;
// a record that existed is put as by PutMany, its earlier lines skipped.
func TestRestore(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "n", ID: "old", Body: "mine"})
	t1 := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	t2, t3 := t1.Add(time.Hour), t1.Add(48*time.Hour)
	in := []store.Record{
		{NS: "n", ID: "a", Body: "first", Created: t1, Updated: t1, Version: 2},
		{NS: "n", ID: "a", Body: "second", Created: t1, Updated: t2, Version: 5},
		{NS: "n", ID: "a", Body: "third", Created: t1, Updated: t3, Version: 6},
		{NS: "n", ID: "old", Body: "their past", Created: t1, Updated: t1, Version: 1},
		{NS: "n", ID: "old", Body: "theirs", Created: t1, Updated: t2, Version: 2},
		{NS: "n", ID: "plain", Body: "no stamps"},
	}
	res, err := s.RestoreContext(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []store.PutStatus
	for _, r := range res {
		got = append(got, r.Status)
	}
	want := []store.PutStatus{store.StatusAdded, store.StatusUpdated, store.StatusUpdated, store.StatusUnchanged, store.StatusUpdated, store.StatusAdded}
	if !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	hist, err := s.History("n", "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 {
		t.Fatalf("a has %d versions, want 3", len(hist))
	}
	for i, w := range []struct {
		body    string
		version int
		updated time.Time
	}{{"first", 2, t1}, {"second", 5, t2}, {"third", 6, t3}} {
		h := hist[i]
		if h.Body != w.body || h.Version != w.version || !h.Updated.Equal(w.updated) || !h.Created.Equal(t1) {
			t.Errorf("version %d of a: %q v%d created %v updated %v; want %q v%d created %v updated %v",
				i, h.Body, h.Version, h.Created, h.Updated, w.body, w.version, t1, w.updated)
		}
	}
	old, _ := s.Get("n", "old")
	if old.Body != "theirs" || old.Version != 2 || old.Created.Equal(t1) || old.Updated.Equal(t2) {
		t.Errorf("old: %q v%d created %v updated %v; want theirs as a new version 2 stamped now, not with the input's stamps", old.Body, old.Version, old.Created, old.Updated)
	}
	if oh, _ := s.History("n", "old"); len(oh) != 2 || oh[0].Body != "mine" {
		t.Errorf("old's history %+v: want mine, then theirs (their past skipped)", oh)
	}
	if p, _ := s.Get("n", "plain"); p.Version != 1 || p.Created.IsZero() {
		t.Errorf("plain: v%d created %v; want version 1, stamped now", p.Version, p.Created)
	}

	// A restore keeps the time a link was made (its order); PutMany does not.
	if _, err := s.RestoreContext(context.Background(), nil, []store.Link{
		{NS: "n", From: "a", Rel: "r", To: "old", Made: 50}, {NS: "n", From: "a", Rel: "r", To: "plain", Made: 20}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutMany(nil, []store.Link{{NS: "n", From: "a", Rel: "r", To: "a", Made: 10}}); err != nil {
		t.Fatal(err)
	}
	links, _ := s.Links("n", "a", store.Out)
	made := map[string]int64{}
	for _, l := range links {
		made[l.To] = l.Made
	}
	if len(links) != 3 || made["old"] != 50 || made["plain"] != 20 || made["a"] <= 50 {
		t.Errorf("links %+v: want -> old made at 50, -> plain at 20, -> a (put) after both", links)
	}

	// Versions must increase; nothing is written otherwise.
	seq := lastSeq(t, s)
	_, err = s.RestoreContext(context.Background(), []store.Record{
		{NS: "n", ID: "b", Body: "x", Version: 3}, {NS: "n", ID: "b", Body: "y", Version: 3}}, nil)
	wantErr(t, err, store.ErrInvalid, `version 3 of record "b" comes after version 3`)
	if lastSeq(t, s) != seq {
		t.Error("a refused restore wrote")
	}
}
