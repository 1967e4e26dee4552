package store_test

import (
	"errors"
	"testing"

	"github.com/lorekeep/lore/store"
)

// An error about one value names it by BadValue, apart from the message
// (cmd/lore's --json error body carries it as "value"): the value the
// message quotes first.
func TestErrorsNameTheirValue(t *testing.T) {
	s := newStore(t)
	mustPut(t, s, store.Record{NS: "n", ID: "here", Body: "x"})
	_, getErr := s.Get("n", "nothere")
	_, metaErr := s.Put(store.Record{NS: "n", ID: "m", Meta: map[string]string{"k\xff": "v"}})
	_, manyErr := s.PutMany([]store.Record{{NS: "good", ID: "a"}, {NS: "n", ID: " b"}}, nil)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"namespace", store.ValidNamespace("Bad NS"), "Bad NS"},
		{"id", store.ValidID("a\tb"), "a\tb"},
		{"missing record", getErr, "nothere"},
		{"meta key", metaErr, "k\xff"},
		{"one bad input of many", manyErr, "n"}, // "record 1 (ns "n", id " b"): ..."
	} {
		var bv interface{ BadValue() string }
		if !errors.As(c.err, &bv) || bv.BadValue() != c.want {
			t.Errorf("%s: error %v names no value %q", c.name, c.err, c.want)
		}
	}
}
