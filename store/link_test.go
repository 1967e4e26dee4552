package store_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
)

func TestLinks(t *testing.T) {
	s := newStore(t)
	for _, id := range []string{"mara", "lamp", "tower", "ship", "sea"} {
		mustPut(t, s, store.Record{NS: "n", ID: id})
	}
	seq := lastSeq(t, s)
	changed, err := s.Link(store.Link{NS: "n", From: "mara", Rel: "keeps", To: "lamp", Weight: 0.5})
	if err != nil || !changed {
		t.Fatalf("Link = %v, %v; want changed", changed, err)
	}
	if changed, _ := s.Link(store.Link{NS: "n", From: "mara", Rel: "keeps", To: "lamp", Weight: 0.5}); changed {
		t.Error("the same link again reported changed")
	}
	if got := lastSeq(t, s); got != seq+1 {
		t.Errorf("LastSeq = %d after one new link and one repeat; want %d", got, seq+1)
	}
	if changed, _ := s.Link(store.Link{NS: "n", From: "mara", Rel: "keeps", To: "lamp", Weight: 0.9}); !changed {
		t.Error("a new weight reported unchanged")
	}
	mustLink(t, s, "n", "lamp", "in", "tower")
	mustLink(t, s, "n", "ship", "sees", "lamp")
	mustLink(t, s, "n", "mara", "fears", "sea")
	mustLink(t, s, "n", "sea", "carries", "ship")

	out, _ := s.Links("n", "lamp", store.Out)
	in, _ := s.Links("n", "lamp", store.In)
	both, _ := s.Links("n", "lamp", store.Both)
	// Made keeps the order the links were made in (keeps, then in, then
	// sees), a new weight keeping the first time.
	if k, i, e := in[0].Made, out[0].Made, in[1].Made; !(0 < k && k < i && i < e) {
		t.Errorf("Made of keeps, in, sees = %d, %d, %d; want increasing in the order they were made", k, i, e)
	}
	for _, list := range [][]store.Link{out, in, both} {
		for i := range list {
			list[i].Made = 0
		}
	}
	wantOut := []store.Link{{NS: "n", From: "lamp", Rel: "in", To: "tower"}}
	wantIn := []store.Link{{NS: "n", From: "mara", Rel: "keeps", To: "lamp", Weight: 0.9}, {NS: "n", From: "ship", Rel: "sees", To: "lamp"}}
	wantBoth := []store.Link{wantOut[0], wantIn[0], wantIn[1]} // by rel: in, keeps, sees
	for _, c := range []struct {
		name      string
		got, want []store.Link
	}{{"Out", out, wantOut}, {"In", in, wantIn}, {"Both", both, wantBoth}} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("Links(lamp, %s) =\n %v\nwant\n %v", c.name, c.got, c.want)
		}
	}

	one, err := s.Neighbors("n", "mara", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := neighborString(one); got != "1:lamp(keeps) 1:sea(fears)" {
		t.Errorf("Neighbors(mara, 1) = %s", got)
	}
	two, _ := s.Neighbors("n", "mara", 2, nil)
	if got := neighborString(two); got != "1:lamp(keeps) 1:sea(fears) 2:ship(sees) 2:tower(in)" {
		t.Errorf("Neighbors(mara, 2) = %s", got)
	}
	filtered, _ := s.Neighbors("n", "mara", 2, []string{"keeps", "in"})
	if got := neighborString(filtered); got != "1:lamp(keeps) 2:tower(in)" {
		t.Errorf("Neighbors(mara, 2, keeps+in) = %s", got)
	}
	// ship is reachable from lamp and from sea; hop-1 records are walked
	// in id order, so lamp's link wins.
	if via := two[2].Via; via.Made == 0 || via != (store.Link{NS: "n", From: "ship", Rel: "sees", To: "lamp", Made: via.Made}) {
		t.Errorf("ship reached via %+v; want ship -sees-> lamp", two[2].Via)
	}
	for _, h := range []int{0, 3} {
		_, err := s.Neighbors("n", "mara", h, nil)
		wantErr(t, err, store.ErrInvalid, fmt.Sprintf("hops %d", h), "1 or 2")
	}

	if err := s.Unlink("n", "mara", "fears", "sea"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, s.Unlink("n", "mara", "fears", "sea"), store.ErrNotFound, `"mara"`, `"sea"`)
	if one, _ := s.Neighbors("n", "mara", 1, nil); neighborString(one) != "1:lamp(keeps)" {
		t.Errorf("after Unlink: Neighbors(mara, 1) = %s", neighborString(one))
	}
	var all []string
	s.ForEachLink("n", func(l store.Link) error {
		all = append(all, l.From+">"+l.To)
		return nil
	})
	if got := strings.Join(all, " "); got != "lamp>tower mara>lamp sea>ship ship>lamp" {
		t.Errorf("ForEachLink = %s", got)
	}
}

