package packet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// maxTextClaimCandidates bounds the candidates whose text is read for
// free-text contradictions (facts.TextConflicts): the most important
// ones that are not deep, the same at every budget, so a heading's flag
// does not depend on the budget.
const maxTextClaimCandidates = 96

// flagTextContradictions marks the candidates whose text says a subject
// never did what another candidate's text says it did. It reads the
// bodies of the first maxTextClaimCandidates candidates that are not
// deep (cands is in packet order), and looks for claims only where a
// body says "never".
//
// Only a packet that answers a question with excerpts does (a profile
// with Profile.Excerpt, asked with a query: the agent's, a novel's
// question): it reads the bodies of its long candidates before fitting
// anyway. A scene's packet reads no body it does not show in full
// (TestNoBodyReadBeforeFitting), and its canon states facts in fields.
func (g *gatherer) flagTextContradictions(cands []*candidate) error {
	if g.prof.Excerpt <= 0 || strings.TrimSpace(g.req.Query) == "" {
		return nil
	}
	var ids []string
	byID := map[string]*candidate{}
	for _, c := range cands {
		if len(ids) == maxTextClaimCandidates {
			break
		}
		if c.deep || c.rec.Binary {
			continue
		}
		ids = append(ids, c.rec.ID)
		byID[c.rec.ID] = c
	}
	if len(ids) < 2 {
		return nil
	}
	bodies, err := g.src.Bodies(g.req.NS, slices.Sorted(slices.Values(ids)))
	if err != nil {
		return badvalue.Errorf(g.req.NS, "read bodies in ns %q: %w", g.req.NS, err)
	}
	recs := make([]store.Record, 0, len(ids))
	for _, id := range ids {
		r := byID[id].rec
		r.Body = bodies[id]
		recs = append(recs, r)
	}
	// The supersedes links of a record are read only when it is found
	// in a contradiction: most packets have none.
	var linkErr error
	links := map[string]func(a, b string) bool{}
	supersede := func(a, b string) bool {
		if linkErr != nil {
			return false
		}
		if links[a] == nil {
			links[a], linkErr = g.supersedeLinks([]string{a})
			if linkErr != nil {
				return false
			}
		}
		return links[a](a, b)
	}
	conflicts := facts.TextConflicts(recs, supersede)
	if linkErr != nil {
		return linkErr
	}
	for _, c := range conflicts {
		what := shortClaim(c.Attribute)
		byID[c.A].contradicts = append(byID[c.A].contradicts, fmt.Sprintf("%s on %s", c.B, what))
		byID[c.B].contradicts = append(byID[c.B].contradicts, fmt.Sprintf("%s on %s", c.A, what))
	}
	return nil
}

// shortClaim keeps a heading's flag short, as a heading's words cost
// the budget: "never" and the predicate's first three words ("never met
// Raymond at"); --explain and lore check --contradictions say the rest.
func shortClaim(attribute string) string {
	f := strings.Fields(strings.TrimSuffix(attribute, " …"))
	return strings.Join(f[:min(len(f), 4)], " ")
}
