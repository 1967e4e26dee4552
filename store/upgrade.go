package store

import (
	"bytes"
	"fmt"
	"slices"
)

// The upgrade of an older store's secondary keys runs in batches, each
// its own write transaction, so that it converges however large the
// store: a batch fits the cluster's transaction limits, a conflict with
// another writer runs one batch again (not a walk of every head), and an
// upgrade cut short resumes where it stopped, in this process or the
// next writable open of any. While it runs, the format key reads
// [level, target, last head key done]: the heads up to that key have the
// target format's keys (formatState.levelOf), the others the level's,
// unless a write since the upgrade began gave them the target's, as
// every write does while it runs (formatState.writeLevel). So a batch
// runs again only when a head it gave keys changed or went since its
// snapshot, never for the heads other writers create or change
// elsewhere: an upgrade converges beside writers that never pause. The
// last batch writes [target] alone.

// formatState is a store's format key, read.
type formatState struct {
	level  byte   // the format every head's keys follow
	target byte   // while an upgrade runs, the format it makes; else 0
	done   []byte // the last head key upgraded; nil before the first batch
}

// parseFormat reads a format key's value.
func parseFormat(v []byte) (formatState, error) {
	switch {
	case len(v) == 1 && knownFormat(v[0]):
		return formatState{level: v[0]}, nil
	case len(v) >= 2 && knownFormat(v[0]) && v[1] == formatVersion && v[0] < v[1]:
		return formatState{level: v[0], target: v[1], done: v[2:]}, nil
	}
	name := fmt.Sprintf("%x", v)
	if len(v) == 1 {
		name = fmt.Sprint(v[0])
	}
	return formatState{}, fmt.Errorf("store format %s, this version of lore reads formats %d to %d: %w", name, formatNoIdx, formatVersion, ErrCorrupt)
}

func (f formatState) encode() []byte {
	if f.target == 0 {
		return []byte{f.level}
	}
	return append([]byte{f.level, f.target}, f.done...)
}

// levelOf is the format whose secondary keys the head at head key hk has
// at least: a head the upgrade has not reached may also have the
// target's, when a write gave them.
func (f formatState) levelOf(hk []byte) byte {
	if f.target != 0 && len(f.done) > 0 && bytes.Compare(hk, f.done) <= 0 {
		return f.target
	}
	return f.level
}

// writeLevel is the format whose secondary keys a write gives its head.
func (f formatState) writeLevel() byte {
	if f.target != 0 {
		return f.target
	}
	return f.level
}

// readFormat reads tx's format state; a store without an idx bucket
// (bbolt, made before the keys) keeps none.
func readFormat(tx KVTx) formatState {
	f, err := parseFormat(tx.Bucket(bucketMeta).Get(keyFormat))
	if err != nil || tx.Bucket(bucketIdx) == nil {
		return formatState{level: formatNoIdx} // init refuses a bad format
	}
	return f
}

// upgradeLimits bounds one batch: secondary keys written and heads read.
func (s *Store) upgradeLimits() (keys, size, heads int) { return s.eng.UpgradeLimits() }

// buildIndex brings a store's secondary keys up to this package's
// format, batch by batch: all of them for a format 1 store (after
// clearing leftovers of a layout we no longer trust), the due and name
// keys for a format 2 one, the name keys for a format 3 one. A current store is left alone. Called on every writable
// open, so it runs once per store, resuming one cut short.
// Options.Progress hears of it: its phase, and how many records it reads.
func (s *Store) buildIndex() error {
	if s.opts.ReadOnly {
		return nil
	}
	var f formatState
	total := 0
	if err := s.view(func(tx KVTx) error {
		if f = readFormat(tx); f.level != formatVersion {
			total = countHeads(tx, f.done)
		}
		return nil
	}); err != nil || f.level == formatVersion {
		return err
	}
	progress := s.opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	phase := fmt.Sprintf("upgrading store format %d to %d", f.level, formatVersion)
	if len(f.done) > 0 {
		phase += " (resumed)"
	}
	progress(phase, 0, total)
	done := 0
	for {
		var n int
		var finished bool
		err := s.update(func(tx KVTx) error {
			var err error
			n, finished, err = s.upgradeBatch(tx)
			return err
		})
		if err != nil {
			return err
		}
		done += n
		progress(phase, min(done, total), total)
		if finished {
			return nil
		}
	}
}

