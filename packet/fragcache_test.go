package packet

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// The second build of a packet prices its records from the process's
// fragment cache, and its bytes are the first build's. A cache started
// again empty (as when it is full) gives the same bytes too. (The counts
// are the process's: no test of this package runs in parallel, and no
// goroutine of a build outlives it.)
//
// The builds read a source that is read from one goroutine: from the
// store itself, a build also counts bodies on a helper goroutine (the
// best hits', warmhits.go; the likely kept, bodiesahead.go), a guess
// that is cut short wherever the build has got to when it returns. What
// the first build's helpers had not reached, the second's may count, so
// the misses then depend on scheduling (1 run in 80 on a busy machine
// counted one). Here every count is the build's own.
func TestFragmentCacheSharedAcrossPackets(t *testing.T) {
	ns := "talk"
	var recs []store.Record
	var links []store.Link
	for i := range 40 {
		id := fmt.Sprintf("t%02d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "turn", Title: "turn " + id, Order: int64(i + 1),
			Body: fmt.Sprintf("On day %d we walked to the lake and talked about the otters.", i)})
		if i > 0 {
			links = append(links, store.Link{NS: ns, From: fmt.Sprintf("t%02d", i-1), Rel: "next", To: id})
		}
	}
	env := fxOpen(t, recs, links, true)
	src := minimalSource{st: env.st}
	req := Request{NS: ns, Query: "otters at the lake", Budget: 600, Profile: "agent", Format: "md", Counter: fxCounter(t)}
	build := func() []byte {
		t.Helper()
		out, err := buildBytes(env, src, req)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	first := build()
	hits, misses := FragmentStats()
	second := build()
	hits2, misses2 := FragmentStats()
	if !bytes.Equal(first, second) {
		t.Fatalf("the second build differs from the first:\n%s\n---\n%s", first, second)
	}
	if hits2-hits == 0 {
		t.Errorf("the second build took no fragment count from the cache (hits %d -> %d)", hits, hits2)
	}
	if misses2 != misses {
		t.Errorf("the second build counted %d fragments again; want every one from the cache", misses2-misses)
	}
	resetFragments()
	if third := build(); !bytes.Equal(first, third) {
		t.Errorf("a build after the cache was emptied differs from the first")
	}
}

// A set keeps its fragmentWays newest counts: a count is served while
// it is among them and falls out after as many newer ones of its set (a
// count kept again does not take a second place), and a served count
// is always the one kept for its text.
func TestFragmentSetsKeepTheNewest(t *testing.T) {
	resetFragments()
	defer resetFragments()
	first := keyOf("o200k_base", "the first text")
	set := setOf(first)
	filled := 0
	// fill keeps n counts of new texts in first's set.
	fill := func(n int) {
		for kept := 0; kept < n; filled++ {
			if k := keyOf("o200k_base", fmt.Sprint("filler ", filled)); setOf(k) == set {
				keepFragment(k, 1000+filled)
				kept++
			}
		}
	}
	keepFragment(first, 3)
	fill(fragmentWays - 1)
	if n, ok := lookupFragment(first); !ok || n != 3 {
		t.Fatalf("with %d newer counts in its set: %d, %v; want 3", fragmentWays-1, n, ok)
	}
	keepFragment(first, 3) // counted twice at once: kept once, where it was
	fill(1)
	if n, ok := lookupFragment(first); ok {
		t.Errorf("with %d newer counts in its set it is still served (%d)", fragmentWays, n)
	}
	last := keyOf("o200k_base", fmt.Sprint("filler ", filled-1))
	if n, ok := lookupFragment(last); !ok || n != 1000+filled-1 {
		t.Errorf("the newest count: %d, %v; want %d", n, ok, 1000+filled-1)
	}
	if keyOf("o200k_base", "a") == keyOf("cl100k_base", "a") || keyOf("o200k_base", "a") == keyOf("o200k_base", "b") {
		t.Error("keys of different encodings or texts are equal")
	}
}

// Lookups race keeps of other counts in the same sets (a small corner
// of the table, so that they meet): a lookup may miss, but what it
// serves is the count kept for that text.
func TestFragmentCacheConcurrent(t *testing.T) {
	resetFragments()
	defer resetFragments()
	var keys []fragmentKey
	for i := 0; len(keys) < 64; i++ {
		if k := keyOf("o200k_base", fmt.Sprint("text ", i)); k.h1&uint64(len(fragmentTable())-1) < 4 {
			keys = append(keys, k)
		}
	}
	want := func(i int) int { return 7*i + 1 }
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for w := range 4 {
		wg.Go(func() {
			for round := range 2000 {
				i := (round*7 + w*13) % len(keys)
				if n, ok := lookupFragment(keys[i]); ok && n != want(i) {
					wrong.Add(1)
				}
				keepFragment(keys[i], want(i))
			}
		})
	}
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d lookups served another text's count", n)
	}
}

// keyOf is the cache key of text under encoding, as a counter of that
// encoding makes it.
func keyOf(encoding, text string) fragmentKey { return keyWith(seedsOf(encoding), text) }

