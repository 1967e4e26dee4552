package lore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/internal/etcdmember"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestMain(m *testing.M) { os.Exit(etcdtest.Main(m)) }

// openNode opens the etcd store at url as one host would: its own local
// folder for the index.
func openNode(t *testing.T, url string) *lore.Lore {
	t.Helper()
	l, err := lore.Open(url, &lore.Options{LocalDir: t.TempDir(), Engine: etcdtest.Options})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return l
}

func TestEtcdTwoNodesShareOneStore(t *testing.T) {
	url := etcdtest.URL(t)
	if err := lore.Init(url); err != nil {
		t.Fatal(err)
	}
	a, b := openNode(t, url), openNode(t, url)
	ctx := context.Background()
	if _, err := a.Put(ctx, store.Record{NS: "n", ID: "lamp", Title: "Harbour lamp", Body: "the harbour lantern burns green"}); err != nil {
		t.Fatal(err)
	}
	// A read on the other node sees a write committed before it began.
	if got := searchIDs(t, b, "n", "lantern"); !slices.Equal(got, []string{"lamp"}) {
		t.Errorf("node b search: %v; want [lamp]", got)
	}
	if _, err := b.Put(ctx, store.Record{NS: "n", ID: "bell", Body: "the bell over the lantern"}); err != nil {
		t.Fatal(err)
	}
	// Node a's watch brings its index up to b's write without a read.
	last, err := b.Store().LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		wm, err := a.IndexWatermark()
		if err != nil {
			t.Fatal(err)
		}
		if wm >= last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node a's index at %d, the store at %d: the watch did not catch it up", wm, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p, err := a.Packet(ctx, packet.Request{NS: "n", Query: "lantern", Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range p.Records {
		ids = append(ids, it.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"bell", "lamp"}) {
		t.Errorf("packet on node a holds %v; want bell and lamp", ids)
	}
	mustCheck(t, a)
	mustCheck(t, b)
}

