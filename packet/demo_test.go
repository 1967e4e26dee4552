package packet

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/lorekeep/lore/store"
)

// demoNS is the namespace of the demo canon.
const demoNS = "tidewater-lamp"

// fxDemo opens a real store and index holding the demo canon (the 49
// records of testdata/demo/tidewater-lamp as `lore export` writes them,
// kept in testdata/demo.jsonl: the markdown importer lives in the root
// package, which imports this one).
func fxDemo(t testing.TB) fxEnv {
	t.Helper()
	f, err := os.Open("testdata/demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []store.Record
	var links []store.Link
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			store.Record
			Links []struct{ Rel, To string } `json:"links"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("testdata/demo.jsonl: %v", err)
		}
		recs = append(recs, line.Record)
		for _, l := range line.Links {
			links = append(links, store.Link{NS: line.NS, From: line.ID, Rel: l.Rel, To: l.To})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 49 || len(links) != 294 {
		t.Fatalf("demo canon: %d records, %d links; want 49 and 294 (as lore import reports)", len(recs), len(links))
	}
	return fxOpen(t, recs, links, true)
}

// demoRequest is `lore packet --ns tidewater-lamp --focus FOCUS --hops 2
// --budget N`.
func demoRequest(focus string, hops, budgetTokens int) Request {
	return Request{NS: demoNS, Focus: []string{focus}, Hops: hops, Budget: budgetTokens}
}