// A shared fragment counter counts a text as the sum of its chunks, each
// kept once: an entry priced under two reasons counts its heading twice
// and its summary lines once, and every count is the counter's own.
func TestFragmentCounterCountsChunksOnce(t *testing.T) {
	resetFragments()
	defer resetFragments()
	c := fxCounter(t)
	f := newFragmentCounter(c)
	if f.seeds == nil {
		t.Fatal("the o200k_base counter is not shared")
	}
	summary := "Summary: Mara hid the key under the third stone.\nFull text: `lore get mara-key`\n"
	for k, why := range []string{"touches scene-12 via appears_in", "hit for 'key'"} {
		text := "[mara-key canon, " + why + "] The key\n" + summary
		_, misses := FragmentStats()
		if got, want := f.Count(text), c.Count(text); got != want {
			t.Fatalf("count of %q = %d, want %d", text, got, want)
		}
		_, after := FragmentStats()
		if want := int64(3 - 2*k); after-misses != want {
			t.Errorf("pricing under reason %d counted %d chunks; want %d (the heading, and the summary's two lines the first time)", k+1, after-misses, want)
		}
	}
}

// A slot serves a count only for its own key: another key of the same
// set that differs in the high half of its first hash or in its second
// hash is a miss, and a count too large for a slot is not kept.
func TestFragmentSlotsMatchTheWholeKey(t *testing.T) {
	resetFragments()
	defer resetFragments()
	k := keyOf("o200k_base", "a kept text")
	keepFragment(k, 41)
	if n, ok := lookupFragment(k); !ok || n != 41 {
		t.Fatalf("lookup of the kept key: %d, %v; want 41", n, ok)
	}
	for _, other := range []fragmentKey{{k.h1 ^ 1<<40, k.h2}, {k.h1, k.h2 ^ 1}} {
		if n, ok := lookupFragment(other); ok {
			t.Errorf("key %x served the count of %x (%d)", other, k, n)
		}
	}
	big := keyOf("o200k_base", "a huge chunk")
	keepFragment(big, maxKeptCount+1)
	if n, ok := lookupFragment(big); ok {
		t.Errorf("a count of %d was kept as %d", maxKeptCount+1, n)
	}
	keepFragment(big, maxKeptCount)
	if n, ok := lookupFragment(big); !ok || n != maxKeptCount {
		t.Errorf("the largest count: %d, %v; want %d", n, ok, maxKeptCount)
	}
}

// Pricing writes a markdown entry or note into a reused buffer and
// counts it there: each count is the fragment's own, for a shared
// counter and for one that counts whole, and the buffer written again
// changes no count kept before.
func TestPricedInABufferCountsAsTheFragment(t *testing.T) {
	resetFragments()
	defer resetFragments()
	for _, name := range []string{"o200k_base", budget.Estimate} {
		c, err := budget.NewCounter(name)
		if err != nil {
			t.Fatal(err)
		}
		f := newFragmentCounter(c)
		var buf bytes.Buffer
		for _, e := range []Entry{
			{ID: "mara", Kind: "character", Title: "Mara", Why: "pov of scene-12", Form: "full"},
			{ID: "a`b", Kind: "canon", Title: "Ticks", Form: "summary", Text: "Short.\n", Fetch: "lore get n 'a`b'"},
			{ID: "x", Title: "x", Form: "title", Fetch: "lore get n x"},
		} {
			buf.Reset()
			writeMDEntry(&buf, e, true)
			if got, want := f.countBytes(buf.Bytes()), c.Count(mdEntry(e, true)); got != want {
				t.Errorf("%s: entry %q priced %d, want %d", name, mdEntry(e, true), got, want)
			}
		}
		n := Note{ID: "scene-9", Kind: "scene", Rank: 3, Tokens: 1234, Reason: "dropped: over budget", Fetch: "lore get n scene-9"}
		buf.Reset()
		writeMDNote(&buf, n)
		first := f.countBytes(buf.Bytes())
		buf.Reset()
		buf.WriteString("something else entirely, longer than the note was")
		if again, want := f.countBytes([]byte(mdNote(n))), c.Count(mdNote(n)); first != want || again != want {
			t.Errorf("%s: note %q priced %d, then %d; want %d", name, mdNote(n), first, again, want)
		}
	}
}

// The table grows to a set for each record of the largest store it is
// sized for, within its bounds, and never shrinks; counts taken while it
// grows, from four goroutines, are the counter's own (run with -race).
func TestSizeFragmentCache(t *testing.T) {
	resetFragments()
	defer resetFragments()
	c := fxCounter(t)
	f := sharedFragmentCounter(c)
	text := func(i int) string { return fmt.Sprintf("note %d: the keeper's lamp, lit at %d:45", i, i%24) }
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for w := range 4 {
		wg.Go(func() {
			for i := range 3000 {
				if s := text(i*4 + w%2); f.Count(s) != c.Count(s) {
					wrong.Add(1)
				}
			}
		})
	}
	for _, step := range []struct {
		records uint64
		want    int
	}{
		{0, fragmentSets},
		{fragmentSets, fragmentSets},
		{fragmentSets + 1, 2 * fragmentSets},
		{300_000, 2 * fragmentSets},
		{1 << 40, maxFragmentSets},
		{10, maxFragmentSets},
	} {
		SizeFragmentCache(step.records)
		if n := len(fragmentTable()); n != step.want {
			t.Errorf("sized for %d records: %d sets, want %d", step.records, n, step.want)
		}
	}
	wg.Wait()
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d counts differ from the counter's while the table grew", n)
	}
	s := text(1)
	hits, _ := FragmentStats()
	if f.Count(s); f.Count(s) != c.Count(s) {
		t.Errorf("count of %q differs from the counter's", s)
	}
	if after, _ := FragmentStats(); after == hits {
		t.Error("a count kept in the grown table was not served from it")
	}
}
