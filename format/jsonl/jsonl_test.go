package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/format"
	"github.com/lorekeep/lore/store"
)

func TestReadJSONLRecordsAndLinks(t *testing.T) {
	in := `{"id":"mara","kind":"character","title":"Mara","body":"She keeps the lamp.","summary":"lamp keeper","tags":["pov","lamp"],"meta":{"age":"31"},"order":2,"pinned":true,"links":[{"rel":"appears_in","to":"scene-01","weight":0.5},{"rel":"knows","to":"ivo"}]}

{"ns":"other","id":"x","binary":true}
{"link":{"from":"ghost","rel":"mentions","to":"mara"}}
{"link":{"ns":"other","from":"x","rel":"r","to":"y","weight":2}}
`
	recs, links, errs := Read(strings.NewReader(in), "in.jsonl", "novel")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	wantRecs := []store.Record{
		{NS: "novel", ID: "mara", Kind: "character", Title: "Mara", Body: "She keeps the lamp.", Summary: "lamp keeper",
			Tags: []string{"pov", "lamp"}, Meta: map[string]string{"age": "31"}, Order: 2, Pinned: true},
		{NS: "other", ID: "x", Binary: true},
	}
	if !reflect.DeepEqual(recs, wantRecs) {
		t.Errorf("records:\n got %+v\nwant %+v", recs, wantRecs)
	}
	wantLinks := []store.Link{
		{NS: "novel", From: "mara", Rel: "appears_in", To: "scene-01", Weight: 0.5},
		{NS: "novel", From: "mara", Rel: "knows", To: "ivo"},
		{NS: "novel", From: "ghost", Rel: "mentions", To: "mara"},
		{NS: "other", From: "x", Rel: "r", To: "y", Weight: 2},
	}
	if !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("links:\n got %+v\nwant %+v", links, wantLinks)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	good := `{"id":"ok"}`
	cases := []struct {
		name    string
		line    string
		want    string // a part of the message that says what is wrong
		invalid bool   // the error wraps store.ErrInvalid
	}{
		{"malformed", `{"id":"a",`, "malformed JSON", false},
		{"not json", `hello`, "malformed JSON", false},
		{"array", `["a"]`, "want an object", false},
		{"extra text", `{"id":"a"} {"id":"b"}`, `extra text "{\"id\":\"b\"}"`, false},
		{"missing id", `{"kind":"note"}`, `missing "id"`, false},
		{"null line", `null`, `missing "id"`, false},
		{"unknown field", `{"id":"a","colour":"red"}`, `unknown field "colour"`, false},
		{"wrong type", `{"id":"a","order":"three"}`, `field "order": got a JSON string, want a whole number`, false},
		{"a fraction", `{"id":"a","order":1.5}`, `field "order": got a JSON number 1.5, want a whole number`, false},
		{"tags not array", `{"id":"a","tags":"x"}`, `field "tags": got a JSON string, want an array`, false},
		{"bad namespace", `{"ns":"Bad NS","id":"a"}`, `namespace "Bad NS"`, true},
		{"namespace dots", `{"ns":"a/../b","id":"a"}`, `namespace "a/../b"`, true},
		{"control in id", `{"id":"a\u0007b"}`, `id "a\ab" has control character`, true},
		{"id too long", `{"id":"` + strings.Repeat("x", 300) + `"}`, "is 300 bytes long", true},
		{"invalid utf8", "{\"id\":\"a\",\"body\":\"b\xff\"}", "invalid UTF-8 at byte offset 19", false},
		{"binary with body", `{"id":"a","binary":true,"body":"x"}`, "binary and has a body", false},
		{"bad kind", `{"id":"a","kind":" padded"}`, `kind " padded" has leading or trailing space`, true},
		{"bad tag", `{"id":"a","tags":[""]}`, `tag "" is empty`, true},
		{"empty meta key", `{"id":"a","meta":{"":"v"}}`, "meta has an empty key", true},
		{"link no rel", `{"id":"a","links":[{"to":"b"}]}`, `links[0] of "a": missing "rel"`, false},
		{"link no to", `{"id":"a","links":[{"rel":"r"}]}`, `missing "to"`, false},
		{"link cross ns", `{"id":"a","links":[{"ns":"elsewhere","rel":"r","to":"b"}]}`, `names namespace "elsewhere": links cannot cross namespaces`, false},
		{"link cross to_ns", `{"id":"a","links":[{"to_ns":"elsewhere","rel":"r","to":"b"}]}`, `points into namespace "elsewhere"`, false},
		{"link unknown field", `{"id":"a","links":[{"rel":"r","to":"b","from":"c"}]}`, `unknown field "from"`, false},
		{"bare link with record", `{"id":"a","link":{"from":"a","rel":"r","to":"b"}}`, `a link line carries only "link"`, false},
		{"bare link no from", `{"link":{"rel":"r","to":"b"}}`, `link: missing "from"`, false},
		{"bare link bad ns", `{"link":{"ns":"UP","from":"a","rel":"r","to":"b"}}`, `namespace "UP"`, true},
		{"bare link cross ns", `{"link":{"from":"a","rel":"r","to":"b","to_ns":"x"}}`, `into namespace "x"`, false},
		{"bare link bad rel", `{"link":{"from":"a","rel":"r\tx","to":"b"}}`, `relation "r\tx" has control character`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The bad line is line 3: a good line, a blank line, the bad one, a good one.
			in := good + "\n\n" + c.line + "\n" + `{"id":"ok2"}` + "\n"
			recs, _, errs := Read(strings.NewReader(in), "data.jsonl", "novel")
			if len(errs) != 1 {
				t.Fatalf("input %q: got %d errors %v, want 1", c.line, len(errs), errs)
			}
			e := errs[0]
			if e.File != "data.jsonl" || e.Line != 3 {
				t.Errorf("input %q: error at %s:%d, want data.jsonl:3", c.line, e.File, e.Line)
			}
			if !strings.Contains(e.Error(), c.want) {
				t.Errorf("input %q: error %q does not say %q", c.line, e.Error(), c.want)
			}
			if !strings.HasPrefix(e.Error(), "data.jsonl:3: ") {
				t.Errorf("error %q does not start with file:line", e.Error())
			}
			if got := errors.Is(e, store.ErrInvalid); got != c.invalid {
				t.Errorf("input %q: errors.Is(err, store.ErrInvalid) = %v, want %v (err %v)", c.line, got, c.invalid, e)
			}
			if len(recs) != 2 {
				t.Errorf("input %q: got %d good records, want the 2 good lines", c.line, len(recs))
			}
		})
	}
}

