package packet

import (
	"context"
	"fmt"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/store"
)

// flagContradictions marks each candidate that contradicts another
// candidate of the request (facts.Conflicts: different values of one
// attribute of one subject, at some same time, neither superseding the
// other; and, read from free text, flagTextContradictions, which runs
// apart: startTextContradictions). The flag is read from the candidates, not from what a budget
// keeps, so a record's heading is the same at every budget; it drops
// nothing. Only candidates that state facts are looked at, and only their
// supersedes links are read.
func (g *gatherer) flagContradictions(cands []*candidate) error {
	// Only an attribute of a subject that two candidates state can be
	// contradicted, so only the candidates that share their subject
	// with another are read for facts: most records are their own
	// subject alone, and reading every meta key of each was 4% of a
	// short-turn packet's time.
	keys := make([]string, len(cands))
	subjects := make(map[string]int, len(cands))
	for i, c := range cands {
		keys[i] = facts.SubjectKey(c.rec)
		subjects[keys[i]]++
	}
	stated := map[string][]*candidate{}
	for i, c := range cands {
		if subjects[keys[i]] < 2 {
			continue
		}
		for _, f := range facts.Of(c.rec) {
			stated[f.Key()] = append(stated[f.Key()], c)
		}
	}
	var stating []store.Record
	byID := map[string]*candidate{}
	for _, k := range sortedKeys(stated) {
		if cs := stated[k]; len(cs) > 1 {
			for _, c := range cs {
				if byID[c.rec.ID] == nil {
					byID[c.rec.ID] = c
					stating = append(stating, c.rec)
				}
			}
		}
	}
	if len(stating) >= 2 {
		ids := make([]string, len(stating))
		for i, r := range stating {
			ids[i] = r.ID
		}
		supersede, err := g.supersedeLinks(ids)
		if err != nil {
			return err
		}
		for _, c := range facts.Conflicts(stating, supersede) {
			byID[c.A].contradicts = append(byID[c.A].contradicts, fmt.Sprintf("%s on %s", c.B, c.Attribute))
			byID[c.B].contradicts = append(byID[c.B].contradicts, fmt.Sprintf("%s on %s", c.A, c.Attribute))
		}
	}
	return nil
}

// startTextContradictions runs flagTextContradictions on a helper
// goroutine where the source reads concurrently, and returns the wait
// for it: it reads up to maxTextClaimCandidates bodies, about a
// millisecond of a long chat's packet, while the packet's excerpts are
// made. Nothing may read a candidate's contradicts before the wait
// returns; else it runs here and the wait returns its error.
func (g *gatherer) startTextContradictions(cands []*candidate) (wait func() error) {
	if !readsConcurrently(g.src) {
		err := g.flagTextContradictions(cands)
		return func() error { return err }
	}
	done := make(chan error, 1)
	g.bg.Go(func(context.Context) { done <- g.flagTextContradictions(cands) })
	var err error
	var waited bool
	return func() error {
		if !waited {
			err, waited = <-done, true
		}
		return err
	}
}

// supersedeLinks reads the supersedes links of ids and reports, for two
// records, whether one supersedes the other (either way).
func (g *gatherer) supersedeLinks(ids []string) (func(a, b string) bool, error) {
	supersede := map[[2]string]bool{}
	for _, id := range ids {
		nbs, err := g.src.Neighbors(g.req.NS, id, 1, []string{facts.RelSupersedes})
		if err != nil {
			return nil, err
		}
		for _, n := range nbs {
			supersede[[2]string{n.Via.From, n.Via.To}] = true
		}
	}
	return func(a, b string) bool { return supersede[[2]string{a, b}] || supersede[[2]string{b, a}] }, nil
}
