package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/store"
)

// fullContent is a record's content with every field of store.Content
// set, found by reflection: a field added to Content is set here without
// a change to this test, so every interface below must carry it. Values
// a put checks (the namespace, id, kind, tags, meta keys) are valid ones;
// a binary record has no body, so two records cover both.
func fullContent(t *testing.T, id string, binary bool) store.Content {
	t.Helper()
	var c store.Content
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString("value-of-" + name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(7)
		case reflect.Slice:
			switch f.Type().Elem().Kind() {
			case reflect.String:
				f.Set(reflect.ValueOf([]string{"one-" + name, "two-" + name}).Convert(f.Type()))
			case reflect.Float32:
				f.Set(reflect.ValueOf([]float32{0.25, -0.5, 1}))
			default:
				t.Fatalf("Content.%s: a slice of %s, which this test cannot fill yet: teach it", name, f.Type().Elem())
			}
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]string{"key-of-" + name: "value"}).Convert(f.Type()))
		default:
			t.Fatalf("Content.%s: a %s, which this test cannot fill yet: teach it", name, f.Kind())
		}
	}
	c.NS, c.ID, c.Kind = "schema", id, "note"
	c.Binary = binary
	if binary {
		c.Body = ""
	}
	return c
}

// TestContentRoundTrips puts records with every field of store.Content
// through each interface and reads them back through the same one: the
// library, a JSONL export read back, the MCP tools and the HTTP API.
// Each must give back every field as it was given.
func TestContentRoundTrips(t *testing.T) {
	ctx := context.Background()
	want := []store.Content{fullContent(t, "text-record", false), fullContent(t, "binary-record", true)}
	check := func(via string, got store.Content, w store.Content) {
		t.Helper()
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s gave back\n%+v\nwant\n%+v", via, got, w)
		}
	}

	// The library and JSONL.
	dir := srvStore(t)
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range want {
		if _, err := l.Put(ctx, c.Record()); err != nil {
			t.Fatalf("put %s: %v", c.ID, err)
		}
		r, err := l.Get(c.NS, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("the library", store.ContentOf(r), c)
		var buf bytes.Buffer
		if err := jsonl.Write(&buf, []store.Record{r}, nil); err != nil {
			t.Fatal(err)
		}
		recs, _, errs := jsonl.Read(&buf, "export.jsonl", "")
		if len(errs) > 0 || len(recs) != 1 {
			t.Fatalf("JSONL read back: %d records, errors %v", len(recs), errs)
		}
		check("JSONL", store.ContentOf(recs[0]), c)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	// MCP: put_record, then get_record with the vector.
	cs := mcpClient(t, srvStore(t), nil)
	for _, c := range want {
		call(t, cs, "put_record", c)
		var got store.Content
		texts := call(t, cs, "get_record", map[string]any{"ns": c.NS, "id": c.ID, "with_vector": true})
		if err := json.Unmarshal([]byte(texts[0]), &got); err != nil {
			t.Fatalf("get_record answer %q: %v", texts[0], err)
		}
		check("MCP", got, c)
	}

	// HTTP: POST /v1/records, then GET it with the vector.
	url := httpServer(t, srvStore(t), nil)
	for _, c := range want {
		if status, body := do(t, "POST", url+"/v1/records", "", c); status != 200 {
			t.Fatalf("POST %s: %d %s", c.ID, status, body)
		}
		status, body := do(t, "GET", url+"/v1/records/"+c.NS+"/"+c.ID+"?with_vector=true", "", nil)
		var got store.Content
		if status != 200 || json.Unmarshal([]byte(body), &got) != nil {
			t.Fatalf("GET %s: %d %s", c.ID, status, body)
		}
		check("HTTP", got, c)
	}
}
