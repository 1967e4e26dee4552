package packet

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/storetest"
)

// Compile-time checks: the store and the index satisfy the interfaces
// packet declares.
var (
	_ Source      = (*store.Store)(nil)
	_ TokenSetter = (*store.Store)(nil)
	_ Recenter    = (*store.Store)(nil)
	_ Searcher    = (*index.Index)(nil)
)

var (
	fxCounterOnce sync.Once
	fxCounterVal  budget.Counter
	fxCounterErr  error
)

// fxCounter is the real o200k_base counter, loaded once.
func fxCounter(t testing.TB) budget.Counter {
	t.Helper()
	fxCounterOnce.Do(func() { fxCounterVal, fxCounterErr = budget.NewCounter("o200k_base") })
	if fxCounterErr != nil {
		t.Fatalf("NewCounter(o200k_base): %v", fxCounterErr)
	}
	return fxCounterVal
}

var fxWords = strings.Fields(`the mill river ash smoke lantern door bell road winter grain stone
rope night ember chapel debt oath letter storm harbour field shadow rumour key wall bridge
quiet slowly burned remembered carried whispered waited opened closed ran fell kept broke`)

// fxProse is deterministic prose of n words.
func fxProse(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	for i := range n {
		if i > 0 {
			if i%12 == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(fxWords[r.IntN(len(fxWords))])
	}
	b.WriteString(".")
	return b.String()
}

// fxCanon is a small novel canon in ns novel-a, plus a rival record of the
// same id in novel-b. Sizes are chosen so the unprotected ranks shrink as
// importance grows (rank 10 is the largest), which makes the order of step
// 1 visible.
func fxCanon() ([]store.Record, []store.Link) {
	a := "novel-a"
	recs := []store.Record{
		{NS: a, ID: "scene-12", Kind: "scene", Title: "Scene 12: The Fire at the Mill", Order: 12,
			Meta: map[string]string{"pov": "mara"}, Body: fxProse(1, 220)},
		{NS: a, ID: "scene-11", Kind: "scene", Title: "Scene 11: The Letter", Order: 11, Body: fxProse(2, 120),
			Summary: "Mara receives the letter."},
		{NS: a, ID: "mara", Kind: "character", Title: "Mara Voss", Body: "Mara Voss, the miller's daughter. " + fxProse(3, 260),
			Summary: "Mara: miller's daughter, keeps the oath, fears fire."},
		{NS: a, ID: "tomas", Kind: "character", Title: "Tomas Reed", Body: fxProse(4, 300),
			Summary: "Tomas: ferryman, owes Mara a debt."},
		{NS: a, ID: "mill", Kind: "location", Title: "The Old Mill", Body: fxProse(5, 200),
			Summary: "The mill by the river; burned in scene 12."},
		{NS: a, ID: "miller", Kind: "character", Title: "Old Voss the Miller", Body: fxProse(6, 180),
			Summary: "Mara's father; dead before scene 1."},
		{NS: a, ID: "curfew", Kind: "constraint", Title: "Curfew at the bell", Body: "No one may cross the bridge after the bell."},
		{NS: a, ID: "oath", Kind: "obligation", Title: "Mara's oath", Body: fxProse(7, 60),
			Meta: map[string]string{"due": "14", "status": "open"}},
		{NS: a, ID: "old-debt", Kind: "obligation", Title: "An old debt", Body: fxProse(8, 40),
			Meta: map[string]string{"due": "5", "status": "open"}},
		{NS: a, ID: "paid-debt", Kind: "obligation", Title: "A paid debt", Body: fxProse(9, 40),
			Meta: map[string]string{"due": "20", "status": "paid"}},
		{NS: a, ID: "tl-05", Kind: "timeline", Title: "The flood", Order: 5, Body: fxProse(10, 80), Summary: "Flood, year 3."},
		{NS: a, ID: "tl-10", Kind: "timeline", Title: "The letter arrives", Order: 10, Body: fxProse(11, 150),
			Summary: "The letter arrives, day 40."},
		{NS: a, ID: "tl-13", Kind: "timeline", Title: "The trial", Order: 13, Body: fxProse(12, 150)},
		{NS: a, ID: "mara-tomas", Kind: "relationship", Title: "Mara and Tomas", Body: fxProse(13, 90)},
		{NS: a, ID: "fire-magic", Kind: "power", Title: "Ember-binding", Body: fxProse(14, 140)},
		{NS: a, ID: "voice", Kind: "style", Title: "Style DNA", Body: fxProse(15, 190)},
		{NS: a, ID: "reader-ash", Kind: "reader-knowledge", Title: "What the reader knows", Body: fxProse(16, 240)},
		{NS: a, ID: "theme-ash", Kind: "theme", Title: "Ash and renewal", Body: fxProse(17, 290)},
		{NS: a, ID: "mara-secret", Kind: "fact", Title: "Mara set the fire", Body: "Mara set the fire herself.",
			Meta: map[string]string{"from": "30"}},
		{NS: a, ID: "old-name", Kind: "fact", Title: "The mill's old name", Body: "The mill was called Greywater.",
			Meta: map[string]string{"until": "scene-11"}},
		{NS: "novel-b", ID: "mara", Kind: "character", Title: "Mara of Brightwater",
			Body: "ZEBRA-B Mara of the other novel, who also fears fire at the mill."},
	}
	l := func(from, rel, to string) store.Link { return store.Link{NS: a, From: from, Rel: rel, To: to} }
	links := []store.Link{
		l("mara", "appears_in", "scene-12"),
		l("tomas", "appears_in", "scene-12"),
		l("scene-12", "set_in", "mill"),
		l("miller", "owned", "mill"),
		l("curfew", "constrains", "scene-12"),
		l("scene-11", "precedes", "scene-12"),
		l("mara-tomas", "in_play", "scene-12"),
		l("theme-ash", "evokes", "scene-12"),
		l("mara-secret", "about", "scene-12"),
		l("old-name", "about", "mill"),
		{NS: "novel-b", From: "mara", Rel: "appears_in", To: "scene-12"},
	}
	return recs, links
}

// fxEnv is a real store and a real bleve index holding recs.
type fxEnv struct {
	st *store.Store
	ix *index.Index
}

// fxOpen builds the store and index from recs and links, in that order;
// counted says whether the store caches o200k_base counts at write time.
func fxOpen(t testing.TB, recs []store.Record, links []store.Link, counted bool) fxEnv {
	t.Helper()
	opts := &store.Options{Now: func() time.Time { return time.Unix(1700000000, 0).UTC() }}
	if counted {
		opts.Counters = []store.Counter{fxCounter(t)}
	}
	st := storetest.Open(t, opts)
	// Records of novel-b's scene-12 do not exist; keep links non-dangling.
	var extra []store.Record
	if slices.ContainsFunc(links, func(l store.Link) bool { return l.NS == "novel-b" }) {
		extra = append(extra, store.Record{NS: "novel-b", ID: "scene-12", Kind: "scene", Title: "B scene", Body: "Brightwater scene."})
	}
	if _, err := st.PutMany(append(slices.Clone(recs), extra...), links); err != nil {
		t.Fatalf("PutMany: %v", err)
	}
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), nil)
	if err != nil {
		t.Fatalf("index.Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	var all []store.Record
	if err := st.ForEach("", func(r store.Record) error { all = append(all, r); return nil }); err != nil {
		t.Fatalf("ForEach: %v", err)
	}
	seq, err := st.LastSeq()
	if err != nil {
		t.Fatalf("LastSeq: %v", err)
	}
	if err := ix.Apply(all, nil, seq); err != nil {
		t.Fatalf("index Apply: %v", err)
	}
	return fxEnv{st: st, ix: ix}
}

// fxSceneRequest asks for scene 12 with every condition on, so all eleven
// ranks but 11 have a record.
func fxSceneRequest(budgetTokens int) Request {
	return Request{NS: "novel-a", Focus: []string{"scene-12"}, Budget: budgetTokens, Scope: "scene",
		Task: "draft", When: []string{"power", "info-control", "thematic"}}
}

func fxBuild(t testing.TB, env fxEnv, req Request) (*Packet, []byte) {
	t.Helper()
	if req.Counter == nil {
		req.Counter = fxCounter(t)
	}
	p, err := Build(context.Background(), env.st, env.ix, req)
	if err != nil {
		t.Fatalf("Build(%+v): %v", req, err)
	}
	out, err := p.Render(p.Request.Format)
	if err != nil {
		t.Fatalf("Render(%s): %v", p.Request.Format, err)
	}
	return p, out
}

func entryIDs(p *Packet) []string {
	var ids []string
	for _, e := range p.Records {
		ids = append(ids, e.ID)
	}
	return ids
}

func findEntry(p *Packet, id string) (Entry, bool) {
	for _, e := range p.Records {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

func findNote(p *Packet, id string) (Note, bool) {
	for _, n := range p.Deferred {
		if n.ID == id {
			return n, true
		}
	}
	return Note{}, false
}

func describe(p *Packet) string {
	return fmt.Sprintf("records %v\n%s", entryIDs(p), p.Report())
}

// fxTurns is a conversation in ns: one "turn" record per body, with ids
// idFormat of 1, 2, ... (fmt verb %d), orders 1, 2, ..., and a "next"
// link from each to the one after; titles, when given, go round in turn
// (the speakers).
func fxTurns(ns, idFormat string, bodies []string, titles ...string) ([]store.Record, []store.Link) {
	var recs []store.Record
	var links []store.Link
	for i, body := range bodies {
		r := store.Record{NS: ns, ID: fmt.Sprintf(idFormat, i+1), Kind: "turn", Order: int64(i + 1), Body: body}
		if len(titles) > 0 {
			r.Title = titles[i%len(titles)]
			r.Meta = map[string]string{"speaker": r.Title}
		}
		if i > 0 {
			links = append(links, store.Link{NS: ns, From: recs[i-1].ID, Rel: "next", To: r.ID})
		}
		recs = append(recs, r)
	}
	return recs, links
}
