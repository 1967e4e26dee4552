package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
)

// Conformance runs the store contract (store.Backend) against stores
// that open gives: versions and history cap, links both ways, namespace
// walls, all-or-nothing batches, a change log that only grows (gaps
// allowed, never assumed away), and concurrent writers losing nothing.
// Each backend's package calls it with its Opener.
func Conformance(t *testing.T, open Opener) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"PutGetVersions", conformPut},
		{"HistoryCap", conformHistoryCap},
		{"Links", conformLinks},
		{"NamespaceWalls", conformWalls},
		{"DeleteCascade", conformDelete},
		{"PutManyAllOrNothing", conformPutMany},
		{"ChangeLog", conformChanges},
		{"ConcurrentWriters", conformConcurrent},
		{"ListRecentStats", conformList},
		{"Names", conformNames},
		{"SecondaryKeys", conformSecondary},
		{"DueKeys", conformDue},
		{"NameKeys", conformNameKeys},
		{"Vectors", conformVectors},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer catch(t)
			c.fn(t, open)
		})
	}
}

// failed carries an unexpected error from must to the subtest, which
// fails with it: must's callers read as plain expressions.
type failed struct{ err error }

func must[T any](v T, err error) T {
	if err != nil {
		panic(failed{err})
	}
	return v
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(failed{err})
	}
	return a, b
}

// catch turns a must failure into t.Fatal; other panics go on.
func catch(t *testing.T) {
	if r := recover(); r != nil {
		f, ok := r.(failed)
		if !ok {
			panic(r)
		}
		t.Fatalf("unexpected error: %v", f.err)
	}
}

func conformPut(t *testing.T, open Opener) {
	s := open(t, nil)
	r := store.Record{NS: "n", ID: "x", Kind: "fact", Title: "T", Body: "first body", Tags: []string{"b", "a", "b"}}
	res := must(s.Put(r))
	if res.Status != store.StatusAdded || res.Version != 1 || res.Seq == 0 {
		t.Fatalf("first put: %+v; want added, version 1, a sequence number", res)
	}
	if again := must(s.Put(r)); again.Status != store.StatusUnchanged || again.Version != 1 || again.Seq != 0 {
		t.Errorf("identical put: %+v; want unchanged, version 1, seq 0", again)
	}
	got := must(s.Get("n", "x"))
	if got.Body != "first body" || !slices.Equal(got.Tags, []string{"a", "b"}) || got.Version != 1 {
		t.Errorf("get: %+v", got)
	}
	if h := must(s.Head("n", "x")); h.Body != "" || h.BodyBytes != len("first body") {
		t.Errorf("head: body %q, body bytes %d; want none and %d", h.Body, h.BodyBytes, len("first body"))
	}
	r.Body = "second body"
	if up := must(s.Put(r)); up.Status != store.StatusUpdated || up.Version != 2 || up.Seq <= res.Seq {
		t.Errorf("changed put: %+v; want updated, version 2, seq above %d", up, res.Seq)
	}
	if v1 := must(s.GetVersion("n", "x", 1)); v1.Body != "first body" {
		t.Errorf("version 1 body %q", v1.Body)
	}
	h := must(s.History("n", "x"))
	if len(h) != 2 || h[0].Version != 1 || h[1].Version != 2 || h[1].Body != "second body" {
		t.Errorf("history: %d versions %+v", len(h), h)
	}
	if _, err := s.Get("n", "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get missing: %v; want ErrNotFound", err)
	}
	if _, err := s.Put(store.Record{NS: "Bad NS", ID: "x"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("put bad namespace: %v; want ErrInvalid", err)
	}
}