func TestReadJSONLDuplicateAndNoNamespace(t *testing.T) {
	in := "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"a\",\"title\":\"again\"}\n{\"ns\":\"n2\",\"id\":\"a\"}\n"
	recs, _, errs := Read(strings.NewReader(in), "f", "n1")
	if len(errs) != 1 || errs[0].Line != 3 || !strings.Contains(errs[0].Error(), "first defined on line 1") {
		t.Fatalf("errors %v, want one duplicate error on line 3 naming line 1", errs)
	}
	if len(recs) != 3 {
		t.Errorf("got %d records, want 3 (the same id in another namespace is not a duplicate)", len(recs))
	}

	_, _, errs = Read(strings.NewReader("{\"id\":\"a\"}\n{\"link\":{\"from\":\"a\",\"rel\":\"r\",\"to\":\"b\"}}"), "f", "")
	if len(errs) != 2 || errs[0].Line != 1 || errs[1].Line != 2 {
		t.Fatalf("errors %v, want lines 1 and 2 to lack a namespace", errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "no default namespace") {
			t.Errorf("error %q does not say the namespace is missing", e)
		}
	}
}

func TestReadJSONLLongLineAndCRLF(t *testing.T) {
	body := strings.Repeat("lorem ipsum ", 1<<20) // 12 MiB on one line
	in := `{"id":"big","body":"` + body + "\"}\r\n{\"id\":\"small\"}"
	recs, _, errs := Read(strings.NewReader(in), "f", "n")
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(recs) != 2 || recs[0].Body != body || recs[1].ID != "small" {
		t.Fatalf("got %d records (first body %d bytes), want big (%d bytes) and small", len(recs), len(recs[0].Body), len(body))
	}
}