func neighborString(ns []store.Neighbor) string {
	var parts []string
	for _, n := range ns {
		parts = append(parts, fmt.Sprintf("%d:%s(%s)", n.Hops, n.ID, n.Via.Rel))
	}
	return strings.Join(parts, " ")
}

func TestLinkBadInput(t *testing.T) {
	s := newStore(t)
	for _, tc := range []struct {
		link      store.Link
		fragments []string
	}{
		{store.Link{NS: "a", From: "x", Rel: "r", To: "y", ToNS: "b"}, []string{`namespace "a"`, `namespace "b"`, "within one namespace"}},
		{store.Link{NS: "A", From: "x", Rel: "r", To: "y"}, []string{`namespace "A"`}},
		{store.Link{NS: "a", From: "", Rel: "r", To: "y"}, []string{`link source id ""`}},
		{store.Link{NS: "a", From: "x", Rel: "r", To: "y\x1b"}, []string{`link target id "y\x1b"`}},
		{store.Link{NS: "a", From: "x", Rel: "", To: "y"}, []string{`relation ""`}},
		{store.Link{NS: "a", From: "x", Rel: "r", To: "y", Weight: nan()}, []string{"weight NaN"}},
	} {
		_, err := s.Link(tc.link)
		wantErr(t, err, store.ErrInvalid, tc.fragments...)
	}
	if st, _ := s.Stats(""); st.Links != 0 || st.LastSeq != 0 {
		t.Errorf("refused links wrote something: %+v", st)
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestDelete(t *testing.T) {
	t.Run("cascade", func(t *testing.T) {
		s := newStore(t)
		for _, id := range []string{"a", "b", "c"} {
			mustPut(t, s, store.Record{NS: "n", ID: id, Body: id})
		}
		mustPut(t, s, store.Record{NS: "n", ID: "a", Body: "a2"}) // a version in history
		mustLink(t, s, "n", "a", "r", "b")
		mustLink(t, s, "n", "c", "r", "a")
		mustLink(t, s, "n", "a", "self", "a")
		mustLink(t, s, "n", "b", "r", "c")
		before := lastSeq(t, s)
		if err := s.Delete("n", "a", true); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get("n", "a"); err == nil {
			t.Fatal("Get after Delete found the record")
		}
		wantErr(t, s.Delete("n", "a", true), store.ErrNotFound, `"a"`)
		st, _ := s.Stats("n")
		if st.Records != 2 || st.Links != 1 || st.Versions != 0 {
			t.Errorf("after cascade delete: %+v; want 2 records, 1 link (b->c), no versions", st)
		}
		changes, _ := s.Changes(before, 0)
		var ops []string
		for _, c := range changes {
			ops = append(ops, string(c.Op)+":"+c.ID)
		}
		if got := strings.Join(ops, " "); got != "delete:a unlink:a unlink:c unlink:a" {
			t.Errorf("changes of a cascade delete = %s", got)
		}
		// Re-adding starts a fresh history.
		if res := mustPut(t, s, store.Record{NS: "n", ID: "a", Body: "new"}); res.Version != 1 || res.Status != store.StatusAdded {
			t.Errorf("re-put after delete = %+v; want added v1", res)
		}
	})
	t.Run("without cascade links dangle", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lore.bolt")
		s, err := store.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, s, store.Record{NS: "n", ID: "a"})
		mustPut(t, s, store.Record{NS: "n", ID: "b"})
		mustLink(t, s, "n", "a", "r", "b")
		if err := s.Delete("n", "b", false); err != nil {
			t.Fatal(err)
		}
		if l, _ := s.Links("n", "a", store.Out); len(l) != 1 {
			t.Errorf("links after delete without cascade = %v; want a -r-> b kept", l)
		}
		problems, err := s.Check()
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != 1 || !strings.Contains(problems[0].What, `dangling link -r-> "b": its target "b" does not exist`) || problems[0].ID != "a" {
			t.Errorf("Check = %+v; want one dangling link a -r-> b", problems)
		}
		s.Close()
		storetest.CheckFile(t, path, nil, func(p store.Problem) bool { return strings.HasPrefix(p.What, "dangling link") })
	})
}
