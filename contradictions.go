package lore

import (
	"slices"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/store"
)

// Contradiction is a facts.Conflict found in namespace NS.
type Contradiction struct {
	NS string `json:"ns"`
	facts.Conflict
}

// Contradictions lists the contradictions among the records of namespace
// ns, or of every namespace when ns is "" (`lore check
// --contradictions`): two records that state different values of one
// attribute of one subject, both holding at some same time, neither
// superseding the other (package facts says how facts are read). It reads
// heads and links only.
func (l *Lore) Contradictions(ns string) ([]Contradiction, error) {
	nss := []string{ns}
	if ns == "" {
		var err error
		if nss, err = l.st.Namespaces(); err != nil {
			return nil, err
		}
		slices.Sort(nss)
	}
	var out []Contradiction
	for _, ns := range nss {
		heads, _, err := l.st.List(store.ListOptions{NS: ns})
		if err != nil {
			return nil, err
		}
		supersede := map[[2]string]bool{}
		if err := l.st.ForEachLink(ns, func(k store.Link) error {
			if k.Rel == facts.RelSupersedes {
				supersede[[2]string{k.From, k.To}] = true
			}
			return nil
		}); err != nil {
			return nil, err
		}
		for _, c := range facts.Conflicts(heads, func(a, b string) bool {
			return supersede[[2]string{a, b}] || supersede[[2]string{b, a}]
		}) {
			out = append(out, Contradiction{NS: ns, Conflict: c})
		}
	}
	return out, nil
}
