package lore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lorekeep/lore/format"
	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/store"
)

// ImportSummary says what an import did.
type ImportSummary struct {
	Added     int                 `json:"added"`
	Updated   int                 `json:"updated"`
	Unchanged int                 `json:"unchanged"`
	Links     int                 `json:"links"`
	Errors    []format.InputError `json:"errors,omitempty"`
	// Warnings are inputs read that may not do what they seem to (an
	// empty wikilink makes no link); they do not stop an import.
	Warnings []format.InputError `json:"warnings,omitempty"`
	// Batches is how many transactions an import too large for one took
	// (etcd only); 0 means one transaction, all or nothing.
	Batches int `json:"batches,omitempty"`
	// IndexBehind is set when the records were written but ctx ended
	// before the index took them in: the next open catches it up.
	IndexBehind bool `json:"index_behind,omitempty"`
}

// Import stores records and links in one transaction: all of them or, on
// any error, none. A record that does not exist yet keeps the created,
// updated and version it carries (an export's), and the same record given
// several times with increasing versions brings its history along (see
// store.Store.RestoreContext); a record that exists gets a new version.
// The summary counts records, not lines: one added with its history is 1.
//
// On an etcd store, an import too large for one transaction goes in
// batches instead (Batches says how many), each all or nothing, in input
// order, never splitting the versions of one record. If one fails, the
// batches before it stay written: run the same import again to resume,
// since a batch already written puts identical content and changes nothing.
func (l *Lore) Import(ctx context.Context, recs []store.Record, links []store.Link) (ImportSummary, error) {
	var sum ImportSummary
	res, err := l.st.RestoreContext(ctx, recs, links)
	if errors.Is(err, store.ErrTooLarge) && l.shared {
		res, sum.Batches, err = l.importBatches(ctx, recs, links)
	}
	if err == nil {
		if ierr := l.catchUpNow(ctx); ierr != nil {
			if ctx.Err() == nil {
				err = ierr
			} else {
				// Stopped (a signal) after the commit: the write stands,
				// whole, and the index catches up on the next open.
				sum.IndexBehind = true
			}
		}
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
	return jsonl.Write(w, recs, links)
}

// importBatches writes recs, then links, in the fewest transactions the
// cluster takes: a part refused as too large is halved (at a boundary
// between records, keeping one record's versions together) and tried
// again; a refused write writes nothing, so trying costs no cleanup.
func (l *Lore) importBatches(ctx context.Context, recs []store.Record, links []store.Link) ([]store.PutResult, int, error) {
	var out []store.PutResult
	batches := 0
	var put func(rs []store.Record, ls []store.Link) error
	put = func(rs []store.Record, ls []store.Link) error {
		res, err := l.st.RestoreContext(ctx, rs, ls)
		if err == nil {
			out = append(out, res...)
			batches++
			return nil
		}
		if !errors.Is(err, store.ErrTooLarge) {
			return err
		}
		if len(rs) > 0 {
			cut := recordCut(rs)
			if cut == 0 {
				return fmt.Errorf("record %s/%s with its %d versions is too large for one transaction on this cluster: %w", rs[0].NS, rs[0].ID, len(rs), err)
			}
			if err := put(rs[:cut], nil); err != nil {
				return err
			}
			return put(rs[cut:], ls)
		}
		if len(ls) < 2 {
			return err
		}
		if err := put(nil, ls[:len(ls)/2]); err != nil {
			return err
		}
		return put(nil, ls[len(ls)/2:])
	}
	if len(links) > 0 && len(recs) > 0 {
		// Records first, then links: a link may name any record.
		if err := put(recs, nil); err != nil {
			return out, batches, fmt.Errorf("import in batches: %d written before this error (run the same import again to resume): %w", batches, err)
		}
		recs = nil
	}
	if err := put(recs, links); err != nil {
		return out, batches, fmt.Errorf("import in batches: %d written before this error (run the same import again to resume): %w", batches, err)
	}
	return out, batches, nil
}

// recordCut is the index nearest the middle of rs where a new record
// starts (rs[i] names another record than rs[i-1]); 0 when rs holds the
// versions of one record only.
func recordCut(rs []store.Record) int {
	same := func(i int) bool { return rs[i].NS == rs[i-1].NS && rs[i].ID == rs[i-1].ID }
	mid := len(rs) / 2
	for d := 0; d <= len(rs); d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > 0 && i < len(rs) && !same(i) {
				return i
			}
		}
	}
	return 0
}