func conformHistoryCap(t *testing.T, open Opener) {
	s := open(t, &store.Options{HistoryCap: 3})
	for i := 1; i <= 6; i++ {
		must(s.Put(store.Record{NS: "n", ID: "x", Body: fmt.Sprint("v", i)}))
	}
	h := must(s.History("n", "x"))
	var vs []int
	for _, r := range h {
		vs = append(vs, r.Version)
	}
	if !slices.Equal(vs, []int{3, 4, 5, 6}) {
		t.Errorf("history versions %v; want [3 4 5 6] (cap 3 plus current)", vs)
	}
	if _, err := s.GetVersion("n", "x", 2); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("evicted version 2: %v; want ErrNotFound", err)
	}
	if st := must(s.Stats("n")); st.Versions != 3 {
		t.Errorf("stats versions %d; want 3", st.Versions)
	}
}

func conformLinks(t *testing.T, open Opener) {
	s := open(t, nil)
	for _, id := range []string{"a", "b", "c", "d"} {
		must(s.Put(store.Record{NS: "n", ID: id}))
	}
	for _, l := range []store.Link{{NS: "n", From: "a", Rel: "knows", To: "b", Weight: 0.5}, {NS: "n", From: "b", Rel: "knows", To: "c"}, {NS: "n", From: "d", Rel: "owns", To: "a"}} {
		if !must(s.Link(l)) {
			t.Fatalf("link %+v reported unchanged", l)
		}
	}
	if must(s.Link(store.Link{NS: "n", From: "a", Rel: "knows", To: "b", Weight: 0.5})) {
		t.Errorf("same link again reported changed")
	}
	if out := must(s.Links("n", "a", store.Out)); len(out) != 1 || out[0].To != "b" || out[0].Weight != 0.5 {
		t.Errorf("out links of a: %+v", out)
	}
	if in := must(s.Links("n", "a", store.In)); len(in) != 1 || in[0].From != "d" {
		t.Errorf("in links of a: %+v", in)
	}
	nb := must(s.Neighbors("n", "a", 2, nil))
	var got []string
	for _, n := range nb {
		got = append(got, fmt.Sprint(n.ID, n.Hops))
	}
	if !slices.Equal(got, []string{"b1", "d1", "c2"}) {
		t.Errorf("neighbours of a in 2 hops: %v; want [b1 d1 c2]", got)
	}
	if nb := must(s.Neighbors("n", "a", 2, []string{"owns"})); len(nb) != 1 || nb[0].ID != "d" {
		t.Errorf("neighbours by owns: %+v", nb)
	}
	// NeighborsOf gives each id what Neighbors at one hop gives it.
	many := must(s.NeighborsOf("n", []string{"a", "b", "zz"}, nil))
	for _, id := range []string{"a", "b"} {
		if one := must(s.Neighbors("n", id, 1, nil)); !slices.Equal(many[id], one) {
			t.Errorf("NeighborsOf %s: %+v; Neighbors gives %+v", id, many[id], one)
		}
	}
	if nb, ok := many["zz"]; ok || len(many) != 2 {
		t.Errorf("NeighborsOf: an id without links maps to %+v; %d ids mapped, want 2", nb, len(many))
	}
	if _, err := s.NeighborsOf("n", []string{"a", ""}, nil); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("NeighborsOf with an empty id: %v; want ErrInvalid", err)
	}
	if err := s.Unlink("n", "a", "knows", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Unlink("n", "a", "knows", "b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unlink twice: %v; want ErrNotFound", err)
	}
	if in := must(s.Links("n", "b", store.In)); len(in) != 0 {
		t.Errorf("after unlink, b still has in links %+v", in)
	}
}

