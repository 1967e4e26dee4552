package storetest

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
// package whose tests use EtcdURL.
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

// EtcdURL returns a store URL on the test binary's etcd member with a
// key prefix of its own (from the test's name and a counter), so tests
// never see each other's keys.
func EtcdURL(t testing.TB) string {
	t.Helper()
	shared.once.Do(startShared)
	if shared.err != nil {
		t.Fatalf("storetest: start embedded etcd: %v", shared.err)
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

// EtcdOptions are the limits the test member runs with.
var EtcdOptions = &store.EtcdOptions{MaxTxnOps: etcdmember.MaxTxnOps, MaxRequestBytes: etcdmember.MaxRequestBytes}

// OpenEtcd opens a new etcd store under a fresh prefix of the shared
// member. When the test ends it closes it, opens it again read-only and
// fails the test on any problem Check reports, as Open does for bbolt.
func OpenEtcd(t testing.TB, opts *store.Options) *store.Store {
	t.Helper()
	url := EtcdURL(t)
	s, err := store.OpenEtcd(url, opts, EtcdOptions)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", url, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("storetest: close %s: %v", url, err)
		}
		var o store.Options
		if opts != nil {
			o.Counters = opts.Counters
		}
		o.ReadOnly = true
		r, err := store.OpenEtcd(url, &o, EtcdOptions)
		if err != nil {
			t.Errorf("storetest: reopen %s read-only: %v", url, err)
			return
		}
		defer r.Close()
		report(t, url, r, nil)
	})
	return s
}

// Opener opens a new, empty store of one backend for a test.
type Opener func(t testing.TB, opts *store.Options) *store.Store

// Backends are the engines every conformance test runs on.
var Backends = []struct {
	Name string
	Open Opener
}{
	{"bbolt", Open},
	{"etcd", OpenEtcd},
}
