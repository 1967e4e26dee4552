package lore_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/store"
)

// TestNamesJSONLRoundTrip writes aliases and keys as JSONL and reads them
// back; an empty alias is refused, naming the record.
func TestNamesJSONLRoundTrip(t *testing.T) {
	recs := []store.Record{{NS: "novel", ID: "sefa", Kind: "character", Title: "Sefa Dunmore",
		Aliases: []string{"Sefa", "the surveyor"}, Keys: []string{"chart"}}}
	var buf bytes.Buffer
	if err := jsonl.Write(&buf, recs, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"aliases":["Sefa","the surveyor"],"keys":["chart"]`) {
		t.Errorf("export lacks the names: %s", buf.String())
	}
	got, _, errs := jsonl.Read(&buf, "x.jsonl", "")
	if len(errs) != 0 || len(got) != 1 || !reflect.DeepEqual(got[0].Aliases, recs[0].Aliases) || !reflect.DeepEqual(got[0].Keys, recs[0].Keys) {
		t.Errorf("read back %+v, %v", got, errs)
	}
	_, _, errs = jsonl.Read(strings.NewReader(`{"ns":"novel","id":"reef","aliases":["the Needle",""]}`), "x.jsonl", "")
	if len(errs) != 1 || errs[0].Line != 1 || !strings.Contains(errs[0].Error(), `record "reef" has an empty alias`) {
		t.Errorf("empty alias: %v; want an error on line 1 naming the record", errs)
	}
	_, _, errs = jsonl.Read(strings.NewReader(`{"link":{"from":"a","rel":"r","to":"b"},"keys":["x"]}`), "x.jsonl", "novel")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `a link line carries only "link"`) {
		t.Errorf("keys on a link line: %v", errs)
	}
}
