package demo_test

import (
	"bytes"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/format/markdown"
	"github.com/lorekeep/lore/store"
)

// canon is one novel of the embedded demo canon.
func canon(t *testing.T, ns string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(lore.DemoCanon(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// The demo canon: the root's testdata/demo/<namespace>/<kind>/<id>.md,
// embedded (lore.DemoCanon).
const (
	demoNovel  = "tidewater-lamp"
	demoNovel2 = "glass-orchard"
)

// novelKinds are the kinds of the novel profile's rank table.
var novelKinds = []string{"scene", "character", "canon", "obligation", "timeline",
	"relationship", "power-rule", "style", "reader-knowledge", "theme"}

func readDemo(t *testing.T, ns string) ([]store.Record, []store.Link) {
	t.Helper()
	recs, links, errs := markdown.ReadDir(canon(t, ns), ns)
	for _, e := range errs {
		t.Errorf("demo %s: %v", ns, e)
	}
	return recs, links
}

func TestDemoCanon(t *testing.T) {
	recs, links := readDemo(t, demoNovel)
	if len(recs) < 45 {
		t.Errorf("%s has %d records, want at least 45", demoNovel, len(recs))
	}
	byID := map[string]store.Record{}
	kinds := map[string]int{}
	withSummary := 0
	for _, r := range recs {
		byID[r.ID] = r
		kinds[r.Kind]++
		if r.Summary != "" {
			withSummary++
		}
		if r.Binary || r.Body == "" {
			t.Errorf("%s: empty or binary body", r.ID)
		}
	}
	for _, k := range novelKinds {
		if kinds[k] < 2 {
			t.Errorf("kind %s: %d records, want at least 2 (kinds: %v)", k, kinds[k], kinds)
		}
	}
	if withSummary*10 < len(recs)*9 {
		t.Errorf("%d of %d records have a summary, want at least 90%%", withSummary, len(recs))
	}

	// Every link, typed or wikilink, lands on a record of the same novel.
	rels := map[string]int{}
	for _, l := range links {
		rels[l.Rel]++
		if _, ok := byID[l.To]; !ok {
			t.Errorf("dangling link %s -%s-> %s", l.From, l.Rel, l.To)
		}
		if l.NS != demoNovel {
			t.Errorf("link %+v outside namespace %s", l, demoNovel)
		}
	}
	for _, rel := range []string{markdown.MentionsRel, "appears_in", "pov", "located_at", "bound_by", "knows", "touches"} {
		if rels[rel] == 0 {
			t.Errorf("no %q links in the demo (have %v)", rel, rels)
		}
	}

	// Scenes: positions 1..n, each with pov, location and chapter, the pov a
	// character linked by a pov edge; some long enough to force deferral.
	long := 0
	orders := map[int64]bool{}
	for _, r := range recs {
		if r.Kind != "scene" {
			continue
		}
		orders[r.Order] = true
		for _, k := range []string{"pov", "location", "chapter"} {
			if r.Meta[k] == "" {
				t.Errorf("scene %s lacks meta.%s", r.ID, k)
			}
		}
		if pov := byID[r.Meta["pov"]]; pov.Kind != "character" {
			t.Errorf("scene %s: pov %q is not a character", r.ID, r.Meta["pov"])
		}
		if !hasLink(links, r.ID, "pov", r.Meta["pov"]) {
			t.Errorf("scene %s: no pov link to %s", r.ID, r.Meta["pov"])
		}
		if n := len(strings.Fields(r.Body)); n >= 600 {
			long++
		}
	}
	for i := int64(1); i <= int64(kinds["scene"]); i++ {
		if !orders[i] {
			t.Errorf("no scene at order %d (orders %v)", i, orders)
		}
	}
	if long < 2 {
		t.Errorf("%d scenes of 600+ words, want at least 2", long)
	}
	for _, r := range recs {
		if r.Kind == "timeline" && r.Order < 1 {
			t.Errorf("timeline %s has no order", r.ID)
		}
	}

	// Obligations: due at a position, open or closed, both present.
	status := map[string]int{}
	for _, r := range recs {
		if r.Kind != "obligation" {
			continue
		}
		if _, err := strconv.Atoi(r.Meta["due"]); err != nil {
			t.Errorf("obligation %s: meta.due %q is not a position", r.ID, r.Meta["due"])
		}
		status[r.Meta["status"]]++
	}
	if status["open"] == 0 || status["closed"] == 0 || len(status) != 2 {
		t.Errorf("obligation statuses %v, want open and closed only", status)
	}

	// Story time: a fact true only from scene 6 on, and one until scene 5.
	if r := byID["canon-lamp-bound-mara"]; r.Kind != "canon" || r.Meta["from"] != "6" {
		t.Errorf("canon-lamp-bound-mara: kind %q meta %v, want canon from 6", r.Kind, r.Meta)
	}
	if r := byID["canon-lamp-bound-oren"]; r.Meta["until"] != "5" {
		t.Errorf("canon-lamp-bound-oren: meta %v, want until 5", r.Meta)
	}

	// The focus used in examples: scene-06 with its pov character.
	if r := byID["scene-06"]; r.Meta["pov"] != "mara" || r.Order != 6 {
		t.Errorf("scene-06: pov %q order %d, want mara at 6", r.Meta["pov"], r.Order)
	}
}

func hasLink(links []store.Link, from, rel, to string) bool {
	for _, l := range links {
		if l.From == from && l.Rel == rel && l.To == to {
			return true
		}
	}
	return false
}

func TestDemoSecondNovelWall(t *testing.T) {
	one, _ := readDemo(t, demoNovel)
	two, links := readDemo(t, demoNovel2)
	if len(two) < 8 {
		t.Errorf("%s has %d records, want at least 8", demoNovel2, len(two))
	}
	ids := map[string]store.Record{}
	for _, r := range two {
		ids[r.ID] = r
		if r.NS != demoNovel2 {
			t.Errorf("record %s in namespace %q", r.ID, r.NS)
		}
	}
	for _, l := range links {
		if _, ok := ids[l.To]; !ok {
			t.Errorf("dangling link %s -%s-> %s", l.From, l.Rel, l.To)
		}
	}
	var oren1 store.Record
	for _, r := range one {
		if r.ID == "oren" {
			oren1 = r
		}
	}
	oren2 := ids["oren"]
	if oren1.Title == "" || oren1.Title != oren2.Title {
		t.Fatalf("both novels need a character oren with the same name: %q vs %q", oren1.Title, oren2.Title)
	}
	if oren1.Summary == oren2.Summary || oren1.Body == oren2.Body || oren1.Meta["role"] == oren2.Meta["role"] {
		t.Errorf("the two Orens must have different facts")
	}
}

// TestDemoJSONLRoundTrip exports the demo as JSONL and reads it back.
func TestDemoJSONLRoundTrip(t *testing.T) {
	recs, links := readDemo(t, demoNovel)
	recs2, links2 := readDemo(t, demoNovel2)
	recs, links = append(recs2, recs...), append(links2, links...) // export order: (ns, id)
	var buf bytes.Buffer
	if err := jsonl.Write(&buf, recs, links); err != nil {
		t.Fatal(err)
	}
	got, gotLinks, errs := jsonl.Read(bytes.NewReader(buf.Bytes()), "demo.jsonl", "")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("records changed in the round trip")
	}
	var again bytes.Buffer
	if err := jsonl.Write(&again, got, gotLinks); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Errorf("second export differs from the first")
	}
}

// TestDemoTokenSize measures the demo with the real tokenizer: the first
// novel must not fit a scene budget, and its longest scene must not fit
// a budget of 2,000 tokens together with the canon it touches.
func TestDemoTokenSize(t *testing.T) {
	c, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{demoNovel, demoNovel2} {
		recs, _ := readDemo(t, ns)
		total, words, maxScene := 0, 0, 0
		for _, r := range recs {
			n := c.Count(r.Title) + c.Count(r.Summary) + c.Count(r.Body)
			total += n
			words += len(strings.Fields(r.Body))
			if r.Kind == "scene" {
				maxScene = max(maxScene, c.Count(r.Body))
			}
		}
		t.Logf("%s: %d records, %d body words, %d o200k tokens (title+summary+body), longest scene body %d tokens",
			ns, len(recs), words, total, maxScene)
		if ns == demoNovel && (total <= 8000 || maxScene < 1500) {
			t.Errorf("%s: %d tokens in all, longest scene %d: want more than a scene budget (8,000) and a scene of 1,500+",
				ns, total, maxScene)
		}
	}
}
