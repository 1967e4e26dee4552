package packet

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/lorekeep/lore/store"
)

// nameRecs is a namespace whose scenes name characters by title, alias
// and key, with a record valid only from a later scene (story time) and
// one only a mentioned record names (depth 2).
func nameRecs() []store.Record {
	ns := "names"
	return []store.Record{
		{NS: ns, ID: "scene-1", Kind: "scene", Order: 1, Title: "The Quay",
			Body: "Sefa met the Harbourmaster on the quay. Old Brann watched the Needle from the lamp room."},
		{NS: ns, ID: "scene-2", Kind: "scene", Order: 2, Title: "The Storm", Body: "Later, the Needle fell."},
		{NS: ns, ID: "sefa", Kind: "character", Title: "Sefa Dunmore", Aliases: []string{"Sefa"}, Body: "A pilot. She sails the Gull."},
		{NS: ns, ID: "brann", Kind: "character", Title: "Old Brann", Body: "The keeper."},
		{NS: ns, ID: "master", Kind: "character", Title: "Ilse Varo", Keys: []string{"harbourmaster"}, Body: "Runs the port."},
		{NS: ns, ID: "needle", Kind: "location", Title: "The Needle", Meta: map[string]string{"from": "scene-2"}, Body: "A rock."},
		{NS: ns, ID: "gull", Kind: "item", Title: "the Gull", Body: "Sefa's boat."},
		{NS: ns, ID: "fact-1", Kind: "fact", Title: "Sefa", Body: "A fact titled with a name: not a naming kind."},
	}
}

func nameRequests(t testing.TB) []Request {
	base := Request{NS: "names", Focus: []string{"scene-1"}, Budget: 4000, Counter: fxCounter(t)}
	deep := base
	deep.MentionsDepth = 2
	asOf := base
	asOf.AsOf = 1
	query := base
	query.Query, query.ScanQuery = "the Gull", true
	other := base
	other.Focus = []string{"scene-2"}
	return []Request{base, deep, asOf, query, other}
}

func resetNames() {
	nameSets.Lock()
	clear(nameSets.m)
	clear(nameSets.seen)
	nameSets.bytes = 0
	nameSets.Unlock()
}

