package store

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// buildIndex brings a store's secondary keys up to this package's
// format: all of them for a format 1 store, the due keys for a format 2
// one, in one write transaction; a current store is left alone. Called
// on every writable open, so it runs once per store. Options.Progress
// hears of it: its phase, and how many records it reads.
func (s *Store) buildIndex() error {
	if s.opts.ReadOnly {
		return nil
	}
	level, total := formatNoIdx, 0
	if err := s.view(func(tx kvTx) error {
		if level = idxLevel(tx); level != formatVersion {
			total = countHeads(tx)
		}
		return nil
	}); err != nil || level == formatVersion {
		return err
	}
	progress := s.opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	phase := fmt.Sprintf("upgrading store format %d to %d", level, formatVersion)
	progress(phase, 0, total)
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
		done := 0
		c := tx.Bucket(bucketHeads).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if err := putNewKeys(b, k, v, from); err != nil {
				return err
			}
			if done++; done%1000 == 0 {
				progress(phase, done, max(total, done))
			}
		}
		progress(phase, done, max(total, done))
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte{formatVersion})
	})
}

// putNewKeys writes the secondary keys that head k, v has in this
// format and not in format from.
func putNewKeys(b kvBucket, k, v []byte, from byte) error {
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
	return nil
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

// countHeads is how many heads tx's store holds, without decoding them
// (bbolt counts its pages' keys; etcd answers a count-only range).
func countHeads(tx kvTx) int {
	switch t := tx.(type) {
	case boltTx:
		return t.tx.Bucket(bucketHeads).Stats().KeyN
	case *etcdTx:
		pfx := t.e.prefix + string(bucketHeads) + "/"
		resp, err := t.e.cli.Get(t.ctx, pfx, clientv3.WithRange(clientv3.GetPrefixRangeEnd(pfx)), clientv3.WithRev(t.rev), clientv3.WithCountOnly())
		if err != nil {
			t.fail(err)
			return 0
		}
		return int(resp.Count)
	}
	return 0
}
