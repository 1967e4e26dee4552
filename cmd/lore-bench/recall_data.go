package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/lorekeep/lore/store"
)

// evalRecord is one line of an evidence-recall records.jsonl: the shared
// format of ../shared/eval (LoCoMo turned into one record a turn). Meta
// values may be numbers; links are the record's outgoing edges.
type evalRecord struct {
	Namespace string         `json:"namespace"`
	ID        string         `json:"id"`
	Kind      string         `json:"kind"`
	Title     string         `json:"title"`
	Text      string         `json:"text"`
	Links     []evalLink     `json:"links"`
	Meta      map[string]any `json:"meta"`
}

type evalLink struct {
	Rel string `json:"rel"`
	To  string `json:"to"`
}

// evalQuery is one line of queries.jsonl: a question with its gold
// evidence (record ids of its namespace) and its gold answer (a string,
// a number, or none: see answerString).
type evalQuery struct {
	Namespace string   `json:"namespace"`
	QID       string   `json:"qid"`
	Question  string   `json:"question"`
	Category  int      `json:"category"`
	Evidence  []string `json:"evidence"`
	Answer    any      `json:"answer"`

	ans        string // the answer normalised for matching (markExtractive)
	extractive bool   // an evidence record's text holds the answer
}

// readEvalJSONL reads one JSON object a line into T; blank lines are
// skipped, and an error names the file and the line.
func readEvalJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// toStore converts the shared records into Lore records and links: text
// becomes the body, meta values become strings (numbers in their shortest
// form), and the position in the file within its namespace becomes
// Order, so turns keep their order however their ids sort.
func toStore(recs []evalRecord) ([]store.Record, []store.Link) {
	out := make([]store.Record, 0, len(recs))
	var links []store.Link
	pos := map[string]int64{}
	for _, r := range recs {
		pos[r.Namespace]++
		meta := make(map[string]string, len(r.Meta))
		for k, v := range r.Meta {
			meta[k] = metaString(v)
		}
		out = append(out, store.Record{NS: r.Namespace, ID: r.ID, Kind: r.Kind, Title: r.Title,
			Body: r.Text, Meta: meta, Order: pos[r.Namespace]})
		for _, l := range r.Links {
			links = append(links, store.Link{NS: r.Namespace, From: r.ID, Rel: l.Rel, To: l.To})
		}
	}
	return out, links
}

func metaString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// writeImportJSONL writes recs and their links in the JSONL form `lore
// import` reads, one record a line with its outgoing links embedded.
func writeImportJSONL(w io.Writer, recs []evalRecord) error {
	conv, _ := toStore(recs)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i, r := range conv {
		line := struct {
			NS    string            `json:"ns"`
			ID    string            `json:"id"`
			Kind  string            `json:"kind,omitempty"`
			Title string            `json:"title,omitempty"`
			Body  string            `json:"body,omitempty"`
			Meta  map[string]string `json:"meta,omitempty"`
			Order int64             `json:"order,omitempty"`
			Links []evalLink        `json:"links,omitempty"`
		}{r.NS, r.ID, r.Kind, r.Title, r.Body, r.Meta, r.Order, recs[i].Links}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
