package lore

import (
	"context"
	"errors"
	"slices"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/index"
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
// superseding the other (package facts says how facts are read); then
// those read from free text, where a record says its subject never did
// what another record says it did (Read "text"). The structured ones
// read heads and links only; the text ones read every body once, and
// for each claim the records the index finds for its words.
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
		supersedes := func(a, b string) bool { return supersede[[2]string{a, b}] || supersede[[2]string{b, a}] }
		for _, c := range facts.Conflicts(heads, supersedes) {
			out = append(out, Contradiction{NS: ns, Conflict: c})
		}
		text, err := l.textContradictions(ns, heads, supersedes)
		if err != nil {
			return nil, err
		}
		for _, c := range text {
			out = append(out, Contradiction{NS: ns, Conflict: c})
		}
	}
	return out, nil
}

// claimSearchDepth is how many records the index is asked for per
// claim: a record that affirms a claim holds every one of its words, so
// it ranks among the first hits of a search for them.
const claimSearchDepth = 200

// textContradictions reads the bodies of heads (namespace ns) a batch at
// a time, and for each claim that a subject never did something, reads
// the records a search for the claim's words finds (every record of the
// namespace when it has no index) and keeps those that affirm it.
func (l *Lore) textContradictions(ns string, heads []store.Record, supersedes func(a, b string) bool) ([]facts.Conflict, error) {
	byID := make(map[string]store.Record, len(heads))
	ids := make([]string, len(heads))
	for i, h := range heads {
		byID[h.ID], ids[i] = h, h.ID
	}
	slices.Sort(ids)
	read := func(want []string) ([]store.Record, error) {
		bodies, err := l.st.Bodies(ns, want)
		if err != nil {
			return nil, err
		}
		out := make([]store.Record, 0, len(want))
		for _, id := range want {
			if r, ok := byID[id]; ok {
				r.Body = bodies[id]
				out = append(out, r)
			}
		}
		return out, nil
	}
	var out []facts.Conflict
	const batch = 256
	for start := 0; start < len(ids); start += batch {
		recs, err := read(ids[start:min(start+batch, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, a := range recs {
			for _, c := range facts.NegatedClaims(a.Body) {
				cands, err := l.affirmingCandidates(ns, c, ids)
				if err != nil {
					return nil, err
				}
				others, err := read(cands)
				if err != nil {
					return nil, err
				}
				for _, b := range others {
					if cf, ok := facts.ClaimConflict(a, c, b, supersedes); ok {
						out = append(out, cf)
					}
				}
			}
		}
	}
	return facts.SortTextConflicts(out), nil
}

// affirmingCandidates are the ids of the records that may affirm claim
// c: the index's hits for its words, or all ids when the namespace has
// no index to ask.
func (l *Lore) affirmingCandidates(ns string, c facts.Claim, all []string) ([]string, error) {
	hits, err := l.Search(context.Background(), index.Query{NS: ns, Text: c.Predicate, Limit: claimSearchDepth, AnyTerm: true})
	if errors.Is(err, ErrNoIndex) {
		return all, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	slices.Sort(out)
	return out, nil
}
