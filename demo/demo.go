// Package demo loads the bundled demo canon (lore.DemoCanon: two small
// original novels, one namespace each) into a store: what `lore demo`
// shows a new user, and what the examples and tests build packets from.
// It lives apart from the root package so that a program that stores
// records does not link the markdown reader and its YAML.
package demo

import (
	"context"
	"fmt"
	"io/fs"
	"sort"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/format/markdown"
	"github.com/lorekeep/lore/store"
)

// Load imports every novel of the demo canon into l, one namespace per
// top-level folder, in one transaction.
func Load(ctx context.Context, l *lore.Lore) (lore.ImportSummary, error) {
	canon := lore.DemoCanon()
	entries, err := fs.ReadDir(canon, ".")
	if err != nil {
		return lore.ImportSummary{}, err
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
			return lore.ImportSummary{}, err
		}
		r, lk, errs := markdown.ReadDir(sub, ns)
		if len(errs) > 0 {
			return lore.ImportSummary{Errors: errs}, fmt.Errorf("demo canon %s: %d bad file(s), first: %v", ns, len(errs), errs[0])
		}
		recs, links = append(recs, r...), append(links, lk...)
	}
	return l.Import(ctx, recs, links)
}
