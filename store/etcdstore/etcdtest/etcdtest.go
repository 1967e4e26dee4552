// Package etcdtest runs etcd stores for tests: one embedded single-member
// etcd cluster per test binary, started on first use on loopback ports,
// a key prefix of it for each test, and stores opened there that are
// checked when the test ends, as storetest.Open checks a bbolt file.
// Importing it links the etcd engine (package etcdstore).
package etcdtest

import (
	"fmt"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lorekeep/lore/internal/etcdmember"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	"github.com/lorekeep/lore/store/storetest"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

// shared is the one single-member etcd a test binary starts, on first
// use, in a temporary folder on loopback ports.
var shared struct {
	once sync.Once
	dir  string
	e    *embed.Etcd
	url  string // etcd://127.0.0.1:port
	err  error
	n    atomic.Int64
}

func startShared() {
	shared.dir, shared.err = os.MkdirTemp("", "lore-etcd-")
	if shared.err != nil {
		return
	}
	ms, err := etcdmember.Plan(1)
	if err != nil {
		shared.err = err
		return
	}
	shared.e, shared.err = etcdmember.Start(ms[0], etcdmember.InitialCluster(ms), shared.dir, os.DevNull, 30*time.Second)
	shared.url = etcdmember.StoreURL(ms, "")
}

// Main runs the tests and then stops the shared etcd member (if a test
// started one) and removes its folder. Call it from TestMain in a
// package whose tests use URL.
func Main(m *testing.M) int {
	code := m.Run()
	if shared.e != nil {
		shared.e.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	return code
}

var unsafeName = regexp.MustCompile(`[^a-z0-9._-]+`)

// URL returns a store URL on the test binary's etcd member with a key
// prefix of its own (from the test's name and a counter), so tests never
// see each other's keys.
func URL(t testing.TB) string {
	t.Helper()
	shared.once.Do(startShared)
	if shared.err != nil {
		t.Fatalf("etcdtest: start embedded etcd: %v", shared.err)
	}
	name := unsafeName.ReplaceAllString(fmtLower(t.Name()), "-")
	return fmt.Sprintf("%s/test/%s-%d", shared.url, name, shared.n.Add(1))
}

func fmtLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Options are the limits the test member runs with.
var Options = &etcdstore.Options{MaxTxnOps: etcdmember.MaxTxnOps, MaxRequestBytes: etcdmember.MaxRequestBytes}

// Open opens a new etcd store under a fresh prefix of the shared member.
// When the test ends it closes it, opens it again read-only and fails
// the test on any problem Check reports, as storetest.Open does for
// bbolt. It is a storetest.Opener.
func Open(t testing.TB, opts *store.Options) *store.Store {
	t.Helper()
	url := URL(t)
	s, err := etcdstore.Open(url, opts, Options)
	if err != nil {
		t.Fatalf("etcdtest: open %s: %v", url, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("etcdtest: close %s: %v", url, err)
		}
		var o store.Options
		if opts != nil {
			o.Counters = opts.Counters
		}
		o.ReadOnly = true
		r, err := etcdstore.Open(url, &o, Options)
		if err != nil {
			t.Errorf("etcdtest: reopen %s read-only: %v", url, err)
			return
		}
		defer r.Close()
		storetest.Check(t, url, r)
	})
	return s
}

var _ storetest.Opener = Open

// RawClient talks to the cluster of a store URL directly, as another
// program sharing it would; it is closed when the test ends.
func RawClient(t testing.TB, url string) *clientv3.Client {
	t.Helper()
	eps, _, err := etcdstore.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}
