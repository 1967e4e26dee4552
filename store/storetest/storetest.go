// Package storetest opens stores for tests and checks their invariants
// when the test ends, and holds the conformance suite (Conformance) that
// every engine's tests run: package store's on bbolt, package
// etcdstore's on etcd (through etcdtest).
package storetest

import (
	"path/filepath"
	"testing"

	"github.com/lorekeep/lore/store"
)

// Opener opens a new, empty store of one engine for a test: Open for
// bbolt, etcdtest.Open for etcd. Conformance runs on what it gives.
type Opener func(t testing.TB, opts *store.Options) *store.Store

var _ Opener = Open

// Open opens a new store in t.TempDir(). When the test ends it closes the
// store, opens the file again read-only with the same counters, and fails
// the test on any problem Check reports: bbolt's page check, both link
// directions agree, the change log is gap-free and ends at the sequence
// number, heads and bodies match, cached token counts match a recount.
// Dangling links are reported too; tests that leave them on purpose
// should remove them or use CheckFile with ignore.
func Open(t testing.TB, opts *store.Options) *store.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lore.bolt")
	s, err := store.Open(path, opts)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("storetest: close %s: %v", path, err)
		}
		CheckFile(t, path, opts)
	})
	return s
}

// CheckFile opens the store file at path read-only and fails the test on
// every problem Check reports, except those for which ignore (if not nil)
// returns true.
func CheckFile(t testing.TB, path string, opts *store.Options, ignore ...func(store.Problem) bool) {
	t.Helper()
	var o store.Options
	if opts != nil {
		o.Counters = opts.Counters
	}
	o.ReadOnly = true
	s, err := store.Open(path, &o)
	if err != nil {
		t.Errorf("storetest: reopen %s read-only: %v", path, err)
		return
	}
	defer s.Close()
	Check(t, path, s, ignore...)
}

// Check fails t on every problem s.Check finds, except those for which
// ignore (if not nil) returns true; name is the store's, for messages.
// An engine's test opener (etcdtest.Open) calls it when the test ends,
// on the store opened again read-only.
func Check(t testing.TB, name string, s *store.Store, ignore ...func(store.Problem) bool) {
	t.Helper()
	problems, err := s.Check()
	if err != nil {
		t.Errorf("storetest: check %s: %v", name, err)
		return
	}
outer:
	for _, p := range problems {
		for _, ig := range ignore {
			if ig(p) {
				continue outer
			}
		}
		t.Errorf("storetest: %s: %s/%s: %s", name, p.NS, p.ID, p.What)
	}
}