func TestEtcdIndexRebuildsAfterCompaction(t *testing.T) {
	url := etcdtest.URL(t)
	if err := lore.Init(url); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	open := func() *lore.Lore {
		l, err := lore.Open(url, &lore.Options{LocalDir: local, Engine: etcdtest.Options})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ctx := context.Background()
	b := open()
	if _, err := b.Put(ctx, store.Record{NS: "n", ID: "old", Body: "old harbour"}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	a := openNode(t, url)
	var last uint64
	for i := range 3 {
		r, err := a.Put(ctx, store.Record{NS: "n", ID: fmt.Sprint("new", i), Body: "new harbour"})
		if err != nil {
			t.Fatal(err)
		}
		last = r.Seq
	}
	if err := a.Delete(ctx, "n", "old", false); err != nil {
		t.Fatal(err)
	}
	eps, _, _ := etcdstore.ParseURL(url)
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Compact(ctx, int64(last)); err != nil {
		t.Fatal(err)
	}
	// b's watermark is before the compaction: it rebuilds on open.
	b = open()
	defer b.Close()
	if got := searchIDs(t, b, "n", "harbour"); !slices.Equal(got, []string{"new0", "new1", "new2"}) {
		t.Errorf("after compaction, node b finds %v; want the three new records and no ghost of old", got)
	}
	mustCheck(t, b)
}

func TestEtcdOpenNeedsInit(t *testing.T) {
	url := etcdtest.URL(t)
	_, err := lore.Open(url, &lore.Options{LocalDir: t.TempDir()})
	if !errors.Is(err, lore.ErrNoStore) || !strings.Contains(err.Error(), "none was created there") {
		t.Fatalf("open of an empty prefix: %v; want ErrNoStore saying no store was created there", err)
	}
	if err := lore.Init(url); err != nil {
		t.Fatal(err)
	}
	l := openNode(t, url)
	if _, err := l.Backup(io.Discard); err == nil || !strings.Contains(err.Error(), "etcdctl snapshot save") {
		t.Errorf("backup of an etcd store: %v; want a refusal naming etcdctl snapshot save", err)
	}
}

func TestEtcdImportTooLargeGoesInBatches(t *testing.T) {
	url := etcdtest.URL(t)
	if err := lore.Init(url); err != nil {
		t.Fatal(err)
	}
	// A client-side limit of 40 operations stands for a small cluster.
	l, err := lore.Open(url, &lore.Options{LocalDir: t.TempDir(), Engine: &etcdstore.Options{MaxTxnOps: 40}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var recs []store.Record
	for v := 1; v <= 3; v++ { // one record's versions, which must stay together
		recs = append(recs, store.Record{NS: "n", ID: "a-hist", Body: fmt.Sprint("version ", v), Version: v})
	}
	var links []store.Link
	for i := range 60 {
		recs = append(recs, store.Record{NS: "n", ID: fmt.Sprintf("r%02d", i), Body: "harbour"})
		links = append(links, store.Link{NS: "n", From: fmt.Sprintf("r%02d", i), Rel: "next", To: fmt.Sprintf("r%02d", (i+1)%60)})
	}
	ctx := context.Background()
	sum, err := l.Import(ctx, recs, links)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Batches < 2 || sum.Added != 61 || sum.Links != 60 {
		t.Errorf("import summary %+v; want 61 added, 60 links, in 2 or more batches", sum)
	}
	h, err := l.History("n", "a-hist")
	if err != nil || len(h) != 3 {
		t.Errorf("history of a-hist: %d versions, %v; want the 3 imported", len(h), err)
	}
	st, err := l.Stats("n")
	if err != nil || st.Records != 61 || st.Links != 60 {
		t.Errorf("stats %+v, %v", st, err)
	}
	// Running it again resumes: nothing left to write.
	again, err := l.Import(ctx, recs, links)
	if err != nil || again.Unchanged != 61 || again.Added != 0 {
		t.Errorf("import again: %+v, %v; want all 61 unchanged", again, err)
	}
	mustCheck(t, l)
}

// TestEtcdFolderWithAuth keeps a store folder whose lore.json puts the
// store on a cluster with auth on: the password comes from the variable
// the file names, and discovery finds the folder.
func TestEtcdFolderWithAuth(t *testing.T) {
	ms, err := etcdmember.Plan(1)
	if err != nil {
		t.Fatal(err)
	}
	ms[0].BcryptCost = 4 // bcrypt's least cost: each login hashes the password
	e, err := etcdmember.Start(ms[0], etcdmember.InitialCluster(ms), t.TempDir(), os.DevNull, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	url := etcdmember.StoreURL(ms, "secure")
	eps, _, _ := etcdstore.ParseURL(url)
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, step := range []func() error{
		func() error { _, err := cli.RoleAdd(ctx, "root"); return err },
		func() error { _, err := cli.UserAdd(ctx, "root", "s3cret"); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	cli.Close()

	root := t.TempDir()
	dir := filepath.Join(root, lore.DirName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`{"etcd": {"url": %q, "username": "root", "password_env": "LORE_TEST_ETCD_PW"}}`, url)
	if err := os.WriteFile(filepath.Join(dir, lore.ConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := lore.Init(dir); !errors.Is(err, lore.ErrConfig) || !strings.Contains(err.Error(), "LORE_TEST_ETCD_PW") {
		t.Fatalf("init without the password variable: %v; want ErrConfig naming it", err)
	}
	t.Setenv("LORE_TEST_ETCD_PW", "wrong")
	if err := lore.Init(dir); err == nil {
		t.Fatal("init with a wrong password worked")
	}
	t.Setenv("LORE_TEST_ETCD_PW", "s3cret")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	found, err := lore.Discover("", filepath.Join(root))
	if err != nil || found != dir {
		t.Fatalf("discover from %s: %q, %v; want %s", root, found, err, dir)
	}
	// The client's timeouts generous: a busy machine is no failure here.
	l, err := lore.Open(found, &lore.Options{Engine: &etcdstore.Options{DialTimeout: time.Minute, RequestTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Put(ctx, store.Record{NS: "n", ID: "x", Body: "behind a password"}); err != nil {
		t.Fatal(err)
	}
	if l.Name() != url {
		t.Errorf("name %q; want the URL %q", l.Name(), url)
	}
	if got := searchIDs(t, l, "n", "password"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("search: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, lore.BoltFile)); err == nil {
		t.Errorf("a %s was made in the etcd store's folder", lore.BoltFile)
	}
}
