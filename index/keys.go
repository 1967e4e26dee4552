package index

import (
	"fmt"
	"runtime/debug"

	bindex "github.com/blevesearch/bleve_index_api"
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
	keys, err := ix.openKeys()
	if err != nil {
		return err
	}
	defer keys.close()
	for {
		k, ok, err := keys.next()
		if err != nil || !ok {
			return err
		}
		if err := fn(k); err != nil {
			return err
		}
	}
}

// keyReader walks the ids of the index's documents.
type keyReader struct {
	dir string
	r   bindex.IndexReader
	ids bindex.DocIDReader
}

func (ix *Index) openKeys() (_ *keyReader, err error) {
	defer recoverCorrupt(ix.dir, &err, debug.SetPanicOnFault(true))
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", ix.dir, err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, fmt.Errorf("index %s: open a reader: %w", ix.dir, err)
	}
	ids, err := r.DocIDReaderAll()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("index %s: list documents: %w", ix.dir, err)
	}
	return &keyReader{dir: ix.dir, r: r, ids: ids}, nil
}

// next is the next document's key; ok is false after the last.
func (k *keyReader) next() (_ Key, ok bool, err error) {
	defer recoverCorrupt(k.dir, &err, debug.SetPanicOnFault(true))
	internal, err := k.ids.Next()
	if err != nil {
		return Key{}, false, corrupt(k.dir, fmt.Errorf("list documents: %w", err))
	}
	if internal == nil {
		return Key{}, false, nil
	}
	ext, err := k.r.ExternalID(internal)
	if err != nil {
		return Key{}, false, corrupt(k.dir, fmt.Errorf("read a document id: %w", err))
	}
	ns, id, found := parseDocID(ext)
	if !found {
		return Key{}, false, corrupt(k.dir, fmt.Errorf("document id %q is not a record key (namespace, separator, id)", ext))
	}
	return Key{NS: ns, ID: id}, true, nil
}

func (k *keyReader) close() {
	k.ids.Close()
	k.r.Close()
}
