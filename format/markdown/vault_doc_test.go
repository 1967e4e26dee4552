package markdown

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// docBlockRE finds the fenced blocks of a markdown document with their
// info strings ("md file=PATH", "text records", ...).
var docBlockRE = regexp.MustCompile("(?ms)^```([^\\n`]*)\\n(.*?)^```\\n")

// TestVaultDocExamples imports the files docs/VAULT.md shows and checks
// that they give the records, links and warnings it lists: the reference
// cannot drift from the reader.
func TestVaultDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/VAULT.md")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	want := map[string]string{}
	for _, m := range docBlockRE.FindAllStringSubmatch(string(doc), -1) {
		info := strings.Fields(m[1])
		switch {
		case len(info) == 2 && info[0] == "md" && strings.HasPrefix(info[1], "file="):
			files[strings.TrimPrefix(info[1], "file=")] = m[2]
		case len(info) == 2 && info[0] == "text":
			want[info[1]] = m[2]
		}
	}
	if len(files) < 5 || len(want) != 3 {
		t.Fatalf("docs/VAULT.md: %d example files and blocks %v; want at least 5 files and records, links, warnings", len(files), slices.Sorted(mapKeys(want)))
	}
	recs, links, errs, warns := ReadDirWarn(mapFS(files), "n")
	if len(errs) > 0 {
		t.Fatalf("the documented examples do not import: %v", errs)
	}
	var got = map[string]*strings.Builder{"records": {}, "links": {}, "warnings": {}}
	for _, r := range recs {
		fmt.Fprintln(got["records"], docRecordLine(r))
	}
	for _, l := range links {
		fmt.Fprintf(got["links"], "%s -%s-> %s\n", l.From, l.Rel, l.To)
	}
	for _, w := range warns {
		fmt.Fprintln(got["warnings"], w.Error())
	}
	for name, b := range got {
		if b.String() != want[name] {
			t.Errorf("docs/VAULT.md, block %q says:\n%s\nthe reader gives:\n%s", name, want[name], b.String())
		}
	}
}

// docRecordLine is a record as docs/VAULT.md lists it.
func docRecordLine(r store.Record) string {
	s := fmt.Sprintf("%s %s %q", r.ID, r.Kind, r.Title)
	if r.Summary != "" {
		s += fmt.Sprintf(" summary=%q", r.Summary)
	}
	if len(r.Tags) > 0 {
		s += " tags=[" + strings.Join(r.Tags, ", ") + "]"
	}
	if len(r.Aliases) > 0 {
		s += " aliases=[" + strings.Join(r.Aliases, ", ") + "]"
	}
	if len(r.Keys) > 0 {
		s += " keys=[" + strings.Join(r.Keys, ", ") + "]"
	}
	if r.Order != 0 {
		s += fmt.Sprintf(" order=%d", r.Order)
	}
	if r.Pinned {
		s += " pinned"
	}
	if len(r.Meta) > 0 {
		var kv []string
		for _, k := range slices.Sorted(mapKeys(r.Meta)) {
			kv = append(kv, fmt.Sprintf("%s: %q", k, r.Meta[k]))
		}
		s += " meta={" + strings.Join(kv, ", ") + "}"
	}
	return s
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
