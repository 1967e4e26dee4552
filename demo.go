package lore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"github.com/lorekeep/lore/store"
)

// demoFiles is the bundled demo canon: two original small novels, one
// namespace each (see testdata/demo/README.md).
//
//go:embed testdata/demo
var demoFiles embed.FS

// Demo namespaces and the focus of the packet `lore demo` prints.
const (
	DemoNS     = "tidewater-lamp"
	DemoFocus  = "scene-03"
	DemoBudget = 3000
)

// DemoCanon returns the demo canon: one folder per namespace, each a
// markdown folder that ReadMarkdownDir reads.
func DemoCanon() fs.FS {
	sub, err := fs.Sub(demoFiles, "testdata/demo")
	if err != nil {
		panic(err) // the embedded path is fixed at build time
	}
	return sub
}

// LoadDemo imports every novel of the demo canon into l, one namespace per
// top-level folder, in one transaction.
func LoadDemo(ctx context.Context, l *Lore) (ImportSummary, error) {
	canon := DemoCanon()
	entries, err := fs.ReadDir(canon, ".")
	if err != nil {
		return ImportSummary{}, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var (
		recs  []store.Record
		links []store.Link
	)
	for _, ns := range names {
		sub, err := fs.Sub(canon, ns)
		if err != nil {
			return ImportSummary{}, err
		}
		r, lk, errs := ReadMarkdownDir(sub, ns)
		if len(errs) > 0 {
			return ImportSummary{Errors: errs}, fmt.Errorf("demo canon %s: %d bad file(s), first: %v", ns, len(errs), errs[0])
		}
		recs, links = append(recs, r...), append(links, lk...)
	}
	return l.Import(ctx, recs, links)
}
