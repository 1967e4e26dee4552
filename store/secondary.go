package store

import (
	"bytes"
	"maps"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Secondary keys: the bucket idx holds, for every head, keys that let
// the rule pulls of a packet read what they select instead of walking
// the namespace (docs/INTERNALS.md). Values are empty; a key is
// derived from its head alone, so Check can rebuild the set and compare.
//
//	k sep ns sep kind sep id             every record, by kind (List Kind)
//	p sep ns sep id                      pinned records (List Pinned)
//	r sep ns sep desc(updated) desc(order) id   newest first (Recent)
//	o sep ns sep kind sep asc(order) id  records with an order above 0,
//	q sep ns sep kind sep desc(order) id   both ways (Ordered)
//	d sep ns sep kind sep ...            open obligations by due (due.go)
//	n sep ns sep word sep id             names by their filing word (namekeys.go)
//
// asc(x) is x as 8 big-endian bytes with its sign bit flipped, so byte
// order is numeric order; desc(x) is its complement. The keys are
// written in the transaction of every write that changes a head. The
// store's format says which keys are complete: none in format 1, all
// but the due and name keys in format 2, all but the name keys in format
// 3, all in format 4. A store made before them gets them on its first
// writable open (buildIndex), which makes it format 4; reads of an older store opened read-only walk the heads for
// what its keys do not cover.
var bucketIdx = []byte("idx")

// idxLevel is the format of tx's store as far as its secondary keys go
// for reads: formatNoIdx when it keeps none. An upgrade that is running
// does not count until it is done.
func idxLevel(tx KVTx) byte { return readFormat(tx).level }

// indexed reports whether tx's store keeps complete secondary keys by
// kind, pinned, recency and order.
func indexed(tx KVTx) bool { return idxLevel(tx) >= formatIdx }

func asc(x int64) []byte  { return u64(uint64(x) ^ 1<<63) }
func desc(x int64) []byte { return u64(^(uint64(x) ^ 1<<63)) }

func nanos(r *Record) int64 {
	if r.Updated.IsZero() {
		return 0
	}
	return r.Updated.UnixNano()
}

// recentPrefix is the prefix of ns's recency keys.
func recentPrefix(ns string) []byte { return prefix("r", ns) }

// idxKeys lists the secondary keys of head r in a store of format level.
func idxKeys(r *Record, level byte) [][]byte {
	if level < formatIdx {
		return nil
	}
	ks := [][]byte{key("k", r.NS, r.Kind, r.ID)}
	if r.Pinned {
		ks = append(ks, key("p", r.NS, r.ID))
	}
	rk := recentPrefix(r.NS)
	rk = append(rk, desc(nanos(r))...)
	rk = append(rk, desc(r.Order)...)
	ks = append(ks, append(rk, r.ID...))
	if r.Order > 0 {
		ks = append(ks, append(append(prefix("o", r.NS, r.Kind), asc(r.Order)...), r.ID...),
			append(append(prefix("q", r.NS, r.Kind), desc(r.Order)...), r.ID...))
	}
	if dk := dueKey(r); level >= formatDue && dk != nil {
		ks = append(ks, dk)
	}
	if level >= formatNames {
		ks = append(ks, nameKeys(r)...)
	}
	return ks
}

// reindex replaces the secondary keys of old (nil: a new record) by
// those of cur (nil: a deletion), when tx's store keeps them.
func reindex(tx KVTx, old, cur *Record) error {
	f := readFormat(tx)
	if f.level < formatIdx && f.target == 0 {
		return nil
	}
	var b interface {
		Put(k, v []byte) error
		Delete(k []byte) error
	} = tx.Bucket(bucketIdx)
	if bt, ok := tx.(boltTx); ok && bt.idx != nil {
		b = bt.idx
	}
	// While an upgrade runs, a write gives its head the target format's
	// keys wherever the head sits, and takes away the old head's keys as
	// the target has them: those are a superset of the level's, and
	// deleting a key never written is harmless.
	level := f.writeLevel()
	var keep [][]byte
	if cur != nil {
		keep = idxKeys(cur, level)
	}
	if old != nil {
		for _, k := range idxKeys(old, level) {
			if !slices.ContainsFunc(keep, func(c []byte) bool { return bytes.Equal(c, k) }) {
				if err := b.Delete(k); err != nil {
					return err
				}
			}
		}
	}
	for _, k := range keep {
		if err := b.Put(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// idxWrites holds a bbolt write transaction's secondary key writes (key
// -> put, or delete when false) until it ends, then writes them in key
// order. Within one transaction bbolt splits no node until commit and
// each insert moves the tail of its node: keys put out of order (the
// newest-first recency keys of a batch each go in front of the last) made
// a PutMany of 40,000 records take 3.1 s, 20,000 1.1 s (docs/bench-history).
// Only reindex writes through it; nothing reads the keys a write
// transaction has pending.
type idxWrites map[string]bool

func (w idxWrites) Put(k, _ []byte) error { w[string(k)] = true; return nil }
func (w idxWrites) Delete(k []byte) error { w[string(k)] = false; return nil }

// flush writes the pending keys into tx's idx bucket, in key order.
func (w idxWrites) flush(tx *bolt.Tx) error {
	if len(w) == 0 {
		return nil
	}
	b := tx.Bucket(bucketIdx)
	for _, k := range slices.Sorted(maps.Keys(w)) {
		var err error
		if w[k] {
			err = b.Put([]byte(k), nil)
		} else {
			err = b.Delete([]byte(k))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// idxIDs returns the ids of the secondary keys under pre, in key order,
// each key being pre followed by the id after skip bytes.
func idxIDs(tx KVTx, pre []byte, skip int, after string, limit int) []string {
	var ids []string
	c := tx.Bucket(bucketIdx).Cursor()
	start := pre
	if after != "" {
		start = append(slices.Clone(pre), after...)
	}
	k, _ := c.Seek(start)
	if after != "" && bytes.Equal(k, start) {
		k, _ = c.Next()
	}
	for ; k != nil && bytes.HasPrefix(k, pre) && (limit <= 0 || len(ids) < limit); k, _ = c.Next() {
		if len(k) > len(pre)+skip {
			ids = append(ids, string(k[len(pre)+skip:]))
		}
	}
	return ids
}

// headsTx reads the heads of ids, which secondary keys named, in order.
func headsTx(tx KVTx, ns string, ids []string) ([]Record, error) {
	out := make([]Record, 0, len(ids))
	err := eachHeadTx(tx, ns, ids, func(id string, v []byte) error {
		r, err := decodeHead(ns, id, v)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachHeadTx calls fn with the encoded head of each of ids, which
// secondary keys named, in order, reading them ahead on etcd; a key
// without its head is corruption (Check names it).
func eachHeadTx(tx KVTx, ns string, ids []string, fn func(id string, v []byte) error) error {
	prefetch(tx, ns, ids, bucketHeads)
	heads := tx.Bucket(bucketHeads)
	for _, id := range ids {
		v := heads.Get(key(ns, id))
		if v == nil {
			return valuef(id, "%w: secondary key names record %q of namespace %q, which has no head (run lore check)", ErrCorrupt, id, ns)
		}
		if err := fn(id, v); err != nil {
			return err
		}
	}
	return nil
}

// listIndexed serves List through the secondary keys when opts selects
// by kind or pinned and the store has them; ok is false otherwise, and
// List walks.
func listIndexed(tx KVTx, opts ListOptions) (heads []Record, next string, ok bool, err error) {
	if opts.Kind == "" && !opts.Pinned || opts.Named || !indexed(tx) {
		return nil, "", false, nil
	}
	pre := prefix("p", opts.NS)
	if opts.Kind != "" {
		pre = prefix("k", opts.NS, opts.Kind)
	}
	after := opts.After
	for {
		ids := idxIDs(tx, pre, 0, after, 256)
		if len(ids) == 0 {
			return heads, "", true, nil
		}
		after = ids[len(ids)-1]
		hs, err := headsTx(tx, opts.NS, ids)
		if err != nil {
			return nil, "", true, err
		}
		for _, r := range hs {
			if opts.Kind != "" && r.Kind != opts.Kind || opts.Tag != "" && !slices.Contains(r.Tags, opts.Tag) || opts.Pinned && !r.Pinned {
				continue
			}
			if opts.Limit > 0 && len(heads) == opts.Limit {
				return heads, heads[len(heads)-1].ID, true, nil
			}
			heads = append(heads, r)
		}
	}
}

// recentIndexed serves Recent through the recency keys; ok is false when
// the store has none.
func recentIndexed(tx KVTx, ns string, n int) ([]Record, bool, error) {
	if !indexed(tx) {
		return nil, false, nil
	}
	ids := idxIDs(tx, recentPrefix(ns), 16, "", n)
	hs, err := headsTx(tx, ns, ids)
	return hs, true, err
}

// Ordered calls fn on the heads of kind in ns whose Order is above 0,
// in story order from position from: ascending from the first order at
// or after from, or, when backward, descending from the last order at or
// before it; equal orders go by id. It stops when fn returns false. It
// reads only the keys it passes, so the timeline entries that bound a
// position cost O(log N), not a walk of the kind. ok is false, and fn is
// not called, when the store keeps no secondary keys (a format 1 store
// opened read-only): the caller walks instead. fn runs inside a read
// transaction and must not use the store.
func (s *Store) Ordered(ns, kind string, from int64, backward bool, fn func(Record) bool) (ok bool, err error) {
	if err := ValidNamespace(ns); err != nil {
		return false, err
	}
	err = s.view(func(tx KVTx) error {
		if ok = indexed(tx); !ok {
			return nil
		}
		pre, start := prefix("o", ns, kind), asc(max(from, 1))
		if backward {
			if from < 1 {
				return nil
			}
			pre, start = prefix("q", ns, kind), desc(from)
		}
		c := tx.Bucket(bucketIdx).Cursor()
		for k, _ := c.Seek(append(slices.Clone(pre), start...)); k != nil && bytes.HasPrefix(k, pre); {
			const batch = 16 // heads read per round trip on etcd
			var ids []string
			for ; k != nil && bytes.HasPrefix(k, pre) && len(ids) < batch; k, _ = c.Next() {
				if len(k) > len(pre)+8 {
					ids = append(ids, string(k[len(pre)+8:]))
				}
			}
			hs, err := headsTx(tx, ns, ids)
			if err != nil {
				return err
			}
			for _, r := range hs {
				if !fn(r) {
					return nil
				}
			}
		}
		return nil
	})
	return ok, err
}

// checkIndex compares the secondary keys with those the heads give.
func (c *checker) index() {
	f := readFormat(c.tx)
	if f.level < formatIdx && f.target == 0 {
		return
	}
	want := map[string]bool{}
	// While an upgrade runs, a head it has not reached has the level's
	// keys, or the target's if a write gave it them since it started.
	optional := map[string]bool{}
	cur := c.tx.Bucket(bucketHeads).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		parts, err := splitKey(k, 2)
		if err != nil {
			continue // heads() reports it
		}
		r, err := decodeHead(parts[0], parts[1], v)
		if err != nil {
			continue
		}
		level := f.levelOf(k)
		for _, ik := range idxKeys(&r, level) {
			want[string(ik)] = true
		}
		if level != f.writeLevel() {
			for _, ik := range newKeys(&r, level) {
				optional[string(ik)] = true
			}
		}
	}
	ic := c.tx.Bucket(bucketIdx).Cursor()
	for k, _ := ic.First(); k != nil; k, _ = ic.Next() {
		if !want[string(k)] && !optional[string(k)] {
			c.add("", "", "bucket idx: secondary key %q matches no head (a stale key: reads through it go wrong)", k)
		}
		delete(want, string(k))
	}
	for _, k := range sortedKeys(want) {
		c.add("", "", "bucket idx: secondary key %q of a head is missing (reads through the keys miss the record)", k)
	}
}
