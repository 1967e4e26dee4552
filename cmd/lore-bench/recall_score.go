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
}

func loadNamespaces(recs []evalRecord, cl100k budget.Counter) map[string]*evalNS {
	out := map[string]*evalNS{}
	for i := range recs {
		r := &recs[i]
		ns := out[r.Namespace]
		if ns == nil {
			ns = &evalNS{name: r.Namespace, byID: map[string]*evalRecord{}, cost: map[string]int{},
				prev: map[string]string{}, next: map[string]string{}}
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
