package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
	"github.com/lorekeep/lore/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(etcdtest.Main(m)) }

// TestConformance runs the store contract on etcd, on the test binary's
// single embedded member (package store runs it on bbolt).
func TestConformance(t *testing.T) {
	t.Run("etcd", func(t *testing.T) { storetest.Conformance(t, etcdtest.Open) })
}

func TestEtcdSeqIsRevisionWithGaps(t *testing.T) {
	url := etcdtest.URL(t)
	s, err := etcdstore.Open(url, nil, etcdtest.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cli := etcdtest.RawClient(t, url)
	a, err := s.Put(store.Record{NS: "n", ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	// Other keys of the cluster take revisions too: the log has gaps.
	for i := range 3 {
		if _, err := cli.Put(context.Background(), fmt.Sprint("/elsewhere/", i), "x"); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Put(store.Record{NS: "n", ID: "b"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(context.Background(), "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	if b.Seq != uint64(resp.Header.Revision) {
		t.Errorf("put seq %d; want the cluster revision %d", b.Seq, resp.Header.Revision)
	}
	if b.Seq < a.Seq+4 {
		t.Errorf("seqs %d then %d around 3 foreign writes; want a gap of at least 3", a.Seq, b.Seq)
	}
	cs, err := s.Changes(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Seq != a.Seq || cs[1].Seq != b.Seq {
		t.Errorf("changes %+v; want seqs %d and %d", cs, a.Seq, b.Seq)
	}
	if cs, err := s.Changes(a.Seq+1, 0); err != nil || len(cs) != 1 || cs[0].ID != "b" {
		t.Errorf("changes after a gap's middle: %+v, %v", cs, err)
	}
}

func TestEtcdTwoProcessesLoseNoUpdate(t *testing.T) {
	url := etcdtest.URL(t)
	var handles []*store.Store
	for range 2 {
		s, err := etcdstore.Open(url, nil, etcdtest.Options)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		handles = append(handles, s)
	}
	const each = 10
	var wg sync.WaitGroup
	for h, s := range handles {
		wg.Go(func() {
			for i := range each {
				if _, err := s.Put(store.Record{NS: "n", ID: "x", Body: fmt.Sprint(h, i)}); err != nil {
					t.Error(err)
				}
				if _, err := s.Link(store.Link{NS: "n", From: "x", Rel: fmt.Sprint("r", h), To: fmt.Sprint(i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	r, err := handles[0].Head("n", "x")
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 2*each {
		t.Errorf("version %d after %d changing puts from two handles", r.Version, 2*each)
	}
	ls, err := handles[1].Links("n", "x", store.Out)
	if err != nil || len(ls) != 2*each {
		t.Errorf("%d links, %v; want %d", len(ls), err, 2*each)
	}
}

func TestEtcdTooLargeIsRefusedWhole(t *testing.T) {
	url := etcdtest.URL(t)
	s, err := etcdstore.Open(url, nil, &etcdstore.Options{MaxTxnOps: 16, MaxRequestBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var recs []store.Record
	for i := range 20 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprint("r", i), Body: "b"})
	}
	_, err = s.PutMany(recs, nil)
	if !errors.Is(err, store.ErrTooLarge) || !strings.Contains(err.Error(), "--max-txn-ops") {
		t.Fatalf("20-record batch over 16 ops: %v; want ErrTooLarge naming --max-txn-ops", err)
	}
	_, err = s.Put(store.Record{NS: "n", ID: "big", Body: strings.Repeat("x", 100<<10)})
	if !errors.Is(err, store.ErrTooLarge) || !strings.Contains(err.Error(), "--max-request-bytes") {
		t.Fatalf("100 KiB body over 64 KiB: %v; want ErrTooLarge naming --max-request-bytes", err)
	}
	if st, err := s.Stats(""); err != nil || st.Records != 0 || st.LastSeq != 0 {
		t.Errorf("after refused writes: %+v, %v; want nothing written", st, err)
	}
	// The server's own limit speaks when the client is told a larger one.
	loose, err := etcdstore.Open(url, nil, &etcdstore.Options{MaxTxnOps: 1 << 20, MaxRequestBytes: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer loose.Close()
	var many []store.Record
	for i := range 5000 {
		many = append(many, store.Record{NS: "n", ID: fmt.Sprint("m", i)})
	}
	if _, err := loose.PutMany(many, nil); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("5000-record batch past the member's limit: %v; want ErrTooLarge", err)
	}
}

func TestEtcdCompactedLog(t *testing.T) {
	url := etcdtest.URL(t)
	s, err := etcdstore.Open(url, nil, etcdtest.Options)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, _ := s.Put(store.Record{NS: "n", ID: "a"})
	s.Put(store.Record{NS: "n", ID: "b"})
	c, err := s.Put(store.Record{NS: "n", ID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcdtest.RawClient(t, url).Compact(context.Background(), int64(c.Seq)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Changes(a.Seq-1, 0); !errors.Is(err, store.ErrCompacted) {
		t.Errorf("changes from before the compaction: %v; want ErrCompacted", err)
	}
	if cs, err := s.Changes(c.Seq-1, 0); err != nil || len(cs) != 1 {
		t.Errorf("changes from after the compaction: %+v, %v", cs, err)
	}
}

func TestParseEtcdURL(t *testing.T) {
	eps, pre, err := etcdstore.ParseURL("etcd://127.0.0.1:2379,127.0.0.1:22379/lore/prod")
	if err != nil || len(eps) != 2 || eps[1] != "127.0.0.1:22379" || pre != "/lore/prod/" {
		t.Errorf("parse: %v %q %v", eps, pre, err)
	}
	for _, bad := range []string{"http://h:1/x", "etcd://nohost/x", "etcd://h:1/a//b", "etcd://h:1/a/../b"} {
		if _, _, err := etcdstore.ParseURL(bad); !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), bad) {
			t.Errorf("parse %q: %v; want ErrInvalid quoting it", bad, err)
		}
	}
}

func TestEtcdAtRevisionIsOneSnapshot(t *testing.T) {
	s := etcdtest.Open(t, nil)
	first, err := s.Put(store.Record{NS: "n", ID: "x", Body: "one"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(store.Record{NS: "n", ID: "x", Body: "two"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(store.Record{NS: "n", ID: "later"}); err != nil {
		t.Fatal(err)
	}
	v := s.At(first.Seq)
	if r, err := v.Get("n", "x"); err != nil || r.Body != "one" || r.Version != 1 {
		t.Errorf("x at %d: %+v, %v; want version 1 with body one", first.Seq, r, err)
	}
	if hs, err := v.Heads("n", []string{"x", "later"}); err != nil || len(hs) != 1 {
		t.Errorf("heads at %d: %d, %v; want only x", first.Seq, len(hs), err)
	}
	if seq, err := v.LastSeq(); err != nil || seq != first.Seq {
		t.Errorf("last seq of the view: %d, %v; want %d", seq, err, first.Seq)
	}
	if _, err := v.Put(store.Record{NS: "n", ID: "y"}); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("put through a view: %v; want ErrReadOnly", err)
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Get("n", "x"); err != nil || r.Body != "two" {
		t.Errorf("store after closing a view: %+v, %v", r, err)
	}
}
