package store

import "fmt"

// buildIndex brings a store's secondary keys up to this package's
// format: all of them for a format 1 store, the due keys for a format 2
// one, in one write transaction; a current store is left alone. Called
// on every writable open, so it runs once per store.
func (s *Store) buildIndex() error {
	if s.opts.ReadOnly {
		return nil
	}
	level := formatNoIdx
	if err := s.view(func(tx kvTx) error { level = idxLevel(tx); return nil }); err != nil || level == formatVersion {
		return err
	}
	return s.update(func(tx kvTx) error {
		from := idxLevel(tx)
		if from == formatVersion {
			return nil
		}
		if bt, ok := tx.(boltTx); ok {
			if _, err := bt.tx.CreateBucketIfNotExists(bucketIdx); err != nil {
				return err
			}
		}
		b := tx.Bucket(bucketIdx)
		if from < formatIdx {
			if err := deletePrefix(b, nil); err != nil { // leftovers of a layout we no longer trust
				return err
			}
		}
		c := tx.Bucket(bucketHeads).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			parts, err := splitKey(k, 2)
			if err != nil {
				return err
			}
			r, err := decodeHead(parts[0], parts[1], v)
			if err != nil {
				return fmt.Errorf("build secondary keys: %w", err)
			}
			for _, ik := range newKeys(&r, from) {
				if err := b.Put(ik, nil); err != nil {
					return err
				}
			}
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte{formatVersion})
	})
}

// newKeys lists the secondary keys head r has in this format and not in
// format from.
func newKeys(r *Record, from byte) [][]byte {
	if from < formatIdx {
		return idxKeys(r, formatVersion)
	}
	if dk := dueKey(r); dk != nil && from < formatVersion {
		return [][]byte{dk}
	}
	return nil
}
