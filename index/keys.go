package index

import (
	"fmt"
)

// ForEachKey calls fn with the key of every record the index holds, in
// the index's own order (not sorted), and stops at the first error fn
// returns. It reads ids only, so `lore check` can compare the index with
// the store record by record.
func (ix *Index) ForEachKey(fn func(Key) error) error {
	release, err := ix.acquire()
	if err != nil {
		return err
	}
	defer release()
	adv, err := ix.bi.Advanced()
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	r, err := adv.Reader()
	if err != nil {
		return fmt.Errorf("index %s: open a reader: %w", ix.dir, err)
	}
	defer r.Close()
	ids, err := r.DocIDReaderAll()
	if err != nil {
		return fmt.Errorf("index %s: list documents: %w", ix.dir, err)
	}
	defer ids.Close()
	for {
		internal, err := ids.Next()
		if err != nil {
			return fmt.Errorf("index %s: list documents: %w", ix.dir, err)
		}
		if internal == nil {
			return nil
		}
		ext, err := r.ExternalID(internal)
		if err != nil {
			return fmt.Errorf("index %s: read a document id: %w", ix.dir, err)
		}
		ns, id, ok := parseDocID(ext)
		if !ok {
			return corrupt(ix.dir, fmt.Errorf("document id %q is not a record key (namespace, separator, id)", ext))
		}
		if err := fn(Key{NS: ns, ID: id}); err != nil {
			return err
		}
	}
}