func TestReadJSONLReaderError(t *testing.T) {
	r := &failingReader{data: []byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n")}
	recs, _, errs := Read(r, "pipe", "n")
	if len(recs) != 2 || len(errs) != 1 || errs[0].Line != 3 || !errors.Is(errs[0], errBoom) {
		t.Fatalf("got %d records and errors %v, want 2 records and the read error on line 3", len(recs), errs)
	}
}

var errBoom = errors.New("boom")

type failingReader struct{ data []byte }

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errBoom
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestWriteJSONLRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	recs := []store.Record{
		{NS: "n", ID: "z", Kind: "scene", Body: "<b>&\"quoted\"</b>\nline two", Order: 3,
			Meta: map[string]string{"pov": "mara", "chapter": "1", "a": "b"}, Created: now, Updated: now, Version: 4, SHA256: "abc",
			Tokens: map[string]store.TokenCount{"o200k_base": {Title: 1, Body: 9}}},
		{NS: "n", ID: "a", Title: "A", Tags: []string{"t2", "t1"}, Pinned: true},
		{NS: "m", ID: "q", Binary: true},
	}
	links := []store.Link{
		{NS: "n", From: "z", Rel: "mentions", To: "b"},
		{NS: "n", From: "z", Rel: "appears_in", To: "a", Weight: 0.25},
		{NS: "n", From: "ghost", Rel: "knows", To: "a"},
		{NS: "n", From: "a", Rel: "knows", To: "z"},
		{NS: "m", From: "nobody", Rel: "r", To: "q"},
	}
	var buf bytes.Buffer
	if err := Write(&buf, recs, links); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 3 records and 2 bare links:\n%s", len(lines), out)
	}
	for i, prefix := range []string{`{"ns":"m","id":"q"`, `{"ns":"n","id":"a"`, `{"ns":"n","id":"z"`,
		`{"link":{"ns":"m","from":"nobody"`, `{"link":{"ns":"n","from":"ghost"`} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d = %s, want it to start with %s", i+1, lines[i], prefix)
		}
	}
	if !strings.Contains(lines[2], `"links":[{"rel":"appears_in","to":"a","weight":0.25},{"rel":"mentions","to":"b"}]`) {
		t.Errorf("links of z not embedded sorted by (rel, to): %s", lines[2])
	}
	for _, field := range []string{`"created":"2026-11-30T12:00:00Z"`, `"version":4`, `"sha256":"abc"`, `"body_bytes":25`, `"tokens":{"o200k_base"`, `<b>&`} {
		if !strings.Contains(lines[2], field) {
			t.Errorf("record z lacks %s: %s", field, lines[2])
		}
	}

	// Byte-for-byte deterministic, whatever the input order.
	var again bytes.Buffer
	rev := []store.Record{recs[2], recs[0], recs[1]}
	revLinks := []store.Link{links[4], links[3], links[2], links[1], links[0]}
	if err := Write(&again, rev, revLinks); err != nil {
		t.Fatal(err)
	}
	if again.String() != out {
		t.Errorf("output depends on input order:\n%s\nvs\n%s", out, again.String())
	}

	// Read back: same content and stamps (created, updated, version),
	// the store's bookkeeping (sha256, body_bytes, tokens) dropped, links
	// all there.
	got, gotLinks, errs := Read(strings.NewReader(out), "export.jsonl", "")
	if len(errs) != 0 {
		t.Fatalf("reading the export back: %v", errs)
	}
	want := []store.Record{
		{NS: "m", ID: "q", Binary: true},
		{NS: "n", ID: "a", Title: "A", Tags: []string{"t2", "t1"}, Pinned: true},
		{NS: "n", ID: "z", Kind: "scene", Body: recs[0].Body, Order: 3, Meta: recs[0].Meta, Created: now, Updated: now, Version: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n got %+v\nwant %+v", got, want)
	}
	if len(gotLinks) != len(links) {
		t.Fatalf("read back %d links, want %d", len(gotLinks), len(links))
	}
	var b2 bytes.Buffer
	if err := Write(&b2, got, gotLinks); err != nil {
		t.Fatal(err)
	}
	var b1 bytes.Buffer
	stripped := make([]store.Record, len(recs))
	for i, r := range recs {
		stripped[i] = store.Record{NS: r.NS, ID: r.ID, Kind: r.Kind, Title: r.Title, Body: r.Body, Summary: r.Summary,
			Tags: r.Tags, Meta: r.Meta, Order: r.Order, Pinned: r.Pinned, Binary: r.Binary,
			Created: r.Created, Updated: r.Updated, Version: r.Version}
	}
	if err := Write(&b1, stripped, links); err != nil {
		t.Fatal(err)
	}
	if b1.String() != b2.String() {
		t.Errorf("export -> import -> export changed the content:\n%s\nvs\n%s", b1.String(), b2.String())
	}
}

