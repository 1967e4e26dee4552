package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/packet"
)

// scorerOverhead is what the shared scorer adds to each record's cost
// (its separator allowance), so that figures here match its own.
const scorerOverhead = 4

// evalNS is one namespace of the recall data, in file order, with each
// record's cost under the scorer's model: cl100k_base tokens of
// title + "\n" + text, plus scorerOverhead.
type evalNS struct {
	name       string
	recs       []*evalRecord
	byID       map[string]*evalRecord
	cost       map[string]int
	prev, next map[string]string // the "next" links and their inverse
	bm25       bleve.Index       // the baselines' index: field text alone
	count      budget.Counter    // cl100k_base, the scorer's
	norm       map[string]*recordNorm
}

// recordNorm is a record's text and title as the scorer's rules read
// them, made on first use (normOf): most records are only ever shown
// whole.
type recordNorm struct {
	text, title string // white space runs read as one space, trimmed
	answer      string // the text normalised for answer matching
	tokens      int    // tokens of the text, trimmed; -1 until counted
}

func (ns *evalNS) normOf(id string) *recordNorm {
	f := ns.norm[id]
	if f == nil {
		r := ns.byID[id]
		f = &recordNorm{text: normWS(r.Text), title: normWS(r.Title), answer: normAnswer(r.Text), tokens: -1}
		ns.norm[id] = f
	}
	return f
}

// textTokens is the cl100k_base tokens of the record's text, white space
// at its ends left out: the N of the scorer's min(100, N/2).
func (ns *evalNS) textTokens(id string) int {
	f := ns.normOf(id)
	if f.tokens < 0 {
		f.tokens = ns.count.Count(strings.TrimSpace(ns.byID[id].Text))
	}
	return f.tokens
}

func loadNamespaces(recs []evalRecord, cl100k budget.Counter) map[string]*evalNS {
	out := map[string]*evalNS{}
	for i := range recs {
		r := &recs[i]
		ns := out[r.Namespace]
		if ns == nil {
			ns = &evalNS{name: r.Namespace, byID: map[string]*evalRecord{}, cost: map[string]int{},
				prev: map[string]string{}, next: map[string]string{}, count: cl100k, norm: map[string]*recordNorm{}}
			out[r.Namespace] = ns
		}
		ns.recs = append(ns.recs, r)
		ns.byID[r.ID] = r
		ns.cost[r.ID] = cl100k.Count(r.Title+"\n"+r.Text) + scorerOverhead
		for _, l := range r.Links {
			if l.Rel == "next" {
				ns.next[r.ID] = l.To
				ns.prev[l.To] = r.ID
			}
		}
	}
	return out
}

// cut is the scorer's rule: ids are taken in the order given, unknown
// ids and repeats are dropped, and the list is cut before the first
// record that would take the total past budget. It returns the ids kept
// and their total cost.
func (ns *evalNS) cut(ids []string, budget int) ([]string, int) {
	seen := map[string]bool{}
	var kept []string
	used := 0
	for _, id := range ids {
		c, ok := ns.cost[id]
		if !ok || seen[id] {
			continue
		}
		if used+c > budget {
			break
		}
		seen[id] = true
		used += c
		kept = append(kept, id)
	}
	return kept, used
}

// shownCut is the scorer's reading of a packet given with the text it
// shows for each record.
type shownCut struct {
	kept       []string // ids kept, in packet order
	forms      []string // the packet's form of each
	whys       []string // and the rule that brought it in
	credited   []string // the kept ids that earn evidence credit
	uncredited []string // the others: foreign text, citations, short excerpts
	used       int      // the scorer's cost of the kept records
	cut        bool     // the list was cut before a record that would pass the budget
	unknown    int      // ids not in the namespace, dropped
	foreign    int      // kept records whose shown text is not their own, in order
	citations  int      // kept records shown with none of their body
	short      int      // kept records shown with too little of it
	answer     bool     // the body text kept holds q's answer (extractive q only)
}

