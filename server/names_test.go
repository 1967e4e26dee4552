package server_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestNamesThroughMCPAndHTTP puts aliases and keys through put_record and
// POST /v1/records and reads them back through both.
func TestNamesThroughMCPAndHTTP(t *testing.T) {
	dir := srvStore(t)
	cs := mcpClient(t, dir, nil)
	var put store.PutResult
	callJSON(t, cs, "put_record", map[string]any{"ns": "novel", "id": "sefa", "kind": "character", "title": "Sefa Dunmore",
		"aliases": []string{"Sefa"}, "keys": []string{"chart"}}, &put)
	if put.Status != store.StatusAdded {
		t.Fatalf("put_record: %+v", put)
	}
	var rec store.Record
	callJSON(t, cs, "get_record", map[string]any{"ns": "novel", "id": "sefa"}, &rec)
	if !reflect.DeepEqual(rec.Aliases, []string{"Sefa"}) || !reflect.DeepEqual(rec.Keys, []string{"chart"}) {
		t.Errorf("get_record after put_record: aliases %q keys %q", rec.Aliases, rec.Keys)
	}
	if _, err := callErr(t, cs, "put_record", map[string]any{"ns": "novel", "id": "reef", "aliases": []string{""}}); err == nil ||
		!strings.Contains(err.Error(), `record "reef" has an empty alias`) {
		t.Errorf("put_record with an empty alias: %v; want an error naming the record", err)
	}
	cs.Close()

	url := httpServer(t, dir, nil)
	status, body := do(t, "POST", url+"/v1/records", "", map[string]any{"ns": "novel", "id": "reef", "kind": "canon",
		"title": "The Needle", "aliases": []string{"the reef"}, "keys": []string{"half tide"}})
	if status != http.StatusOK {
		t.Fatalf("POST /v1/records: %d %s", status, body)
	}
	status, body = do(t, "GET", url+"/v1/records/novel/reef", "", nil)
	if status != http.StatusOK || !strings.Contains(body, `"aliases":["the reef"]`) || !strings.Contains(body, `"keys":["half tide"]`) {
		t.Errorf("GET /v1/records/novel/reef: %d %s; want its aliases and keys", status, body)
	}
	status, body = do(t, "POST", url+"/v1/packet", "", map[string]any{"ns": "novel", "profile": "novel", "query": "out past the reef",
		"scan_query": true, "mentions_depth": 2, "budget": "1k"})
	if status != http.StatusOK || !strings.Contains(body, `mentioned as \"the reef\" in the query`) {
		t.Errorf("POST /v1/packet with scan_query: %d %s; want the reef mentioned in the query", status, body)
	}
	status, body = do(t, "POST", url+"/v1/records", "", map[string]any{"ns": "novel", "id": "cliffs", "keys": []string{" x"}})
	if status != http.StatusBadRequest || !strings.Contains(body, `record \"cliffs\"`) {
		t.Errorf("POST a bad key: %d %s; want 400 naming the record", status, body)
	}
	srvCheck(t, dir)
}
