package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
)

func TestListPaging(t *testing.T) {
	s := newStore(t)
	for i := range 10 {
		kind := "scene"
		if i%3 == 0 {
			kind = "character"
		}
		tags := []string{"all"}
		if i%2 == 0 {
			tags = append(tags, "even")
		}
		mustPut(t, s, store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Kind: kind, Tags: tags, Body: "body"})
	}
	var pages []string
	after := ""
	for {
		heads, next, err := s.List(store.ListOptions{NS: "n", Limit: 4, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range heads {
			if h.Body != "" || h.BodyBytes != 4 {
				t.Errorf("List returned %s with body %q, BodyBytes %d; want no body, 4", h.ID, h.Body, h.BodyBytes)
			}
		}
		pages = append(pages, ids(heads))
		if next == "" {
			break
		}
		after = next
	}
	want := []string{"r00 r01 r02 r03", "r04 r05 r06 r07", "r08 r09"}
	if !reflect.DeepEqual(pages, want) {
		t.Errorf("pages = %q; want %q", pages, want)
	}
	for _, tc := range []struct {
		opts store.ListOptions
		want string
		next string
	}{
		{store.ListOptions{NS: "n", Kind: "character"}, "r00 r03 r06 r09", ""},
		{store.ListOptions{NS: "n", Tag: "even", Kind: "scene"}, "r02 r04 r08", ""},
		{store.ListOptions{NS: "n", Tag: "even", Limit: 2}, "r00 r02", "r02"},
		{store.ListOptions{NS: "n", Kind: "character", After: "r03", Limit: 2}, "r06 r09", ""},
		{store.ListOptions{NS: "n", After: "r09"}, "", ""},
		{store.ListOptions{NS: "other"}, "", ""},
	} {
		heads, next, err := s.List(tc.opts)
		if err != nil || ids(heads) != tc.want || next != tc.next {
			t.Errorf("List(%+v) = %q, next %q, %v; want %q, next %q", tc.opts, ids(heads), next, err, tc.want, tc.next)
		}
	}
	_, _, err := s.List(store.ListOptions{NS: "n", Limit: -1})
	wantErr(t, err, store.ErrInvalid, "limit -1")
	_, _, err = s.List(store.ListOptions{})
	wantErr(t, err, store.ErrInvalid, `namespace ""`)
}

// TestNamespaceWall puts the same ids, names and links into namespaces
// whose names are prefixes of each other, and checks no read crosses.
func TestNamespaceWall(t *testing.T) {
	s := newStore(t)
	nss := []string{"a", "a/b", "ab", "a.b", "a-b"}
	for _, ns := range nss {
		for _, id := range []string{"mara", "mara/2", "lamp"} {
			mustPut(t, s, store.Record{NS: ns, ID: id, Kind: "character", Title: "Mara", Body: "in " + ns, Tags: []string{"pov"}})
		}
		mustLink(t, s, ns, "mara", "keeps", "lamp")
		mustLink(t, s, ns, "lamp", "lit-by", "mara/2")
	}
	got, err := s.Namespaces()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "a-b", "a.b", "a/b", "ab"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Namespaces = %q; want %q", got, want)
	}
	for _, ns := range nss {
		r, err := s.Get(ns, "mara")
		if err != nil || r.Body != "in "+ns || r.NS != ns {
			t.Errorf("Get(%s, mara) = %s %q, %v", ns, r.NS, r.Body, err)
		}
		heads, _, _ := s.List(store.ListOptions{NS: ns, Kind: "character", Tag: "pov"})
		if ids(heads) != "lamp mara mara/2" {
			t.Errorf("List(%s) = %s; want lamp mara mara/2", ns, ids(heads))
		}
		for _, h := range heads {
			if h.NS != ns {
				t.Errorf("List(%s) returned a record of %s", ns, h.NS)
			}
		}
		nb, _ := s.Neighbors(ns, "mara", 2, nil)
		if neighborString(nb) != "1:lamp(keeps) 2:mara/2(lit-by)" {
			t.Errorf("Neighbors(%s, mara, 2) = %s", ns, neighborString(nb))
		}
		for _, n := range nb {
			if n.Via.NS != ns {
				t.Errorf("Neighbors(%s) reached %s via a link of %s", ns, n.ID, n.Via.NS)
			}
		}
		var seen []string
		s.ForEach(ns, func(r store.Record) error {
			seen = append(seen, r.NS+":"+r.ID+":"+r.Body)
			return nil
		})
		want := []string{ns + ":lamp:in " + ns, ns + ":mara:in " + ns, ns + ":mara/2:in " + ns}
		if !reflect.DeepEqual(seen, want) {
			t.Errorf("ForEach(%s) = %q; want %q", ns, seen, want)
		}
		var links []string
		s.ForEachLink(ns, func(l store.Link) error {
			links = append(links, l.NS)
			return nil
		})
		if len(links) != 2 || links[0] != ns || links[1] != ns {
			t.Errorf("ForEachLink(%s) saw links of %q", ns, links)
		}
		st, _ := s.Stats(ns)
		if st.Records != 3 || st.Links != 2 || len(st.Namespaces) != 1 || st.Namespaces[ns] != 3 {
			t.Errorf("Stats(%s) = %+v; want 3 records, 2 links, one namespace", ns, st)
		}
	}
	// Deleting in one namespace leaves the others whole.
	if err := s.Delete("a", "mara", true); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss[1:] {
		if l, _ := s.Links(ns, "mara", store.Both); len(l) != 1 {
			t.Errorf("cascade delete in a removed links of %s: %v", ns, l)
		}
	}
}