// cutShown is the scorer's cut of the packet's records, each priced by
// its title and the text shown (a "title" form shows none) and credited
// only as checkShown allows. A record shown whole, form "full", is
// credited and priced as a whole record without the check, which would
// say the same: most records are, and the check is the slow part.
func (ns *evalNS) cutShown(entries []packet.Entry, budget int, q evalQuery) shownCut {
	var c shownCut
	seen := map[string]bool{}
	for _, e := range entries {
		r := ns.byID[e.ID]
		if r == nil {
			c.unknown++
			continue
		}
		if seen[e.ID] {
			continue
		}
		shown := e.Text
		if e.Form == "title" {
			shown = ""
		}
		// A gap marker in the body would cut it into passages even shown
		// whole, so such a body takes the check.
		whole := e.Form == "full" && shown == r.Text && strings.TrimSpace(shown) != "" && !hasGapMarker(shown)
		cost := ns.cost[e.ID]
		if !whole {
			cost = ns.count.Count(r.Title+"\n"+shown) + scorerOverhead
		}
		if c.used+cost > budget {
			c.cut = true
			break
		}
		seen[e.ID] = true
		c.used += cost
		c.kept, c.forms, c.whys = append(c.kept, e.ID), append(c.forms, e.Form), append(c.whys, e.Why)
		if whole {
			c.credited = append(c.credited, e.ID)
			c.answer = c.answer || q.extractive && hasWords(ns.normOf(e.ID).answer, q.ans)
			continue
		}
		v := ns.checkShown(e.ID, shown)
		switch {
		case v.foreign:
			c.foreign++
		case len(v.passages) == 0:
			c.citations++
		case !v.words || !v.enough:
			c.short++
		}
		if v.credited() {
			c.credited = append(c.credited, e.ID)
		} else {
			c.uncredited = append(c.uncredited, e.ID)
		}
		// A short excerpt earns no credit, but the answer it shows counts.
		for _, p := range v.passages {
			c.answer = c.answer || q.extractive && hasWords(normAnswer(p), q.ans)
		}
	}
	return c
}

// recall is the share of the gold ids among kept.
func recall(kept, gold []string) float64 {
	if len(gold) == 0 {
		return 0
	}
	in := map[string]bool{}
	for _, id := range kept {
		in[id] = true
	}
	found := 0
	seen := map[string]bool{}
	for _, g := range gold {
		if in[g] && !seen[g] {
			found++
		}
		seen[g] = true
	}
	return float64(found) / float64(len(seen))
}

// buildBM25 indexes the namespace's text field alone in memory with
// bleve's English analyzer and BM25 (the scorer's baseline: the title is
// not indexed).
func (ns *evalNS) buildBM25() error {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	im.DefaultAnalyzer = en.AnalyzerName
	dm := bleve.NewDocumentStaticMapping()
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer = en.AnalyzerName
	fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false, false
	dm.AddFieldMappingsAt("text", fm)
	im.DefaultMapping = dm
	idx, err := bleve.NewUsing("", im, scorch.Name, scorch.Name, nil)
	if err != nil {
		return err
	}
	batch := idx.NewBatch()
	for _, r := range ns.recs {
		if err := batch.Index(r.ID, struct {
			Text string `json:"text"`
		}{r.Text}); err != nil {
			return err
		}
	}
	if err := idx.Batch(batch); err != nil {
		return fmt.Errorf("bm25 index of %s: %w", ns.name, err)
	}
	ns.bm25 = idx
	return nil
}

// bm25Pack is the baselines' packer: hits best first (ties by id), each
// taken first-fit while it fits, with its previous and next turn after it
// when neighbours is set.
func (ns *evalNS) bm25Pack(question string, budget int, neighbours bool) ([]string, error) {
	mq := bleve.NewMatchQuery(question)
	mq.SetField("text")
	req := bleve.NewSearchRequestOptions(mq, len(ns.recs), 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := ns.bm25.Search(req)
	if err != nil {
		return nil, err
	}
	// Scores of tied records can differ in their last bits from one
	// build of the index to the next (bleve sums a match's term scores in
	// an order that varies), so ties at full precision come out in either
	// order. Compared at float32's precision, ties are ties, and the id
	// decides them every run.
	slices.SortStableFunc(res.Hits, func(a, b *search.DocumentMatch) int {
		return cmp.Or(cmp.Compare(float32(b.Score), float32(a.Score)), strings.Compare(a.ID, b.ID))
	})
	seen := map[string]bool{}
	var ids []string
	used := 0
	offer := func(id string) {
		c, ok := ns.cost[id]
		if !ok || seen[id] || used+c > budget {
			return
		}
		seen[id] = true
		used += c
		ids = append(ids, id)
	}
	for _, h := range res.Hits {
		if used >= budget {
			break
		}
		offer(h.ID)
		if neighbours {
			offer(ns.prev[h.ID])
			offer(ns.next[h.ID])
		}
	}
	return ids, nil
}
