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
// any error, none. A record that does not exist yet keeps the created,
// updated and version it carries (an export's), and the same record given
// several times with increasing versions brings its history along (see
// store.Store.RestoreContext); a record that exists gets a new version.
// The summary counts records, not lines: one added with its history is 1.
func (l *Lore) Import(ctx context.Context, recs []store.Record, links []store.Link) (ImportSummary, error) {
	var sum ImportSummary
	res, err := l.st.RestoreContext(ctx, recs, links)
	if err == nil {
		err = l.afterWrite(ctx)
	}
	status := map[[2]string]store.PutStatus{}
	var order [][2]string
	for _, r := range res {
		k := [2]string{r.NS, r.ID}
		prev, seen := status[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || prev == store.StatusUnchanged || r.Status == store.StatusAdded {
			status[k] = r.Status
		}
	}
	for _, k := range order {
		switch status[k] {
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

// ExportOptions choose what Export writes beside the current records.
type ExportOptions struct {
	// History writes each record's kept earlier versions before it,
	// oldest first, each a line of its own with its "version".
	History bool
}

// Export writes the records and links of namespace ns ("" for all) as
// JSONL that Import reads back, into an empty store, to a store that
// exports the same bytes.
func (l *Lore) Export(w io.Writer, ns string) error {
	return l.ExportWith(w, ns, ExportOptions{})
}

// ExportWith is Export with options.
func (l *Lore) ExportWith(w io.Writer, ns string, opts ExportOptions) error {
	var recs []store.Record
	if err := l.st.ForEach(ns, func(r store.Record) error {
		if opts.History && r.Version > 1 {
			hist, err := l.st.History(r.NS, r.ID)
			if err != nil {
				return err
			}
			recs = append(recs, hist[:len(hist)-1]...) // the current one is r
		}
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
