package lore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store"
)

// An open that waits for the store's lock says so: the holder sees it in
// Contended, gives the store back, and the waiter gets in well within
// its lock timeout; WaitersIn then finds no one waiting.
func TestContendedGivesTurn(t *testing.T) {
	holder, dir := openFresh(t)
	if holder.Contended() {
		t.Fatal("contended with no one waiting")
	}
	type result struct {
		l   *lore.Lore
		err error
	}
	got := make(chan result, 1)
	go func() {
		l, err := lore.Open(dir, &lore.Options{LockTimeout: time.Minute})
		got <- result{l, err}
	}()
	for !holder.Contended() {
		select {
		case r := <-got:
			t.Fatalf("the waiter got in while the store was held: %v", r.err)
		case <-time.After(time.Millisecond):
		}
	}
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if !lore.WaitersIn(dir, time.Minute) {
		t.Fatal("the waiter never took the store")
	}
	r := <-got
	if r.err != nil {
		t.Fatalf("waiter: %v", r.err)
	}
	defer r.l.Close()
	if _, err := r.l.Put(context.Background(), store.Record{NS: "n", ID: "a", Body: "after the turn"}); err != nil {
		t.Fatal(err)
	}
	if r.l.Contended() {
		t.Error("contended after the waiter went in")
	}
}

// An open that does not wait (--lock-timeout 0) or waits in vain fails
// naming the store file, and is not left announced.
func TestLockedOpenNamesStore(t *testing.T) {
	holder, dir := openFresh(t)
	defer holder.Close()
	for _, wait := range []time.Duration{time.Nanosecond, 30 * time.Millisecond} {
		_, err := lore.Open(dir, &lore.Options{LockTimeout: wait})
		if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), dir) {
			t.Errorf("wait %v: %v, want ErrLocked naming %s", wait, err, dir)
		}
	}
	if holder.Contended() {
		t.Error("a waiter that gave up is still announced")
	}
}
