package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecallWithVectors gives the fixture's records vectors as a model
// would (each its own direction) and a question that shares no word
// with its evidence the evidence's direction: words alone miss it, the
// packet asked with the vector holds it. A vector file naming a record
// the data lacks is refused by line.
func TestRecallWithVectors(t *testing.T) {
	dir := t.TempDir()
	recs, err := readEvalJSONL[evalRecord]("testdata/recall/records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// One question that shares no word with its evidence (D1:4: "saw an
	// otter on the second"), as most of the evidence words miss does.
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	b, err := os.ReadFile("testdata/recall/records.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "records.jsonl"), b, 0o644)
	os.WriteFile(filepath.Join(data, "queries.jsonl"), []byte(`{"namespace": "talk", "qid": "talk/p1", "question": "Which animal did he spot up north?", "category": 1, "evidence": ["D1:4"], "answer": "an otter"}`+"\n"), 0o644)
	qs, err := readEvalJSONL[evalQuery](filepath.Join(data, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	axis := map[string]int{}
	var rv, qv strings.Builder
	for i, r := range recs {
		axis[r.ID] = i
		v := make([]float32, len(recs))
		v[i] = 1
		b, _ := json.Marshal(recordVector{Namespace: r.Namespace, ID: r.ID, Vector: v})
		fmt.Fprintf(&rv, "%s\n", b)
	}
	for _, q := range qs {
		v := make([]float32, len(recs))
		for _, e := range q.Evidence {
			v[axis[e]] = 1
		}
		b, _ := json.Marshal(queryVector{QID: q.QID, Vector: v})
		fmt.Fprintf(&qv, "%s\n", b)
	}
	recFile, qFile := filepath.Join(dir, "rv.jsonl"), filepath.Join(dir, "qv.jsonl")
	os.WriteFile(recFile, []byte(rv.String()), 0o644)
	os.WriteFile(qFile, []byte(qv.String()), 0o644)

	recall := func(extra ...string) map[int]float64 {
		t.Helper()
		out := filepath.Join(t.TempDir(), "recall.json")
		var stdout, stderr bytes.Buffer
		args := append([]string{"recall", "-data", data, "-budgets", "300,450", "-json", out}, extra...)
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("recall %v: %v\n%s", extra, err, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var rep recallReport
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		return map[int]float64{300: rep.Cells[methodLore][300]["all"].Recall, 450: rep.Cells[methodLore][450]["all"].Recall}
	}
	words := recall()
	both := recall("-record-vectors", recFile, "-query-vectors", qFile)
	t.Logf("recall by words %v, with vectors %v", words, both)
	for _, b := range []int{300, 450} {
		if words[b] >= 0.99 {
			t.Errorf("budget %d: words alone found the evidence (%.3f): the question no longer needs its vector", b, words[b])
		}
		if both[b] < 0.99 {
			t.Errorf("budget %d: recall with the evidence's own vector %.3f; want all of it", b, both[b])
		}
	}

	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"namespace": "talk", "id": "D9:9", "vector": [1]}`+"\n"), 0o644)
	var stderr bytes.Buffer
	err = run(context.Background(), []string{"recall", "-data", "testdata/recall", "-record-vectors", bad}, &bytes.Buffer{}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") || !strings.Contains(err.Error(), "D9:9") {
		t.Errorf("a vector of no record: %v; want an error naming the line and the id", err)
	}
}
