package packet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestHostileStoresNeverOverBudget: on stores built to break the budget
// (a focus with 1,000 neighbours, a record of 10,000 short lines,
// candidates of every rank), every answer is a packet within its budget,
// counted whole in the format emitted, or a refusal (ErrCannotFit) whose
// need is over the budget and which names the protected records or the
// frame.
func TestHostileStoresNeverOverBudget(t *testing.T) {
	ns := "hostile"
	recs := []store.Record{{NS: ns, ID: "hub", Kind: "scene", Order: 5, Body: fxProse(1, 120), Meta: map[string]string{"pov": "c-0000"}}}
	var links []store.Link
	for i := range 1000 {
		id := fmt.Sprintf("c-%04d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "character", Title: "Character " + id, Body: fxProse(uint64(i+10), 20+i%40)})
		links = append(links, store.Link{NS: ns, From: id, Rel: "appears_in", To: "hub"})
	}
	lines := make([]string, 10_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	recs = append(recs, store.Record{NS: ns, ID: "lines", Kind: "scene", Order: 6, Body: strings.Join(lines, "\n")})
	for i, kind := range []string{"style", "power", "theme", "reader-knowledge", "relationship", "obligation", "timeline", "fact"} {
		for j := range 20 {
			recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("%s-%02d", kind, j), Kind: kind, Order: int64(10 + j),
				Body: fxProse(uint64(1000+100*i+j), 30+j*5), Meta: map[string]string{"due": "7"}})
		}
	}
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	requests := []Request{
		{NS: ns, Focus: []string{"hub"}, Task: "draft", When: []string{"power", "thematic", "info-control"}},
		{NS: ns, Focus: []string{"lines"}},
		{NS: ns, Query: "stone harbour night", Profile: "agent"},
		{NS: ns, Query: "stone harbour night"},
	}
	refused, built := 0, 0
	for _, base := range requests {
		for _, format := range validFormats {
			for _, b := range []int{1, 40, 300, 1000, 2000, 8000, 40000} {
				req := base
				req.Budget, req.Format, req.Counter = b, format, counter
				p, err := Build(context.Background(), env.st, env.ix, req)
				name := fmt.Sprintf("focus %v query %q %s at %d", req.Focus, req.Query, format, b)
				var se *SplitError
				switch {
				case errors.As(err, &se):
					refused++
					if se.Need <= b || (len(se.Protected) == 0 && !strings.Contains(se.Error(), "frame of")) {
						t.Errorf("%s: refusal needs %d with %d protected: %v", name, se.Need, len(se.Protected), err)
					}
					// The need is a budget that works: "a larger budget: at
					// least N" runs and fits.
					req.Budget = se.Need
					if q, err := Build(context.Background(), env.st, env.ix, req); err != nil || q.Tokens > se.Need {
						t.Errorf("%s: at its stated need %d: %v", name, se.Need, err)
					}
				case err != nil:
					t.Fatalf("%s: %v", name, err)
				default:
					built++
					out, rerr := p.Render(format)
					if rerr != nil {
						t.Fatalf("%s: render: %v", name, rerr)
					}
					if n := counter.Count(string(out)); n > b || p.Tokens > b {
						t.Errorf("%s: the packet counts %d (states %d), over the budget", name, n, p.Tokens)
					}
				}
			}
		}
	}
	if refused == 0 || built == 0 {
		t.Errorf("%d refused, %d built: want both kinds of answer", refused, built)
	}
}