func TestReadJSONLStampsAndHistory(t *testing.T) {
	in := `{"id":"a","body":"one","created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:04:05Z","version":1}
{"id":"a","body":"two","created":"2026-01-02T03:04:05Z","updated":"2026-02-01T00:00:00Z","version":3}
{"id":"b","body":"x","version":2}
{"id":"b","body":"y","version":2}
{"id":"c","body":"x"}
{"id":"c","body":"y","version":5}
{"id":"d","created":"yesterday"}
{"id":"e","version":-1}
{"id":"f","version":"2"}
`
	recs, _, errs := Read(strings.NewReader(in), "in.jsonl", "n")
	if len(recs) != 4 || recs[1].Version != 3 || !recs[1].Updated.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("records %+v: want a's two versions (1 and 3, stamps kept), b and c once", recs)
	}
	want := []string{
		`in.jsonl:4: duplicate record "b" in namespace "n": first defined on line 3`,
		`in.jsonl:6: duplicate record "c"`,
		`in.jsonl:7: record "d": field "created": "yesterday" is not a time: want RFC 3339`,
		`in.jsonl:8: record "e": field "version": -1 is not a version`,
		`in.jsonl:9: record "f": field "version": "2" is not a version`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, e := range errs {
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d = %q, want it to start %q", i, e.Error(), want[i])
		}
	}
}

func TestWriteJSONLError(t *testing.T) {
	err := Write(errWriter{}, []store.Record{{NS: "n", ID: "a"}}, nil)
	if !errors.Is(err, errBoom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errBoom }

func TestInputErrorFormat(t *testing.T) {
	cases := []struct {
		e    format.InputError
		want string
	}{
		{format.InputError{File: "a.jsonl", Line: 7, Err: errBoom}, "a.jsonl:7: boom"},
		{format.InputError{File: "dir/x.md", Err: errBoom}, "dir/x.md: boom"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v.Error() = %q, want %q", c.e, got, c.want)
		}
		var err error = c.e
		if !errors.Is(err, errBoom) {
			t.Errorf("errors.Is(%v, cause) = false", err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, `{"id":"rec-%05d","kind":"note","title":"Record %d","body":"%s","tags":["a","b"],"links":[{"rel":"next","to":"rec-%05d"}]}`+"\n",
			i, i, strings.Repeat("word ", 40), i+1)
	}
	data := sb.String()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		recs, _, errs := Read(strings.NewReader(data), "bench", "n")
		if len(recs) != 10000 || len(errs) != 0 {
			b.Fatalf("got %d records, %d errors", len(recs), len(errs))
		}
	}
}

func TestReadJSONLByteOrderMark(t *testing.T) {
	recs, _, errs := Read(strings.NewReader("\ufeff{\"id\":\"a\"}\n\ufeff{\"id\":\"b\"}\n"), "bom.jsonl", "n")
	if len(recs) != 1 || recs[0].ID != "a" {
		t.Errorf("records %+v, want the first line read despite its byte-order mark", recs)
	}
	if len(errs) != 1 || errs[0].Line != 2 {
		t.Errorf("errors %v, want one on line 2 (a mark is only skipped at the start)", errs)
	}
}