func TestForEachAll(t *testing.T) {
	s := newStore(t)
	var want []string
	var recs []store.Record
	for _, ns := range []string{"b", "a"} {
		for i := range 300 { // more than one batch
			id := fmt.Sprintf("%03d", i)
			recs = append(recs, store.Record{NS: ns, ID: id, Body: ns + id})
		}
	}
	if _, err := s.PutMany(recs, nil); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"a", "b"} {
		for i := range 300 {
			want = append(want, fmt.Sprintf("%s/%03d", ns, i))
		}
	}
	var got []string
	err := s.ForEach("", func(r store.Record) error {
		if r.NS != "c" && r.Body != r.NS+r.ID {
			t.Fatalf("ForEach gave %s/%s with body %q", r.NS, r.ID, r.Body)
		}
		got = append(got, r.NS+"/"+r.ID)
		// The callback may write: ForEach holds no transaction.
		if r.ID == "150" {
			if _, err := s.Put(store.Record{NS: "c", ID: "written-during-foreach"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < len(want) || !reflect.DeepEqual(got[:len(want)], want) {
		t.Errorf("ForEach(\"\") gave %d records; want the %d in (ns, id) order", len(got), len(want))
	}
	stop := errors.New("stop")
	n := 0
	err = s.ForEach("a", func(store.Record) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ForEach with a failing callback: err %v after %d calls; want stop after 1", err, n)
	}
}

func mustPutQuiet(t testing.TB, s *store.Store, r store.Record) {
	t.Helper()
	if _, err := s.Put(r); err != nil {
		t.Fatal(err)
	}
}

func TestChangesAndStats(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "n", ID: "a", Kind: "scene"})
	mustPut(t, s, store.Record{NS: "n", ID: "b", Kind: "scene"})
	mustPut(t, s, store.Record{NS: "n", ID: "a", Kind: "scene", Body: "v2"})
	mustPut(t, s, store.Record{NS: "m", ID: "c", Kind: "character"})
	mustLink(t, s, "n", "a", "r", "b")
	if err := s.Unlink("n", "a", "r", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("n", "b", false); err != nil {
		t.Fatal(err)
	}
	all, err := s.Changes(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Change{
		{1, store.OpPut, "n", "a"}, {2, store.OpPut, "n", "b"}, {3, store.OpPut, "n", "a"}, {4, store.OpPut, "m", "c"},
		{5, store.OpLink, "n", "a"}, {6, store.OpUnlink, "n", "a"}, {7, store.OpDelete, "n", "b"},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("Changes(0, 0) =\n %v\nwant\n %v", all, want)
	}
	page, _ := s.Changes(2, 3)
	if !reflect.DeepEqual(page, want[2:5]) {
		t.Errorf("Changes(2, 3) = %v; want %v", page, want[2:5])
	}
	if rest, _ := s.Changes(7, 0); len(rest) != 0 {
		t.Errorf("Changes(7, 0) = %v; want none", rest)
	}
	st, err := s.Stats("")
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 2 || st.Links != 0 || st.Versions != 1 || st.LastSeq != 7 || st.FileBytes <= 0 ||
		!reflect.DeepEqual(st.Namespaces, map[string]int{"n": 1, "m": 1}) ||
		!reflect.DeepEqual(st.Kinds, map[string]int{"scene": 1, "character": 1}) {
		t.Errorf("Stats = %+v", st)
	}
	heads, err := s.Heads("n", []string{"b", "a", "zz", "a"})
	if err != nil || ids(heads) != "a a" {
		t.Errorf("Heads(b, a, zz, a) = %s, %v; want a a (missing skipped, order kept)", ids(heads), err)
	}
	_, err = s.Heads("n", []string{"ok", "bad\x01"})
	wantErr(t, err, store.ErrInvalid, `"bad\x01"`)
	_, err = s.Get("n", "b")
	wantErr(t, err, store.ErrNotFound, `"b"`, `"n"`)
	_, err = s.Head("n", "b")
	wantErr(t, err, store.ErrNotFound)
	_, err = s.History("n", "b")
	wantErr(t, err, store.ErrNotFound)
}

func TestBackup(t *testing.T) {
	s := newStore(t)
	for i := range 50 {
		mustPutQuiet(t, s, store.Record{NS: "n", ID: fmt.Sprintf("r%d", i), Body: strings.Repeat("x", i*10)})
	}
	mustLink(t, s, "n", "r1", "r", "r2")
	// Writers keep going while the backup runs.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 50 {
			mustPutQuiet(t, s, store.Record{NS: "n", ID: fmt.Sprintf("during%d", i)})
		}
	})
	var buf bytes.Buffer
	n, err := s.Backup(&buf)
	wg.Wait()
	if err != nil || n != int64(buf.Len()) || n == 0 {
		t.Fatalf("Backup = %d, %v; buffer %d bytes", n, err, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "copy.bolt")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	storetest.CheckFile(t, path, &store.Options{Counters: []store.Counter{counter(t)}})
	c, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Get("n", "r49")
	if err != nil || r.Body != strings.Repeat("x", 490) {
		t.Errorf("backup Get(r49) = %d bytes, %v", len(r.Body), err)
	}
}

// TestConcurrent runs writers and readers side by side (meant for -race).
func TestConcurrent(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				id := fmt.Sprintf("w%d-%d", w, i)
				mustPutQuiet(t, s, store.Record{NS: "c", ID: id, Body: id})
				if i > 0 {
					mustLink(t, s, "c", id, "after", fmt.Sprintf("w%d-%d", w, i-1))
				}
			}
		})
		wg.Go(func() {
			for range 25 {
				if _, _, err := s.List(store.ListOptions{NS: "c"}); err != nil {
					t.Error(err)
				}
				if _, err := s.Neighbors("c", fmt.Sprintf("w%d-3", w), 2, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	st, _ := s.Stats("c")
	if st.Records != 100 || st.Links != 96 || st.LastSeq != 196 {
		t.Errorf("after concurrent writes: %+v; want 100 records, 96 links, seq 196", st)
	}
}

func TestClosedAndDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != path || s.ReadOnly() {
		t.Errorf("Path %q ReadOnly %v; want %q, false", s.Path(), s.ReadOnly(), path)
	}
	mustPut(t, s, store.Record{NS: "a", ID: "x"})
	r, _ := s.Head("a", "x")
	if r.Created.IsZero() || r.Created.Location() != time.UTC || !r.Created.Equal(r.Updated) {
		t.Errorf("default clock: Created %v Updated %v; want a UTC time, equal on add", r.Created, r.Updated)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Get("a", "x"); err == nil {
		t.Error("Get on a closed store succeeded")
	}
	if _, err := s.Put(store.Record{NS: "a", ID: "y"}); err == nil {
		t.Error("Put on a closed store succeeded")
	}
}