func rendered(t testing.TB, src Source, env fxEnv, req Request) []byte {
	t.Helper()
	p, err := Build(t.Context(), src, env.ix, req)
	if err != nil {
		t.Fatalf("Build %+v: %v", req, err)
	}
	out, err := p.Render("json")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// uncached is the store as a Source that is not Versioned: its packets
// read the names every time, as before the cache, walking them all.
type uncached struct {
	Source
	Namer
}

// byWordOnly is the store as a Source that is not Versioned and files
// names by word: its packets read the names by word every time.
type byWordOnly struct {
	Source
	Namer
	WordNamer
}

// A packet built from names read by word, read whole or kept is byte for
// byte the packet built from names walked afresh, whatever the request
// does with them.
func TestNameCacheSameBytes(t *testing.T) {
	env := fxOpen(t, nameRecs(), nil, true)
	plain := uncached{env.st, env.st}
	for i, req := range nameRequests(t) {
		resetNames()
		h0, m0 := NameStats()
		want := rendered(t, plain, env, req)
		words := rendered(t, byWordOnly{env.st, env.st, env.st}, env, req)
		cold := rendered(t, env.st, env, req)  // by word: the first at this sequence
		whole := rendered(t, env.st, env, req) // read whole, and kept
		warm := rendered(t, env.st, env, req)
		h1, m1 := NameStats()
		// A build looks its names up once, and at depth 2 again for the
		// texts of the records mentioned: the first build reads them by
		// word each time, the second whole once, then from the cache.
		calls := int64(req.MentionsDepth/2 + 1)
		if h1-h0 != 2*calls-1 || m1-m0 != calls+1 {
			t.Errorf("request %d: %d hits and %d misses; want %d and %d (by word, whole, then from the cache)", i, h1-h0, m1-m0, 2*calls-1, calls+1)
		}
		for name, got := range map[string][]byte{"by word alone": words, "first": cold, "read whole": whole, "cached": warm} {
			if !bytes.Equal(got, want) {
				t.Errorf("request %d: the %s packet differs from the walked one:\nwalked %s\n%s %s", i, name, want, name, got)
			}
		}
	}
}

// countingNamer is the store as a Source that counts how its names are
// read.
type countingNamer struct {
	*store.Store
	walks, byWord int
}

func (c *countingNamer) NamedHeads(ns string, kinds []string) ([]store.Record, error) {
	c.walks++
	return c.Store.NamedHeads(ns, kinds)
}

func (c *countingNamer) NamesByWord(ns string, kinds, words []string) ([]store.Record, bool, error) {
	c.byWord++
	return c.Store.NamesByWord(ns, kinds, words)
}

// The first request at a sequence reads its names by word, once however
// many builds it makes (a refused packet checks its split proposals);
// the second walks them whole to keep; the third reads nothing.
func TestNamesReadByWordFirst(t *testing.T) {
	resetNames()
	env := fxOpen(t, nameRecs(), nil, true)
	src := &countingNamer{Store: env.st}
	refused := nameRequests(t)[0]
	refused.Budget = 60
	_, err := Build(t.Context(), src, env.ix, refused)
	var split *SplitError
	if !errors.As(err, &split) || len(split.Proposals) == 0 {
		t.Fatalf("Build at 60 tokens: %v; want a split with proposals, whose builds share the names", err)
	}
	if src.walks != 0 || src.byWord != 1 {
		t.Errorf("a refused first request: %d walks, %d reads by word; want 0 and 1", src.walks, src.byWord)
	}
	req := nameRequests(t)[0]
	for i, want := range []struct{ walks, byWord int }{{1, 1}, {1, 1}} {
		if _, err := Build(t.Context(), src, env.ix, req); err != nil {
			t.Fatal(err)
		}
		if src.walks != want.walks || src.byWord != want.byWord {
			t.Errorf("request %d after it: %d walks, %d reads by word in all; want %d and %d", i+2, src.walks, src.byWord, want.walks, want.byWord)
		}
	}
}

func recordIDs(t testing.TB, env fxEnv, req Request) []string {
	t.Helper()
	p, err := Build(t.Context(), env.st, env.ix, req)
	if err != nil {
		t.Fatal(err)
	}
	ids := entryIDs(p)
	slices.Sort(ids)
	return ids
}

// A write between two packets changes what the second one mentions: a
// new name, a name taken away, a record deleted.
func TestNameCacheWriteBetweenPackets(t *testing.T) {
	resetNames()
	env := fxOpen(t, nameRecs(), nil, true)
	req := nameRequests(t)[0]
	check := func(step string, want ...string) {
		t.Helper()
		if got := recordIDs(t, env, req); !slices.Equal(got, want) {
			t.Errorf("%s: records %v; want %v", step, got, want)
		}
	}
	check("before any write", "brann", "master", "scene-1", "sefa")
	check("again, no write", "brann", "master", "scene-1", "sefa")
	h0, _ := NameStats()
	check("a third time", "brann", "master", "scene-1", "sefa")
	if h1, _ := NameStats(); h1 != h0+1 {
		t.Errorf("the third packet with no write between: %d hits; want 1", h1-h0)
	}
	if _, err := env.st.Put(store.Record{NS: "names", ID: "lamp", Kind: "location", Title: "the lamp room", Body: "Glass."}); err != nil {
		t.Fatal(err)
	}
	check("a location named", "brann", "lamp", "master", "scene-1", "sefa")
	if _, err := env.st.Put(store.Record{NS: "names", ID: "master", Kind: "character", Title: "Ilse Varo", Body: "Runs the port."}); err != nil {
		t.Fatal(err)
	}
	check("a key taken away", "brann", "lamp", "scene-1", "sefa")
	if err := env.st.Delete("names", "brann", true); err != nil {
		t.Fatal(err)
	}
	check("a record deleted", "lamp", "scene-1", "sefa")
	// A write elsewhere changes the sequence: nothing kept is served.
	_, m0 := NameStats()
	if _, err := env.st.Put(store.Record{NS: "other", ID: "x", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	check("a write in another namespace", "lamp", "scene-1", "sefa")
	if _, m1 := NameStats(); m1 != m0+1 {
		t.Errorf("after a write: %d misses; want 1", m1-m0)
	}
}

// Packets built on many goroutines while another writes agree with the
// uncached build (run with -race).
func TestNameCacheConcurrent(t *testing.T) {
	resetNames()
	env := fxOpen(t, nameRecs(), nil, true)
	reqs := nameRequests(t)
	var want [][]byte
	for _, req := range reqs {
		want = append(want, rendered(t, uncached{env.st, env.st}, env, req))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Another namespace: the packets stay the same, the sequence moves.
			if _, err := env.st.Put(store.Record{NS: "other", ID: fmt.Sprintf("r-%d", i%5), Kind: "character", Title: fmt.Sprint("Sefa ", i)}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var builders sync.WaitGroup
	for g := range 4 {
		builders.Go(func() {
			for i := range 30 {
				k := (g + i) % len(reqs)
				p, err := Build(t.Context(), env.st, env.ix, reqs[k])
				if err != nil {
					t.Error(err)
					return
				}
				if got, _ := p.Render("json"); !bytes.Equal(got, want[k]) {
					t.Errorf("goroutine %d, packet %d: differs from the uncached build", g, i)
					return
				}
			}
		})
	}
	builders.Wait()
	close(stop)
	wg.Wait()
}

// The kept sets stay within maxNameBytes: the least recently used go.
func TestNameCacheBounded(t *testing.T) {
	resetNames()
	big := &nameSet{bytes: maxNameBytes / 3}
	for i := range 5 {
		keepNames(nameKey{store: i, ns: "n"}, 1, big)
	}
	lookupNames(nameKey{store: 2, ns: "n"}, 1) // used: kept over 3
	keepNames(nameKey{store: 5, ns: "n"}, 1, big)
	nameSets.Lock()
	n, b := len(nameSets.m), nameSets.bytes
	_, has2 := nameSets.m[nameKey{store: 2, ns: "n"}]
	_, has3 := nameSets.m[nameKey{store: 3, ns: "n"}]
	nameSets.Unlock()
	if n != 3 || b > maxNameBytes || !has2 || has3 {
		t.Errorf("%d sets, %d bytes (bound %d), set 2 kept %v, set 3 kept %v; want 3 sets within the bound, 2 kept, 3 dropped", n, b, maxNameBytes, has2, has3)
	}
	if s := lookupNames(nameKey{store: 2, ns: "n"}, 2); s != nil {
		t.Error("a set kept at seq 1 was served at seq 2")
	}
	keepNames(nameKey{store: 9, ns: "n"}, 1, &nameSet{bytes: maxNameBytes + 1})
	if s := lookupNames(nameKey{store: 9, ns: "n"}, 1); s != nil {
		t.Error("a set larger than the bound was kept")
	}
	// Its packets read by word from then on; another key's second
	// request at a sequence reads whole.
	for i := range 3 {
		if !readByWord(nameKey{store: 9, ns: "n"}, uint64(1+i%2)) {
			t.Errorf("request %d for a set too large to keep: reads it whole; want by word", i)
		}
	}
	if first, second := readByWord(nameKey{store: 10, ns: "n"}, 1), readByWord(nameKey{store: 10, ns: "n"}, 1); !first || second {
		t.Errorf("by word at the first request %v, at the second %v; want true, false", first, second)
	}
	resetNames()
}