// upgradeBatch runs one batch of the upgrade in tx: it starts the
// upgrade, or clears a batch of leftover keys, or writes the new keys of
// a batch of heads. It returns how many heads it did, and whether the
// store is now current.
func (s *Store) upgradeBatch(tx KVTx) (int, bool, error) {
	f := readFormat(tx)
	if f.level == formatVersion {
		return 0, true, nil
	}
	if bt, ok := tx.(boltTx); ok {
		if _, err := bt.tx.CreateBucketIfNotExists(bucketIdx); err != nil {
			return 0, false, err
		}
	}
	meta, idx := tx.Bucket(bucketMeta), tx.Bucket(bucketIdx)
	maxKeys, maxBytes, maxHeads := s.upgradeLimits()
	if f.target == 0 {
		if f.level < formatIdx { // no writer keeps keys yet: clear what is there
			c := idx.Cursor()
			var stale [][]byte
			for k, _ := c.First(); k != nil && len(stale) < maxKeys; k, _ = c.Next() {
				stale = append(stale, slices.Clone(k))
			}
			for _, k := range stale {
				if err := idx.Delete(k); err != nil {
					return 0, false, err
				}
			}
			if len(stale) > 0 {
				return 0, false, nil
			}
		}
		f.target = formatVersion
		return 0, false, meta.Put(keyFormat, f.encode())
	}
	c := tx.Bucket(bucketHeads).Cursor()
	k, v := c.First()
	if len(f.done) > 0 {
		if k, v = c.Seek(f.done); bytes.Equal(k, f.done) {
			k, v = c.Next()
		}
	}
	heads, keys, size := 0, 0, 0
	var keyed [][]byte // the heads given keys: the batch depends on them
	for ; k != nil && heads < maxHeads; k, v = c.Next() {
		r, err := headAt(k, v)
		if err != nil {
			return 0, false, err
		}
		nk := newKeys(&r, f.level)
		for _, ik := range nk {
			size += len(ik) + 8
		}
		if heads > 0 && (keys+len(nk) > maxKeys || size > maxBytes) {
			break
		}
		for _, ik := range nk {
			if err := idx.Put(ik, nil); err != nil {
				return 0, false, err
			}
		}
		if len(nk) > 0 {
			keyed = append(keyed, slices.Clone(k))
		}
		keys += len(nk)
		heads++
		f.done = slices.Clone(k)
	}
	dependOn(tx, bucketHeads, keyed)
	if testHookUpgradeBatch != nil {
		testHookUpgradeBatch(keyed)
	}
	if k == nil {
		return heads, true, meta.Put(keyFormat, []byte{f.target})
	}
	return heads, false, meta.Put(keyFormat, f.encode())
}

// testHookUpgradeBatch, set by tests only, runs in every try of a batch
// of heads before it commits, with the head keys it gave keys: a write
// there lands between the batch's snapshot and its commit.
var testHookUpgradeBatch func(keyed [][]byte)

// headAt decodes the head at head key k.
func headAt(k, v []byte) (Record, error) {
	parts, err := splitKey(k, 2)
	if err != nil {
		return Record{}, err
	}
	r, err := decodeHead(parts[0], parts[1], v)
	if err != nil {
		return Record{}, fmt.Errorf("build secondary keys: %w", err)
	}
	return r, nil
}

// newKeys lists the secondary keys head r has in this format and not in
// format from.
func newKeys(r *Record, from byte) [][]byte {
	if from < formatIdx {
		return idxKeys(r, formatVersion)
	}
	var ks [][]byte
	if dk := dueKey(r); dk != nil && from < formatDue {
		ks = append(ks, dk)
	}
	if from < formatNames {
		ks = append(ks, nameKeys(r)...)
	}
	return ks
}

// countHeads is how many heads tx's store holds after head key after
// (all of them when after is empty), without decoding them.
func countHeads(tx KVTx, after []byte) int {
	if t, ok := tx.(boltTx); ok && len(after) == 0 {
		return t.tx.Bucket(bucketHeads).Stats().KeyN
	}
	if br, ok := tx.(BatchReader); ok {
		return br.CountKeys(bucketHeads, after)
	}
	n := 0
	c := tx.Bucket(bucketHeads).Cursor()
	for k, _ := c.Seek(after); k != nil; k, _ = c.Next() {
		if !bytes.Equal(k, after) {
			n++
		}
	}
	return n
}