func conformWalls(t *testing.T, open Opener) {
	s := open(t, nil)
	for _, ns := range []string{"a", "a/b", "ab"} {
		must(s.Put(store.Record{NS: ns, ID: "x", Body: ns}))
		must(s.Put(store.Record{NS: ns, ID: "y", Body: ns}))
		must(s.Link(store.Link{NS: ns, From: "x", Rel: "r", To: "y"}))
	}
	heads, _ := must2(s.List(store.ListOptions{NS: "a"}))
	if len(heads) != 2 || heads[0].NS != "a" || heads[1].NS != "a" {
		t.Errorf("list a: %+v; want a's two records only", heads)
	}
	if ns := must(s.Namespaces()); !slices.Equal(ns, []string{"a", "a/b", "ab"}) {
		t.Errorf("namespaces %v", ns)
	}
	if nb := must(s.Neighbors("a", "x", 2, nil)); len(nb) != 1 || nb[0].ID != "y" {
		t.Errorf("neighbours in a: %+v", nb)
	}
	var n int
	if err := s.ForEach("a", func(r store.Record) error {
		if r.NS != "a" {
			t.Errorf("ForEach a gave %s/%s", r.NS, r.ID)
		}
		n++
		return nil
	}); err != nil || n != 2 {
		t.Errorf("ForEach a: %d records, %v", n, err)
	}
	if st := must(s.Stats("a")); st.Records != 2 || st.Links != 1 {
		t.Errorf("stats a: %+v", st)
	}
}

func conformDelete(t *testing.T, open Opener) {
	s := open(t, nil)
	must(s.Put(store.Record{NS: "n", ID: "x", Body: "one"}))
	must(s.Put(store.Record{NS: "n", ID: "x", Body: "two"}))
	must(s.Put(store.Record{NS: "n", ID: "y"}))
	must(s.Link(store.Link{NS: "n", From: "x", Rel: "r", To: "y"}))
	must(s.Link(store.Link{NS: "n", From: "y", Rel: "r", To: "x"}))
	if err := s.Delete("n", "x", true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("n", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get deleted: %v", err)
	}
	if ls := must(s.Links("n", "y", store.Both)); len(ls) != 0 {
		t.Errorf("links of y after cascade: %+v", ls)
	}
	if err := s.Delete("n", "x", true); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete twice: %v; want ErrNotFound", err)
	}
	if st := must(s.Stats("")); st.Records != 1 || st.Versions != 0 || st.Links != 0 {
		t.Errorf("stats after delete: %+v", st)
	}
}

func conformPutMany(t *testing.T, open Opener) {
	s := open(t, nil)
	must(s.Put(store.Record{NS: "n", ID: "keep", Body: "old"}))
	before := must(s.LastSeq())
	recs := []store.Record{{NS: "n", ID: "keep", Body: "new"}, {NS: "n", ID: "b"}, {NS: "n", ID: "\x01bad"}}
	links := []store.Link{{NS: "n", From: "keep", Rel: "r", To: "b"}}
	if _, err := s.PutMany(recs, links); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("batch with a bad id: %v; want ErrInvalid", err)
	}
	if got := must(s.Get("n", "keep")); got.Body != "old" {
		t.Errorf("failed batch changed keep to %q", got.Body)
	}
	if after := must(s.LastSeq()); after != before {
		t.Errorf("failed batch moved the change log from %d to %d", before, after)
	}
	res := must(s.PutMany(recs[:2], links))
	if len(res) != 2 || res[0].Status != store.StatusUpdated || res[1].Status != store.StatusAdded {
		t.Errorf("good batch: %+v", res)
	}
	if ls := must(s.Links("n", "b", store.In)); len(ls) != 1 {
		t.Errorf("batch link missing: %+v", ls)
	}
}

