package storetest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// dueOracle is what Due must give, worked out from every head of ns by
// the rule's own reading of meta.due: a number, else the order of the
// record it names (above 0), else no position.
func dueOracle(all []store.Record, kind string, by int64, every bool) []string {
	orders := map[string]int64{}
	for _, r := range all {
		orders[r.ID] = r.Order
	}
	type hit struct {
		class int
		n     int64
		name  string
		id    string
	}
	var hits []hit
	for _, r := range all {
		if r.Kind != kind || !store.OpenStatus(r.Meta["status"]) {
			continue
		}
		due := strings.TrimSpace(r.Meta["due"])
		h := hit{class: 2, id: r.ID}
		if n, err := strconv.ParseInt(due, 10, 64); err == nil {
			h.class, h.n = 0, n
		} else if due != "" && store.ValidID(due) == nil {
			h.class, h.name = 1, due
			if o := orders[due]; o > 0 {
				h.n = o
			} else {
				h.n = by // no position: always pulled
			}
		} else {
			h.n = by
		}
		if every || h.n <= by {
			hits = append(hits, h)
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		c := cmp.Compare(a.class, b.class)
		if a.class == 0 {
			c = cmp.Or(c, cmp.Compare(a.n, b.n))
		}
		return cmp.Or(c, cmp.Compare(a.name, b.name), cmp.Compare(a.id, b.id))
	})
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	return ids
}

// conformDue: Due gives the open obligations due by a position, as a
// filter over the whole namespace gives them, through puts, status and
// due changes, kind changes, deletes and a named chapter that moves; a
// kind without due keys says so; and Check finds the keys consistent.
func conformDue(t *testing.T, open Opener) {
	s := open(t, nil)
	dues := []string{"3", "-2", "12", " 7 ", "ch-1", "ch-9", "ch-none", "ch-zero", "", "not\ta position", "0", "40"}
	statuses := []string{"", "open", "closed", "Pending", " owed ", "done", "active"}
	for _, ch := range []store.Record{{ID: "ch-1", Order: 1}, {ID: "ch-9", Order: 9}, {ID: "ch-zero"}} {
		ch.NS, ch.Kind = "n", "chapter"
		must(s.Put(ch))
	}
	for i := range 42 {
		r := store.Record{NS: "n", ID: fmt.Sprintf("o%02d", i), Kind: "obligation",
			Meta: map[string]string{"due": dues[i%len(dues)], "status": statuses[i%len(statuses)]}}
		if i%11 == 0 {
			delete(r.Meta, "status")
		}
		must(s.Put(r))
		must(s.Put(store.Record{NS: "m", ID: r.ID, Kind: "obligation", Meta: map[string]string{"due": "1"}}))
	}
	for i := 0; i < 42; i += 4 { // close some, open others, move their due
		r := must(s.Get("n", fmt.Sprintf("o%02d", i)))
		if store.OpenStatus(r.Meta["status"]) {
			r.Meta["status"] = "closed"
		} else {
			r.Meta["status"] = "open"
		}
		r.Meta["due"] = dues[(i+5)%len(dues)]
		must(s.Put(r))
	}
	for i := 1; i < 42; i += 9 {
		if err := s.Delete("n", fmt.Sprintf("o%02d", i), true); err != nil {
			t.Fatal(err)
		}
	}
	r := must(s.Get("n", "o02"))
	r.Kind = "note" // no longer an obligation
	must(s.Put(r))
	check := func(when string) {
		t.Helper()
		all, _ := must2(s.List(store.ListOptions{NS: "n"}))
		for _, by := range []int64{-5, -2, 0, 1, 3, 7, 8, 9, 12, 39, 40, 1 << 40} {
			for _, every := range []bool{false, true} {
				var got []string
				ok := must(s.Due("n", "obligation", by, every, func(r store.Record) bool { got = append(got, r.ID); return true }))
				if want := dueOracle(all, "obligation", by, every); !ok || !slices.Equal(got, want) {
					t.Errorf("%s: Due(by %d, all %v) = %v %v; want %v", when, by, every, ok, got, want)
				}
			}
		}
		n := 0
		must(s.Due("n", "obligation", 0, true, func(store.Record) bool { n++; return n < 2 }))
		if n != 2 {
			t.Errorf("%s: Due went on after fn said stop: %d calls", when, n)
		}
	}
	check("after the writes")
	ch := must(s.Get("n", "ch-9"))
	ch.Order = 2 // the chapter moves: what is due by it moves with it, no obligation rewritten
	must(s.Put(ch))
	must(s.Put(store.Record{NS: "n", ID: "ch-none", Kind: "chapter", Order: 30}))
	check("after the chapters moved")
	if ok := must(s.Due("n", "note", 0, true, func(store.Record) bool { return true })); ok {
		t.Errorf("Due of kind note, which keeps no due keys: ok; want false")
	}
	if probs := must(s.Check()); len(probs) != 0 {
		t.Errorf("check: %+v", probs)
	}
}
