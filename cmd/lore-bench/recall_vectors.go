package main

import (
	"fmt"

	"github.com/lorekeep/lore/store"
)

// A user with an embedding model measures what its vectors add to the
// packets: embed every record's text and every question with it, write
// the two files below, and give them to `lore-bench recall` with
// -record-vectors and -query-vectors. The packets are then asked with
// the question's vector, fused with its words (the store's lore.json
// fusion section, see -config); the baselines stay BM25 as they were.
//
//	record vectors: {"namespace": "conv-26", "id": "D1:3", "vector": [0.012, -0.094, ...]}
//	query vectors:  {"qid": "conv-26-q1", "vector": [0.051, 0.007, ...]}

type recordVector struct {
	Namespace string    `json:"namespace"`
	ID        string    `json:"id"`
	Vector    []float32 `json:"vector"`
}

type queryVector struct {
	QID    string    `json:"qid"`
	Vector []float32 `json:"vector"`
}

// readRecordVectors reads a record-vectors file into a map by
// (namespace, id); a line naming no record of the data is an error, so
// a file made for other data is not silently half used.
func readRecordVectors(path string, recs []evalRecord) (map[[2]string][]float32, error) {
	lines, err := readEvalJSONL[recordVector](path)
	if err != nil {
		return nil, err
	}
	known := make(map[[2]string]bool, len(recs))
	for _, r := range recs {
		known[[2]string{r.Namespace, r.ID}] = true
	}
	out := make(map[[2]string][]float32, len(lines))
	for i, l := range lines {
		k := [2]string{l.Namespace, l.ID}
		if !known[k] {
			return nil, fmt.Errorf("%s:%d: no record %q in namespace %q in records.jsonl", path, i+1, l.ID, l.Namespace)
		}
		out[k] = l.Vector
	}
	return out, nil
}

// readQueryVectors reads a query-vectors file into a map by qid.
func readQueryVectors(path string) (map[string][]float32, error) {
	lines, err := readEvalJSONL[queryVector](path)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]float32, len(lines))
	for _, l := range lines {
		out[l.QID] = l.Vector
	}
	return out, nil
}

// withVectors gives each converted record its vector from vecs.
func withVectors(recs []store.Record, vecs map[[2]string][]float32) {
	for i := range recs {
		recs[i].Vector = vecs[[2]string{recs[i].NS, recs[i].ID}]
	}
}