func conformChanges(t *testing.T, open Opener) {
	s := open(t, nil)
	if seq := must(s.LastSeq()); seq != 0 {
		t.Errorf("new store last seq %d; want 0", seq)
	}
	var seqs []uint64
	for i := range 5 {
		r := must(s.Put(store.Record{NS: "n", ID: fmt.Sprint("r", i)}))
		seqs = append(seqs, r.Seq)
	}
	must(s.Put(store.Record{NS: "n", ID: "r0"})) // unchanged: no entry
	if err := s.SetTokens("n", "r1", "other", store.TokenCount{Body: 3}); err != nil {
		t.Fatal(err)
	}
	must(s.Link(store.Link{NS: "n", From: "r0", Rel: "r", To: "r1"}))
	if err := s.Delete("n", "r2", false); err != nil {
		t.Fatal(err)
	}
	all := must(s.Changes(0, 0))
	var ops []string
	for i, c := range all {
		ops = append(ops, string(c.Op)+":"+c.ID)
		if i > 0 && c.Seq <= all[i-1].Seq {
			t.Errorf("change %d seq %d does not grow past %d", i, c.Seq, all[i-1].Seq)
		}
	}
	want := []string{"put:r0", "put:r1", "put:r2", "put:r3", "put:r4", "link:r0", "delete:r2"}
	if !slices.Equal(ops, want) {
		t.Fatalf("change log %v; want %v", ops, want)
	}
	for i, seq := range seqs {
		if all[i].Seq != seq {
			t.Errorf("put %d reported seq %d, log has %d", i, seq, all[i].Seq)
		}
	}
	if last := must(s.LastSeq()); last != all[len(all)-1].Seq {
		t.Errorf("last seq %d; log ends at %d", last, all[len(all)-1].Seq)
	}
	// Paging from any watermark gives exactly the rest, whatever the gaps.
	var paged []store.Change
	for wm := uint64(0); ; {
		page := must(s.Changes(wm, 2))
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		wm = page[len(page)-1].Seq
	}
	if !slices.Equal(paged, all) {
		t.Errorf("paged log %v; want %v", paged, all)
	}
	if rest := must(s.Changes(all[4].Seq, 0)); len(rest) != 2 || rest[0].Op != store.OpLink {
		t.Errorf("changes after the fifth put: %+v", rest)
	}
	// A batch's entries may share one seq but are never split by limit.
	must(s.PutMany([]store.Record{{NS: "n", ID: "m1"}, {NS: "n", ID: "m2"}, {NS: "n", ID: "m3"}}, nil))
	last := all[len(all)-1].Seq
	if got := must(s.Changes(last, 1)); len(got) == 0 || got[len(got)-1].Seq == last {
		t.Errorf("changes after %d: %+v", last, got)
	} else if rest := must(s.Changes(got[len(got)-1].Seq, 0)); len(got)+len(rest) != 3 {
		t.Errorf("batch of 3 read as %d then %d entries", len(got), len(rest))
	}
}

