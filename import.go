package lore

import (
	"context"
	"io"

	"github.com/lorekeep/lore/store"
)

// ImportSummary says what an import did.
type ImportSummary struct {
	Added     int          `json:"added"`
	Updated   int          `json:"updated"`
	Unchanged int          `json:"unchanged"`
	Links     int          `json:"links"`
	Errors    []InputError `json:"errors,omitempty"`
	// Warnings are inputs read that may not do what they seem to (an
	// empty wikilink makes no link); they do not stop an import.
	Warnings []InputError `json:"warnings,omitempty"`
}

// Import stores records and links in one transaction: all of them or, on
// any error, none.
func (l *Lore) Import(ctx context.Context, recs []store.Record, links []store.Link) (ImportSummary, error) {
	var sum ImportSummary
	res, err := l.PutMany(ctx, recs, links)
	for _, r := range res {
		switch r.Status {
		case store.StatusAdded:
			sum.Added++
		case store.StatusUpdated:
			sum.Updated++
		case store.StatusUnchanged:
			sum.Unchanged++
		}
	}
	if err == nil {
		sum.Links = len(links)
	}
	return sum, err
}

// Export writes the records and links of namespace ns ("" for all) as
// JSONL that Import reads back to an identical store.
func (l *Lore) Export(w io.Writer, ns string) error {
	var recs []store.Record
	if err := l.st.ForEach(ns, func(r store.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		return err
	}
	var links []store.Link
	if err := l.st.ForEachLink(ns, func(lk store.Link) error {
		links = append(links, lk)
		return nil
	}); err != nil {
		return err
	}
	return WriteJSONL(w, recs, links)
}
