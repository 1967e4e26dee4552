package store

import (
	"bytes"
	"slices"
)

// Name keys (format 4): every name a record goes by is filed in the idx
// bucket under its filing word (FilingWord), followed by its
// other words, so a packet finds the names a scene's words can match by
// a seek per word, and reads only the heads of names whose every word
// the scene holds, instead of walking every named head of the namespace
// (at a million records the walk was most of a cold novel packet).
//
//	n sep ns sep word sep id [sep other]...   a title of a NamingKinds record, an alias or a key
//
// The other words are NameWords' (folded, cut, sorted). Values
// are empty, like every secondary key; two names of a record with the
// same words have one key.

// NamingKinds are the kinds whose titles are names: a record of one of
// them goes by its title as well as by its aliases and keys. The name
// keys file titles of these kinds only, so NamesByWord serves a caller
// whose naming kinds are among them.
var NamingKinds = []string{"canon", "character", "faction", "item", "location"}

// nameKeys lists the name keys of head r, sorted and distinct.
func nameKeys(r *Record) [][]byte {
	var ks [][]byte
	file := func(name string) {
		w, others := NameWords(name)
		if w == "" {
			return // a name without a word never matches
		}
		k := key("n", r.NS, w, r.ID)
		for _, o := range others {
			k = append(append(k, sep), o...)
		}
		ks = append(ks, k)
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
	slices.SortFunc(ks, bytes.Compare)
	return slices.CompactFunc(ks, bytes.Equal)
}

// namesIndexed reports whether tx's store keeps complete name keys.
func namesIndexed(tx KVTx) bool { return idxLevel(tx) >= formatNames }

// NamesByWord returns, sorted by id, the heads NamedHeads(ns, kinds)
// returns that have a name all of whose words (NameWords) are
// among words (TextWords of the texts to scan): among them every
// record whose name the texts can match, since a name matches only
// where all its words are. The heads carry what NamedHeads' do. It costs
// a seek per word, the keys filed under it, and a read per head found,
// not a walk of the namespace. ok is false, with no heads, when the store
// keeps no name keys (a store older than format 4 opened read-only) or
// kinds name a kind outside NamingKinds, whose titles the keys do not
// file: the caller then reads NamedHeads.
func (s *Store) NamesByWord(ns string, kinds []string, words []string) (heads []Record, ok bool, err error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, false, err
	}
	for _, k := range kinds {
		if !slices.Contains(NamingKinds, k) {
			return nil, false, nil
		}
	}
	err = s.view(func(tx KVTx) error {
		if ok = namesIndexed(tx); !ok {
			return nil
		}
		ids := nameIDs(tx, ns, words)
		heads = make([]Record, 0, len(ids))
		return eachHeadTx(tx, ns, ids, func(id string, v []byte) error {
			if !namedHead(v, kinds) {
				return nil // filed by a title of a kind the caller does not name
			}
			r, err := decodeNames(ns, id, v)
			heads = append(heads, r)
			return err
		})
	})
	if err != nil {
		return nil, false, err
	}
	return heads, ok, nil
}

// nameIDs returns, sorted and distinct, the ids of ns with a name whose
// words are all among words.
func nameIDs(tx KVTx, ns string, words []string) []string {
	have := make(map[string]struct{}, len(words))
	prefixes := make([][]byte, 0, len(words))
	for _, w := range words {
		if _, dup := have[w]; !dup {
			have[w] = struct{}{}
			prefixes = append(prefixes, prefix("n", ns, w))
		}
	}
	var ids []string
	take := func(pre, k []byte) {
		id, others, _ := bytes.Cut(k[len(pre):], []byte{sep})
		if allAmong(others, have) {
			ids = append(ids, string(id))
		}
	}
	if br, ok := tx.(BatchReader); !ok || !br.PrefixKeys(bucketIdx, prefixes, take) {
		c := tx.Bucket(bucketIdx).Cursor()
		for _, pre := range prefixes {
			for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
				take(pre, k)
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// allAmong reports whether every sep-joined word of others is in have;
// an empty others has none to miss.
func allAmong(others []byte, have map[string]struct{}) bool {
	for len(others) > 0 {
		var w []byte
		w, others, _ = bytes.Cut(others, []byte{sep})
		if _, ok := have[string(w)]; !ok {
			return false
		}
	}
	return true
}