func conformConcurrent(t *testing.T, open Opener) {
	s := open(t, nil)
	const writers, each = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				// Every put changes the shared record: each must bump it.
				if _, err := s.Put(store.Record{NS: "n", ID: "shared", Body: fmt.Sprint(w, "/", i)}); err != nil {
					errs <- err
				}
				if _, err := s.Put(store.Record{NS: "n", ID: fmt.Sprint("own", w, "-", i)}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := must(s.Head("n", "shared")); got.Version != writers*each {
		t.Errorf("shared record at version %d after %d changing puts: an update was lost", got.Version, writers*each)
	}
	if st := must(s.Stats("n")); st.Records != 1+writers*each {
		t.Errorf("%d records; want %d", st.Records, 1+writers*each)
	}
	puts := 0
	for _, c := range must(s.Changes(0, 0)) {
		if c.Op == store.OpPut {
			puts++
		}
	}
	if puts != 2*writers*each {
		t.Errorf("change log has %d puts; want %d", puts, 2*writers*each)
	}
}

func conformList(t *testing.T, open Opener) {
	s := open(t, nil)
	for i := range 7 {
		kind := "a"
		if i%2 == 1 {
			kind = "b"
		}
		must(s.Put(store.Record{NS: "n", ID: fmt.Sprint("id", i), Kind: kind, Pinned: i == 3}))
	}
	var ids []string
	for after := ""; ; {
		page, next := must2(s.List(store.ListOptions{NS: "n", Limit: 3, After: after}))
		for _, r := range page {
			ids = append(ids, r.ID)
		}
		if next == "" {
			break
		}
		after = next
	}
	if !slices.Equal(ids, []string{"id0", "id1", "id2", "id3", "id4", "id5", "id6"}) {
		t.Errorf("paged list %v", ids)
	}
	if b, _ := must2(s.List(store.ListOptions{NS: "n", Kind: "b"})); len(b) != 3 {
		t.Errorf("kind b: %d records; want 3", len(b))
	}
	if p, _ := must2(s.List(store.ListOptions{NS: "n", Pinned: true})); len(p) != 1 || p[0].ID != "id3" {
		t.Errorf("pinned: %+v", p)
	}
	if rec := must(s.Recent("n", 2)); len(rec) != 2 {
		t.Errorf("recent 2: %+v", rec)
	}
	st := must(s.Stats(""))
	if st.Records != 7 || st.Kinds["a"] != 4 || st.Kinds["b"] != 3 || st.LastSeq == 0 || st.FileBytes <= 0 {
		t.Errorf("stats %+v", st)
	}
}

// conformNames: aliases and keys are stored (a format 2 head), read back
// by Get, List (Named) and NamedHeads, and dropped again.
func conformNames(t *testing.T, open Opener) {
	s := open(t, nil)
	must(s.PutMany([]store.Record{
		{NS: "n", ID: "scene", Kind: "scene", Title: "The Storm", Body: "Sefa came."},
		{NS: "n", ID: "sefa", Kind: "character", Title: "Sefa Dunmore", Aliases: []string{"the surveyor", "Sefa"}, Keys: []string{"chart"}},
		{NS: "n", ID: "cliffs", Kind: "location", Title: "The Needle cliffs"},
		{NS: "m", ID: "sefa", Kind: "character", Aliases: []string{"Sefa"}},
	}, nil))
	got := must(s.Get("n", "sefa"))
	if !slices.Equal(got.Aliases, []string{"Sefa", "the surveyor"}) || !slices.Equal(got.Keys, []string{"chart"}) {
		t.Errorf("Get: aliases %q keys %q", got.Aliases, got.Keys)
	}
	heads, _ := must2(s.List(store.ListOptions{NS: "n", Named: true, NamedKinds: []string{"location"}}))
	named := must(s.NamedHeads("n", []string{"location"}))
	for _, hs := range [][]store.Record{heads, named} {
		if len(hs) != 2 || hs[0].ID != "cliffs" || hs[1].ID != "sefa" || !slices.Equal(hs[1].Aliases, got.Aliases) {
			t.Errorf("named heads = %+v; want cliffs and sefa with its aliases", hs)
		}
	}
	got.Aliases, got.Keys = nil, nil
	if res := must(s.Put(got)); res.Status == store.StatusUnchanged {
		t.Errorf("dropping the names: %+v; want a new version", res)
	}
	if named := must(s.NamedHeads("n", nil)); len(named) != 0 {
		t.Errorf("NamedHeads after the names were dropped = %+v; want none", named)
	}
}

// conformSecondary: List by kind or pinned and Recent, which read
// secondary keys, give what a filter over the whole namespace gives,
// through adds, updates that change kind, pinning, order and time, and
// deletes; and Check finds the keys consistent.
func conformSecondary(t *testing.T, open Opener) {
	s := seedSecondary(t, open)
	all, _ := must2(s.List(store.ListOptions{NS: "n"}))
	checkKindLists(t, s, all)
	checkPinnedAndRecent(t, s, all)
	for _, kind := range []string{"timeline", "scene"} {
		checkOrdered(t, s, all, kind)
	}
	if probs := must(s.Check()); len(probs) != 0 {
		t.Errorf("check: %+v", probs)
	}
}

// seedSecondary fills namespaces n and m with records whose kind, pin
// and order the secondary keys index, several sharing an update time,
// then changes some and deletes others.
func seedSecondary(t *testing.T, open Opener) *store.Store {
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { tick = tick.Add(time.Second); return tick }
	same := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	s := open(t, &store.Options{Now: func() time.Time {
		if tick.Second()%3 == 0 {
			return same // several records share one update time
		}
		return now()
	}})
	for i := range 30 {
		kind := []string{"obligation", "timeline", "scene"}[i%3]
		must(s.Put(store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Kind: kind, Order: int64(i % 7), Pinned: i%4 == 0, Title: "t"}))
		must(s.Put(store.Record{NS: "m", ID: fmt.Sprintf("r%02d", i), Kind: kind, Pinned: true}))
		now()
	}
	for i := 0; i < 30; i += 5 { // change kind, pin, order
		r := must(s.Get("n", fmt.Sprintf("r%02d", i)))
		r.Kind, r.Pinned, r.Order = "timeline", !r.Pinned, r.Order+10
		must(s.Put(r))
	}
	for i := 1; i < 30; i += 7 {
		if err := s.Delete("n", fmt.Sprintf("r%02d", i), true); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func recordIDs(rs []store.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// checkKindLists: listing by kind, whole and in pages, gives what a
// filter over all records gives.
func checkKindLists(t *testing.T, s *store.Store, all []store.Record) {
	t.Helper()
	for _, kind := range []string{"obligation", "timeline", "scene", "none"} {
		var want []store.Record
		for _, r := range all {
			if r.Kind == kind {
				want = append(want, r)
			}
		}
		got, _ := must2(s.List(store.ListOptions{NS: "n", Kind: kind}))
		if !slices.Equal(recordIDs(got), recordIDs(want)) {
			t.Errorf("kind %s: %v; want %v", kind, recordIDs(got), recordIDs(want))
		}
		p1, next := must2(s.List(store.ListOptions{NS: "n", Kind: kind, Limit: 2}))
		p2, _ := must2(s.List(store.ListOptions{NS: "n", Kind: kind, After: next}))
		if len(want) > 2 && !slices.Equal(recordIDs(append(p1, p2...)), recordIDs(want)) {
			t.Errorf("kind %s paged: %v + %v; want %v", kind, recordIDs(p1), recordIDs(p2), recordIDs(want))
		}
	}
}

// checkPinnedAndRecent: the pinned records, and the n most recent (by
// update time, then order, then id), as a walk over all would find them.
func checkPinnedAndRecent(t *testing.T, s *store.Store, all []store.Record) {
	t.Helper()
	var pinned []store.Record
	for _, r := range all {
		if r.Pinned {
			pinned = append(pinned, r)
		}
	}
	if got, _ := must2(s.List(store.ListOptions{NS: "n", Pinned: true})); !slices.Equal(recordIDs(got), recordIDs(pinned)) {
		t.Errorf("pinned: %v; want %v", recordIDs(got), recordIDs(pinned))
	}
	newest := slices.Clone(all)
	slices.SortStableFunc(newest, func(a, b store.Record) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Order, a.Order); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, n := range []int{1, 5, len(all), len(all) + 3} {
		want := newest[:min(n, len(newest))]
		if got := must(s.Recent("n", n)); !slices.Equal(recordIDs(got), recordIDs(want)) {
			t.Errorf("recent %d: %v; want %v", n, recordIDs(got), recordIDs(want))
		}
	}
}

// checkOrdered: the records of kind by order from each position, both
// ways, stopping after three, as a sort of all would give them.
func checkOrdered(t *testing.T, s *store.Store, all []store.Record, kind string) {
	t.Helper()
	for from := int64(-1); from <= 18; from++ {
		for _, back := range []bool{false, true} {
			var want []store.Record
			for _, r := range all {
				if r.Kind == kind && r.Order > 0 && (back && r.Order <= from || !back && r.Order >= from) {
					want = append(want, r)
				}
			}
			slices.SortStableFunc(want, func(a, b store.Record) int {
				if back {
					return cmp.Or(cmp.Compare(b.Order, a.Order), cmp.Compare(a.ID, b.ID))
				}
				return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.ID, b.ID))
			})
			var got []store.Record
			ok := must(s.Ordered("n", kind, from, back, func(r store.Record) bool {
				got = append(got, r)
				return len(got) < 3 // stopping early is honoured
			}))
			if !ok || !slices.Equal(recordIDs(got), recordIDs(want[:min(3, len(want))])) {
				t.Errorf("Ordered(%s, %d, backward %v) = %v, %v; want %v", kind, from, back, ok, recordIDs(got), recordIDs(want[:min(3, len(want))]))
			}
		}
	}
}
