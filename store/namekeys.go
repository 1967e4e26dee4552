package store

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/lorekeep/lore/mention"
)

// Name keys (format 4): every name a record goes by is filed in the idx
// bucket under its filing word (mention.FilingWord), so a packet finds
// the names a scene's words can match by a seek per word instead of a
// walk of every named head of the namespace (at a million records the
// walk was most of a cold novel packet).
//
//	n sep ns sep word sep id       a title of a NamingKinds record, an alias or a key
//
// Values are empty, like every secondary key; a record with two names
// under one word has one key.

// NamingKinds are the kinds whose titles are names: a record of one of
// them goes by its title as well as by its aliases and keys. The name
// keys file titles of these kinds only, so NamesByWord serves a caller
// whose naming kinds are among them.
var NamingKinds = []string{"canon", "character", "faction", "item", "location"}

// nameKeys lists the name keys of head r, sorted.
func nameKeys(r *Record) [][]byte {
	var words []string
	file := func(name string) {
		if w := mention.FilingWord(name); w != "" {
			words = append(words, w)
		}
	}
	if r.Title != "" && slices.Contains(NamingKinds, r.Kind) {
		file(r.Title)
	}
	for _, a := range r.Aliases {
		file(a)
	}
	for _, k := range r.Keys {
		file(k)
	}
	slices.Sort(words)
	words = slices.Compact(words)
	ks := make([][]byte, len(words))
	for i, w := range words {
		ks[i] = key("n", r.NS, w, r.ID)
	}
	return ks
}

// namesIndexed reports whether tx's store keeps complete name keys.
func namesIndexed(tx kvTx) bool { return idxLevel(tx) >= formatNames }

// NamesByWord returns, sorted by id, the heads NamedHeads(ns, kinds)
// returns that have a name filed under one of words (mention.TextWords
// of the texts to scan): among them every record whose name the texts
// can match, since a name matches only where all its words are. The
// heads carry what NamedHeads' do. It costs a seek per word and a read
// per head found, not a walk of the namespace. ok is false, with no
// heads, when the store keeps no name keys (a store older than format 4
// opened read-only) or kinds name a kind outside NamingKinds, whose
// titles the keys do not file: the caller then reads NamedHeads.
func (s *Store) NamesByWord(ns string, kinds []string, words []string) (heads []Record, ok bool, err error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, false, err
	}
	for _, k := range kinds {
		if !slices.Contains(NamingKinds, k) {
			return nil, false, nil
		}
	}
	err = s.view(func(tx kvTx) error {
		if ok = namesIndexed(tx); !ok {
			return nil
		}
		ids := nameIDs(tx, ns, words)
		prefetch(tx, ns, ids, bucketHeads)
		hb := tx.Bucket(bucketHeads)
		heads = make([]Record, 0, len(ids))
		for _, id := range ids {
			v := hb.Get(key(ns, id))
			if v == nil {
				return fmt.Errorf("%w: name key names record %q of namespace %q, which has no head (run lore check)", ErrCorrupt, id, ns)
			}
			if !namedHead(v, kinds) {
				continue // filed by a title of a kind the caller does not name
			}
			r, err := decodeNames(ns, id, v)
			if err != nil {
				return err
			}
			heads = append(heads, r)
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return heads, ok, nil
}

// nameIDs returns, sorted and distinct, the ids filed under words in ns.
func nameIDs(tx kvTx, ns string, words []string) []string {
	var ids []string
	c := tx.Bucket(bucketIdx).Cursor()
	for _, w := range words {
		pre := prefix("n", ns, w)
		for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
			ids = append(ids, string(k[len(pre):]))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
