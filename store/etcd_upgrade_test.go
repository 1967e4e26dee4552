package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// The tests of this file run the upgrade of secondary keys (upgrade.go)
// on etcd, an engine whose writers run side by side: one needs the
// store's test hook (SetUpgradeBatchHook), so they are the store's
// tests, on an embedded etcd member (etcdtest).

// oldEtcdStore fills a store at url with n records (every third an open
// obligation) and takes it back to format 1, as a lore older than the
// secondary keys left it. It returns the raw client, the format key and
// the writer that filled it, still open: a process that was running
// before the store went back, whose writes read the format each time.
func oldEtcdStore(t *testing.T, url string, n int) (*clientv3.Client, string, *store.Store) {
	t.Helper()
	s, err := etcdstore.Open(url, nil, etcdtest.Options)
	if err != nil {
		t.Fatal(err)
	}
	var recs []store.Record
	for i := range n {
		r := store.Record{NS: "n", ID: fmt.Sprintf("r%04d", i), Kind: "note", Order: int64(i)}
		if i%3 == 0 {
			r.Kind, r.Meta = "obligation", map[string]string{"due": fmt.Sprint(i % 40)}
		}
		if recs = append(recs, r); len(recs) == 100 {
			if _, err := s.PutMany(recs, nil); err != nil {
				t.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	t.Cleanup(func() { s.Close() })
	cli, prefix := toFormat1(t, url)
	return cli, prefix + "meta/format", s
}

// wantUpgraded fails t unless s is format 3 with keys that Check finds
// complete, and List by kind through them gives what a walk gives.
func wantUpgraded(t *testing.T, s *store.Store, cli *clientv3.Client, formatKey string) {
	t.Helper()
	resp, err := cli.Get(context.Background(), formatKey)
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "\x04" {
		t.Fatalf("format key after the upgrade: %v %v; want 04", resp, err)
	}
	wantNoErrors(t, s, "after the upgrade")
	walk := map[string]int{}
	if err := s.ForEach("n", func(r store.Record) error { walk[r.Kind]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for kind, n := range walk {
		if got, _, err := s.List(store.ListOptions{NS: "n", Kind: kind, Limit: 100000}); err != nil || len(got) != n {
			t.Errorf("List kind %s after the upgrade: %d, %v; want %d", kind, len(got), err, n)
		}
	}
	if ok, err := s.Due("n", "obligation", 0, true, func(store.Record) bool { return true }); !ok || err != nil {
		t.Errorf("Due after the upgrade: %v %v; want the due keys", ok, err)
	}
}

// wantNoErrors fails t on any problem but a warning that Check of s
// finds, saying when.
func wantNoErrors(t *testing.T, s *store.Store, when string) {
	t.Helper()
	probs, err := s.Check()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		if p.Severity != store.SeverityWarning {
			t.Errorf("%s: %s %s: %s", when, p.NS, p.ID, p.What)
		}
	}
}

// A store whose keys need many more operations than one transaction of
// the cluster allows (here 40; the upgrade writes about 1,300 keys)
// is upgraded in batches that each fit, on the first writable open: it
// used to stay format 1 and try the whole walk again on every open.
func TestEtcdUpgradeInBatches(t *testing.T) {
	url := etcdtest.URL(t)
	cli, formatKey, _ := oldEtcdStore(t, url, 300)
	var last, calls int
	s, err := etcdstore.Open(url, &store.Options{Progress: func(phase string, done, total int) {
		if phase != "upgrading store format 1 to 4" || total != 300 || done < last {
			t.Errorf("progress %q %d of %d after %d", phase, done, total, last)
		}
		last, calls = done, calls+1
	}}, &etcdstore.Options{MaxTxnOps: 40})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if last != 300 || calls < 30 {
		t.Errorf("progress ended at %d of 300 after %d calls; want 300 in 30 batches or more", last, calls)
	}
	wantUpgraded(t, s, cli, formatKey)
}

// An upgrade cut short resumes where it stopped: while one opener waits
// between two batches, a writer puts records on both sides of the last
// head it did (each gets the keys of its side), and a second writable
// open finishes the upgrade from there; the first then finds nothing
// left to do. The keys are complete at every step.
func TestEtcdUpgradeResumes(t *testing.T) {
	url := etcdtest.URL(t)
	cli, formatKey, writer := oldEtcdStore(t, url, 300)
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var first *store.Store
	opened := make(chan error, 1)
	go func() {
		var err error
		first, err = etcdstore.Open(url, &store.Options{Progress: func(_ string, done, _ int) {
			if done > 0 {
				once.Do(func() { close(paused); <-resume })
			}
		}}, &etcdstore.Options{MaxTxnOps: 40})
		opened <- err
	}()
	<-paused
	resp, err := cli.Get(context.Background(), formatKey)
	if err != nil || len(resp.Kvs) != 1 || !strings.HasPrefix(string(resp.Kvs[0].Value), "\x01\x04n\x00r0") {
		t.Fatalf("format key between batches: %q %v; want 01 04 and the last head key done", resp.Kvs, err)
	}
	for _, r := range []store.Record{
		{NS: "n", ID: "a000", Kind: "obligation"},                                       // before the last head done
		{NS: "n", ID: "r0000", Kind: "note", Pinned: true},                              // done: an obligation no more
		{NS: "n", ID: "r0299", Kind: "obligation", Meta: map[string]string{"due": "2"}}, // not done yet
		{NS: "n", ID: "z999", Kind: "obligation", Order: 3},
	} {
		mustPut(t, writer, r)
	}
	for _, id := range []string{"r0001", "r0298"} {
		if err := writer.Delete("n", id, true); err != nil {
			t.Fatal(err)
		}
	}
	w, err := etcdstore.Open(url, &store.Options{ReadOnly: true}, etcdtest.Options)
	if err != nil {
		t.Fatal(err)
	}
	if probs, err := w.Check(); err != nil || len(probs) != 0 {
		t.Errorf("check between batches: %v %+v", err, probs)
	}
	w.Close()
	var phase string
	second, err := etcdstore.Open(url, &store.Options{Progress: func(p string, _, _ int) { phase = p }}, etcdtest.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if phase != "upgrading store format 1 to 4 (resumed)" {
		t.Errorf("second open's phase %q; want the resumed upgrade", phase)
	}
	close(resume)
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	wantUpgraded(t, second, cli, formatKey)
}

// An upgrade batch runs again only when a head it gave keys changed or
// went since its snapshot, not for every write to the store: a writer
// that creates records between every batch's snapshot and its commit
// (here on every try, some inside the batch's own span) used to make
// each batch run again until the open gave up after 200 conflicts. A
// rename and a delete of heads a batch keyed each make that batch run
// once more, and the keys come out right, mid-upgrade as at the end.
func TestEtcdUpgradeRunsAgainOnlyForItsHeads(t *testing.T) {
	url := etcdtest.URL(t)
	cli, formatKey, w := oldEtcdStore(t, url, 300)
	idOf := func(hk []byte) string { return string(hk[strings.IndexByte(string(hk), 0)+1:]) }
	tries, created := 0, 0
	batches := map[string]bool{}
	var renamed, deleted string
	reset := store.SetUpgradeBatchHook(func(keyed [][]byte) {
		tries++
		if len(keyed) == 0 {
			return
		}
		first := idOf(keyed[0])
		batches[first] = true
		created++
		mustPut(t, w, store.Record{NS: "n", ID: fmt.Sprintf("%s-new%03d", first, created), Kind: "note", Title: "Made mid-batch"})
		mustPut(t, w, store.Record{NS: "n", ID: fmt.Sprintf("z%03d", created), Kind: "character", Title: "Late Arrival"})
		switch {
		case len(batches) == 3 && renamed == "" && len(keyed) > 1:
			renamed = idOf(keyed[1])
			r, err := w.Get("n", renamed)
			if err != nil {
				t.Fatal(err)
			}
			r.Title, r.Pinned = "Renamed Midway", true
			mustPut(t, w, r)
		case len(batches) == 6 && deleted == "" && len(keyed) > 1:
			deleted = idOf(keyed[1])
			if err := w.Delete("n", deleted, true); err != nil {
				t.Fatal(err)
			}
			wantNoErrors(t, w, "mid-upgrade")
		}
	})
	s, err := etcdstore.Open(url, nil, &etcdstore.Options{MaxTxnOps: 40})
	reset()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if renamed == "" || deleted == "" {
		t.Fatalf("only %d batches: the test renamed %q and deleted %q", len(batches), renamed, deleted)
	}
	// Every try but the first of each batch is a run again.
	if again := tries - len(batches); again != 2 {
		t.Errorf("%d tries for %d batches: %d ran again; want 2 (the rename, the delete)", tries, len(batches), again)
	}
	wantUpgraded(t, s, cli, formatKey)
	if _, err := s.Get("n", deleted); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted record %s: %v", deleted, err)
	}
	if got, _, err := s.List(store.ListOptions{NS: "n", Pinned: true}); err != nil || len(got) != 1 || got[0].ID != renamed {
		t.Errorf("pinned records after the upgrade: %v %v; want %s", got, err, renamed)
	}
}

// An upgrade to secondary keys (format 1 -> 2) on a cluster that another
// process keeps writing to leaves no record out of the keys: a put that
// read format 1 and an upgrade built from older heads both run again.
func TestEtcdUpgradeWhileWriting(t *testing.T) {
	url := etcdtest.URL(t)
	a, err := etcdstore.Open(url, nil, etcdtest.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := range 10 {
		mustPut(t, a, store.Record{NS: "n", ID: fmt.Sprintf("a%02d", i), Kind: "note"})
	}
	// Back to format 1, as a store written by a lore older than the keys.
	toFormat1(t, url)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			mustPut(t, a, store.Record{NS: "n", ID: fmt.Sprintf("w%03d", i), Kind: "note"})
		}
	})
	b, err := etcdstore.Open(url, nil, etcdtest.Options) // upgrades
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	wantNoErrors(t, b, "after an upgrade during writes")
	all := 0
	if err := b.ForEach("n", func(store.Record) error { all++; return nil }); err != nil {
		t.Fatal(err)
	}
	byKind, _, err := b.List(store.ListOptions{NS: "n", Kind: "note", Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(byKind) != all {
		t.Errorf("List by kind gives %d of %d records after an upgrade during writes", len(byKind), all)
	}
}

// toFormat1 takes the etcd store at url back to format 1, as a store
// written by a lore older than the secondary keys: no idx keys, format
// byte 1. It returns a raw client of the cluster and the store's prefix.
func toFormat1(t *testing.T, url string) (*clientv3.Client, string) {
	t.Helper()
	_, path, err := etcdstore.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "/" + strings.Trim(path, "/") + "/"
	cli := etcdtest.RawClient(t, url)
	ctx := context.Background()
	if _, err := cli.Delete(ctx, prefix+"idx/", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(ctx, prefix+"meta/format", "\x01"); err != nil {
		t.Fatal(err)
	}
	return cli, prefix
}
