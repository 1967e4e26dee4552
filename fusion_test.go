package lore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/vector"
)

// unit returns a vector of dim dimensions pointing mostly along axis,
// with a little of every other axis so no two records tie.
func unit(dim, axis int, seed int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32((i*7+seed*13)%11) / 400
	}
	v[axis] = 1
	return v
}

func TestFusionFindsWordAndVectorAnswers(t *testing.T) {
	l, _ := openTemp(t)
	ctx := context.Background()
	const dim = 16
	put := func(id, body string, vec []float32) {
		t.Helper()
		if _, err := l.Put(ctx, store.Record{NS: "mem", ID: id, Kind: "memory", Body: body, Vector: vec}); err != nil {
			t.Fatal(err)
		}
	}
	put("by-words", "The tournament final is on Saturday at the riverside court.", unit(dim, 1, 1))
	put("by-vector", "We booked the big match for the weekend, down by the water.", unit(dim, 0, 2))
	for i := range 40 {
		put(fmt.Sprintf("other-%02d", i), fmt.Sprintf("Note %d about groceries, rent and the dentist on day %d.", i, i), unit(dim, 2+i%(dim-2), 3+i))
	}
	put("no-vector", "A tournament of chess, long ago.", nil) // found by words, never by vector
	query, qvec := "When is the tournament final?", unit(dim, 0, 5)

	ids := func(p *packet.Packet) []string {
		var out []string
		for _, e := range p.Records {
			out = append(out, e.ID)
		}
		return out
	}
	build := func(q string, v []float32) *packet.Packet {
		t.Helper()
		p, err := l.Packet(ctx, packet.Request{NS: "mem", Query: q, QueryVector: v, Budget: 300, Profile: "agent"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	both := build(query, qvec)
	if got := ids(both); !slices.Contains(got, "by-words") || !slices.Contains(got, "by-vector") {
		t.Errorf("words and vector: packet holds %v; want by-words and by-vector", got)
	}
	text := func(p *packet.Packet) string {
		t.Helper()
		b, err := p.Render("md")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if !strings.Contains(text(both), "query vector of 16 dimensions") {
		t.Errorf("the packet does not say it was asked with a vector:\n%s", text(both))
	}
	if again := build(query, qvec); text(again) != text(both) {
		t.Error("the same request with a vector gave different bytes")
	}
	words := build(query, nil)
	if got := ids(words); !slices.Contains(got, "by-words") || slices.Contains(got, "by-vector") {
		t.Errorf("words alone: packet holds %v; want by-words and not by-vector (it shares no word)", got)
	}
	if vec := build("", qvec); !slices.Contains(ids(vec), "by-vector") || ids(vec)[0] != "by-vector" {
		t.Errorf("vector alone: packet holds %v; want by-vector first", ids(vec))
	}

	hits, err := l.Search(ctx, index.Query{NS: "mem", Text: query, Vector: qvec, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var hitIDs []string
	for _, h := range hits {
		hitIDs = append(hitIDs, h.ID)
	}
	if !slices.Contains(hitIDs, "by-words") || !slices.Contains(hitIDs, "by-vector") {
		t.Errorf("search with words and vector: top 3 %v; want by-words and by-vector", hitIDs)
	}

	// A query vector of another dimension is refused, naming both.
	_, err = l.Packet(ctx, packet.Request{NS: "mem", Query: query, QueryVector: []float32{1, 2, 3}, Budget: 300, Profile: "agent"})
	if !errors.Is(err, vector.ErrQuery) || !strings.Contains(err.Error(), "3 dimensions") || !strings.Contains(err.Error(), "16") {
		t.Errorf("query vector of 3 dimensions: %v; want ErrQuery naming 3 and 16", err)
	}
	if _, err := l.Search(ctx, index.Query{NS: "mem", Vector: make([]float32, dim)}); !errors.Is(err, vector.ErrQuery) {
		t.Errorf("all-zero query vector: %v; want ErrQuery", err)
	}
}

// TestVectorsRoundTripThroughJSONL imports a record with a vector and
// one whose vector changed (two versions), exports, and reads the export
// into a new store: the vectors, current and past, come back exactly.
func TestVectorsRoundTripThroughJSONL(t *testing.T) {
	ctx := context.Background()
	in := `{"ns":"m","id":"a","body":"alpha","vector":[0.25,-1.5,3e-7]}
{"ns":"m","id":"b","body":"beta"}
`
	recs, links, errs := jsonl.Read(strings.NewReader(in), "in.jsonl", "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	l, _ := openTemp(t)
	if _, err := l.Import(ctx, recs, links); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(ctx, store.Record{NS: "m", ID: "a", Body: "alpha", Vector: []float32{1, 2, 3}}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := l.ExportWith(&out, "m", lore.ExportOptions{History: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"vector":[0.25,-1.5,3e-7]`) || !strings.Contains(out.String(), `"vector":[1,2,3]`) {
		t.Fatalf("export lacks the vectors:\n%s", out.String())
	}
	recs, links, errs = jsonl.Read(&out, "export.jsonl", "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	l2, _ := openTemp(t)
	if _, err := l2.Import(ctx, recs, links); err != nil {
		t.Fatal(err)
	}
	st := l2.Store()
	if got, _ := st.Get("m", "a"); !slices.Equal(got.Vector, []float32{1, 2, 3}) || got.Version != 2 {
		t.Errorf("after the round trip a is version %d with vector %v; want 2 with [1 2 3]", got.Version, got.Vector)
	}
	if v1, _ := st.GetVersion("m", "a", 1); !slices.Equal(v1.Vector, []float32{0.25, -1.5, 3e-7}) {
		t.Errorf("version 1 vector %v", v1.Vector)
	}

	// A bad vector in a file is refused, naming the record.
	recs, links, _ = jsonl.Read(strings.NewReader(`{"ns":"m","id":"c","vector":[]}`+"\n"), "bad.jsonl", "")
	if _, err := l.Import(ctx, recs, links); err == nil || !strings.Contains(err.Error(), "m/c") || !strings.Contains(err.Error(), "empty") {
		t.Errorf("import of an empty vector: %v; want an error naming m/c", err)
	}
}
