package store_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
	"github.com/lorekeep/lore/store/storetest"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestMain lets the test binary play a child process: the crash and lock
// tests re-execute it with an environment variable naming the role.
func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "crash":
		crashChild(os.Getenv(childPathEnv))
		return
	case "lock":
		lockChild(os.Getenv(childPathEnv))
		return
	}
	os.Exit(etcdtest.Main(m))
}

const (
	childEnv     = "LORE_STORE_TEST_CHILD"
	childPathEnv = "LORE_STORE_TEST_PATH"
)

// o200k is the real tokenizer, loaded once, offline.
type o200k struct{ enc *tiktoken.Tiktoken }

func (o200k) Name() string            { return "o200k_base" }
func (c o200k) Count(text string) int { return len(c.enc.EncodeOrdinary(text)) }

var loadCounter = sync.OnceValues(func() (store.Counter, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		return nil, err
	}
	return o200k{enc}, nil
})

func counter(t testing.TB) store.Counter {
	t.Helper()
	c, err := loadCounter()
	if err != nil {
		t.Fatalf("load o200k_base: %v", err)
	}
	return c
}

// clock returns a Now func that advances one second per call, from a
// fixed start, so tests never depend on the wall clock.
func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

// newStore opens a store in a temp dir with the real counter and a fake
// clock; invariants are checked when the test ends.
func newStore(t testing.TB) *store.Store {
	t.Helper()
	return storetest.Open(t, &store.Options{Counters: []store.Counter{counter(t)}, Now: clock()})
}

func mustPut(t testing.TB, s *store.Store, r store.Record) store.PutResult {
	t.Helper()
	res, err := s.Put(r)
	if err != nil {
		t.Fatalf("Put(%s/%s): %v", r.NS, r.ID, err)
	}
	return res
}

func mustLink(t testing.TB, s *store.Store, ns, from, rel, to string) {
	t.Helper()
	if _, err := s.Link(store.Link{NS: ns, From: from, Rel: rel, To: to}); err != nil {
		t.Fatalf("Link(%s: %s -%s-> %s): %v", ns, from, rel, to, err)
	}
}

// wantErr fails unless err wraps target and its message contains every
// fragment (the quoted bad value, the rule).
func wantErr(t testing.TB, err, target error, fragments ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v: want errors.Is(err, %v)", err, target)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q: want it to contain %q", err, f)
		}
	}
}

func ids(recs []store.Record) string {
	var b strings.Builder
	for i, r := range recs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s", r.ID)
	}
	return b.String()
}

// lastSeq reads the change log's end.
func lastSeq(t testing.TB, s *store.Store) uint64 {
	t.Helper()
	seq, err := s.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	return seq
}
