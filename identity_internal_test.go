package lore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// identityOf opens dir read-only and returns the identity its packets
// see.
func identityOf(t *testing.T, dir string) any {
	t.Helper()
	l, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	v, ok := l.source().(packet.Versioned)
	if !ok {
		t.Fatal("a bbolt store's packet source is not Versioned")
	}
	return v.Identity()
}

// A read-only open of a file nothing changed since the last close keeps
// that open's identity (and the packets' caches under it); a write by any
// open in between gives a new one.
func TestIdentityAcrossOpens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	put := func(id string) {
		l, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Put(context.Background(), store.Record{NS: "n", ID: id, Body: "text " + id}); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	first := identityOf(t, dir)
	if again := identityOf(t, dir); again != first {
		t.Error("a reopen of the unchanged file has a new identity")
	}
	put("b")
	after := identityOf(t, dir)
	if after == first {
		t.Error("the identity outlived a write")
	}
	if again := identityOf(t, dir); again != after {
		t.Error("a reopen after the write's close has a new identity")
	}
	other := filepath.Join(t.TempDir(), ".lore")
	if err := Init(other); err != nil {
		t.Fatal(err)
	}
	if identityOf(t, other) == after {
		t.Error("two stores share an identity")
	}
}
