//go:build fts5

package main

import (
	"strings"
	"testing"
)

// The FTS5 baseline stores every record and finds, for the bench's
// queries, hits of the asked namespace only. Run with
// `go test -tags fts5 ./cmd/lore-bench` (cgo).
func TestFTS5Baseline(t *testing.T) {
	dir := t.TempDir()
	c := corpus{seed: 1, n: 2000}
	a := phaseArgs{Dir: dir, N: c.n, Seed: 1, Batch: 500, Queries: 40}
	res, err := ingestFTS5(c, a)
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != c.n || res.Seconds <= 0 {
		t.Fatalf("ingest: %d records in %v s; want %d", res.Records, res.Seconds, c.n)
	}
	db, err := openFTS5(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	found := 0
	for _, q := range c.queries(a.Queries) {
		rows, err := db.Query(`SELECT ns, id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 50`, fts5Match(q.NS, q.Text))
		if err != nil {
			t.Fatalf("%q: %v", q.Text, err)
		}
		for rows.Next() {
			var ns, id string
			if err := rows.Scan(&ns, &id); err != nil {
				t.Fatal(err)
			}
			if ns != q.NS || !strings.HasPrefix(id, "r") {
				t.Errorf("query %q in %s: hit %s/%s", q.Text, q.NS, ns, id)
			}
			found++
		}
		rows.Close()
	}
	if found == 0 {
		t.Fatal("no query found anything")
	}
	s, err := searchFTS5(c, a)
	if err != nil || s.Latency["top50"].Count != a.Queries {
		t.Fatalf("search: %+v %v", s.Latency, err)
	}
}
