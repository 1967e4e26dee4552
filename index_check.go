package lore

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// maxKeyProblems is how many records the index lacks (or holds that the
// store does not) `lore check` names one by one; the rest are counted.
const maxKeyProblems = 20

// indexKeyProblems compares the index with the store record by record:
// every record of src must be a document of ix, and every document a
// record. Only a full comparison can tell, because the watermark says
// which changes the index was given, not that it kept them all.
//
// The index's keys are held as 64-bit hashes, counted (about 40 bytes a
// record, not the keys themselves: a million records stay in tens of MB);
// the store's records then take theirs off, and the documents whose
// hashes are left are found by a second walk of the index. A missing
// record goes unseen only if its hash equals that of a document the store
// lacks: about one chance in 10^7 for two million keys.
func indexKeyProblems(ix *index.Index, src store.Backend) ([]store.Problem, error) {
	seed := maphash.MakeSeed()
	hash := func(k index.Key) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(k.NS)
		h.WriteByte(0)
		h.WriteString(k.ID)
		return h.Sum64()
	}
	left := map[uint64]int32{}
	err := ix.ForEachKey(func(k index.Key) error {
		left[hash(k)]++
		return nil
	})
	if err != nil {
		return unlistable(err), nil
	}
	missing, err := storeKeysNotIn(src, left, hash)
	if err != nil {
		return nil, err
	}
	var extra []index.Key
	if len(left) > 0 {
		err = ix.ForEachKey(func(k index.Key) error {
			if h := hash(k); left[h] > 0 {
				left[h]--
				extra = append(extra, k)
			}
			return nil
		})
		if err != nil {
			return unlistable(err), nil
		}
	}
	slices.SortFunc(extra, func(a, b index.Key) int { return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID)) })
	probs := keyProblems(missing, "the index lacks this record, so search cannot find it")
	return append(probs, keyProblems(extra, "the index holds this record, which the store does not: search can return it")...), nil
}

func unlistable(err error) []store.Problem {
	return []store.Problem{{What: fmt.Sprintf("the index's documents cannot be listed (%v); `lore reindex` rebuilds the index", err)}}
}

// storeKeysNotIn walks every record of src (heads only, a page at a
// time), takes each one's hash off left, and returns those whose hash was
// not there; left keeps the counts of the documents no record matched.
func storeKeysNotIn(src store.Backend, left map[uint64]int32, hash func(index.Key) uint64) ([]index.Key, error) {
	nss, err := src.Namespaces()
	if err != nil {
		return nil, err
	}
	var missing []index.Key
	for _, ns := range nss {
		for after := ""; ; {
			heads, next, err := src.List(store.ListOptions{NS: ns, After: after, Limit: 4096})
			if err != nil {
				return nil, err
			}
			for _, h := range heads {
				k := index.Key{NS: ns, ID: h.ID}
				switch hk := hash(k); left[hk] {
				case 0:
					missing = append(missing, k)
				case 1:
					delete(left, hk)
				default:
					left[hk]--
				}
			}
			if next == "" {
				break
			}
			after = next
		}
	}
	return missing, nil
}

// keyProblems names the first maxKeyProblems keys, each with what, and
// counts the rest; each ends with the repair.
func keyProblems(keys []index.Key, what string) []store.Problem {
	const repair = "; `lore reindex` rebuilds the index from the store"
	var probs []store.Problem
	for _, k := range keys[:min(len(keys), maxKeyProblems)] {
		probs = append(probs, store.Problem{What: what + repair, NS: k.NS, ID: k.ID})
	}
	if n := len(keys) - maxKeyProblems; n > 0 {
		probs = append(probs, store.Problem{What: fmt.Sprintf("and %d more records like those above%s", n, repair)})
	}
	return probs
}
