package lore

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"path/filepath"
	"slices"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/numfmt"
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

// Check verifies the store (bbolt's own consistency, link directions, the
// change log, dangling links, cached token counts) and the index (its
// watermark, and then that it holds exactly the store's records), and
// says in words what is wrong.
//
// On an etcd store, where other hosts write meanwhile, the check is at
// one revision: the store's last when the check starts. The store is
// checked as it was then, and the index, caught up first, must hold at
// least that revision.
func (l *Lore) Check() ([]store.Problem, error) {
	last, err := l.st.LastSeq()
	if err != nil {
		return nil, err
	}
	var src store.Backend = l.st
	if st, ok := l.st.(*store.Store); ok && l.shared {
		if err := l.catchUpShared(); err != nil {
			return nil, err
		}
		src = st.At(last)
	}
	probs, err := src.Check()
	if err != nil {
		return nil, err
	}
	if l.dir != "" {
		left, err := index.Leftovers(filepath.Join(l.dir, IndexDir))
		if err != nil {
			return nil, err
		}
		for _, d := range left {
			probs = append(probs, store.Problem{Severity: store.SeverityWarning, What: fmt.Sprintf(
				"%s (%s bytes) is left by an index build that was stopped (or is running now); the next `lore reindex` removes it",
				d.Path, numfmt.Thousands(d.Bytes))})
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.catchUpWaitingLocked()
	if l.ix == nil {
		probs = append(probs, store.Problem{What: "the search index is missing or unreadable; `lore reindex` rebuilds it"})
		return probs, nil
	}
	wm, err := l.ix.Watermark()
	if err != nil {
		probs = append(probs, store.Problem{What: fmt.Sprintf("the index watermark cannot be read (%v); `lore reindex` rebuilds the index", err)})
	} else if wm != last && !(l.shared && wm > last) {
		probs = append(probs, store.Problem{What: fmt.Sprintf("the index holds changes up to %d but the store is at %d; a writable open (any write, or `lore reindex`) catches it up", wm, last)})
	} else if wm == last {
		// Only an index at the store's revision can be compared with it
		// record by record.
		keyProbs, err := indexKeyProblems(l.ix, src)
		if err != nil {
			return nil, err
		}
		probs = append(probs, keyProbs...)
	}
	return probs, nil
}

// IndexWatermark is the last change-log sequence number the index holds
// (on etcd, a revision); ErrNoIndex when there is no index.
func (l *Lore) IndexWatermark() (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.catchUpWaitingLocked()
	if l.ix == nil {
		return 0, ErrNoIndex
	}
	return l.ix.Watermark()
}
