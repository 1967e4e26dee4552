package lore

import (
	"cmp"
	"fmt"
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
func indexKeyProblems(ix *index.Index, src store.Backend) ([]store.Problem, error) {
	inIndex := map[index.Key]bool{}
	err := ix.ForEachKey(func(k index.Key) error {
		inIndex[k] = true
		return nil
	})
	if err != nil {
		return []store.Problem{{What: fmt.Sprintf("the index's documents cannot be listed (%v); `lore reindex` rebuilds the index", err)}}, nil
	}
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
				if inIndex[k] {
					delete(inIndex, k)
				} else {
					missing = append(missing, k)
				}
			}
			if next == "" {
				break
			}
			after = next
		}
	}
	extra := make([]index.Key, 0, len(inIndex))
	for k := range inIndex {
		extra = append(extra, k)
	}
	slices.SortFunc(extra, func(a, b index.Key) int { return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID)) })
	probs := keyProblems(missing, "the index lacks this record, so search cannot find it")
	return append(probs, keyProblems(extra, "the index holds this record, which the store does not: search can return it")...), nil
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
