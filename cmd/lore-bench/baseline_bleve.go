package main

import (
	"context"
	"fmt"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/store"
)

// The bleve baseline: bleve used directly, with its default mapping, on
// the same records and words; and the timing loop every baseline's
// search shares.

// ingestBleve is the baseline: bleve with its default mapping indexing the
// same records (as documents, the way a user of bleve would) in batches.
func ingestBleve(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	start := time.Now()
	bi, err := bleve.New(bleveDir(a.Dir), bleve.NewIndexMapping())
	if err != nil {
		return res, err
	}
	spent := time.Since(start)
	loaded, err := ingestBatches(c, a, &res, func(recs []store.Record) error {
		b := bi.NewBatch()
		for i := range recs {
			if err := b.Index(recs[i].NS+"/"+recs[i].ID, &recs[i]); err != nil {
				return err
			}
		}
		return bi.Batch(b)
	})
	spent += loaded
	if err != nil {
		bi.Close()
		return res, err
	}
	t := time.Now()
	if err := bi.Close(); err != nil {
		return res, err
	}
	spent += time.Since(t)
	res.Seconds = spent.Seconds()
	return res, nil
}

// ingestBatches feeds a baseline the corpus in batches of a.Batch: put
// stores one batch. It counts the records and their text bytes in res,
// and the CPU spent generating the corpus (ahead of the timing), and
// returns the time spent in put.
func ingestBatches(c corpus, a phaseArgs, res *phaseResult, put func([]store.Record) error) (time.Duration, error) {
	var spent time.Duration
	for ahead := range c.ahead(a.Batch) {
		g := rusage.CPU()
		batches := ahead()
		res.GenCPUSeconds += (rusage.CPU() - g).Seconds()
		for _, pb := range batches {
			for i := range pb.recs {
				res.Bytes += int64(textBytes(&pb.recs[i]))
			}
			t := time.Now()
			err := put(pb.recs)
			spent += time.Since(t)
			if err != nil {
				return spent, err
			}
			res.Records += len(pb.recs)
		}
	}
	return spent, nil
}

// baselineQuery is the bleve query a user of bleve alone would write for
// q: the words against the default _all field, within the namespace.
func baselineQuery(q query) *bleve.SearchRequest {
	ns := bleve.NewTermQuery(q.NS)
	ns.SetField("ns")
	words := bleve.NewMatchQuery(q.Text)
	return bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(ns, words), 50, 0, false)
}

// searchBleve runs the baseline search (default mapping, top 50) for the
// same queries.
func searchBleve(c corpus, a phaseArgs) (phaseResult, error) {
	bi, err := bleve.OpenUsing(bleveDir(a.Dir), map[string]any{"read_only": true})
	if err != nil {
		return phaseResult{}, err
	}
	defer bi.Close()
	ctx := context.Background()
	return timeTop50(c.queries(a.Queries), func(q query) (int, error) {
		sr, err := bi.SearchInContext(ctx, baselineQuery(q))
		if err != nil {
			return 0, err
		}
		return len(sr.Hits), nil
	})
}

// timeTop50 times a baseline's search over qs, after warmup of them run
// untimed: run searches for one query and says how many hits it found.
func timeTop50(qs []query, run func(query) (int, error)) (phaseResult, error) {
	res := phaseResult{Latency: map[string]latency{}}
	for _, q := range qs[:min(warmup, len(qs))] {
		if _, err := run(q); err != nil {
			return res, err
		}
	}
	ds := make([]time.Duration, 0, len(qs))
	hits := 0
	for _, q := range qs {
		t := time.Now()
		n, err := run(q)
		d := time.Since(t)
		if err != nil {
			return res, fmt.Errorf("search %q in %s: %w", q.Text, q.NS, err)
		}
		ds = append(ds, d)
		hits += n
	}
	s := summarize(ds)
	if len(qs) > 0 {
		s.Hits = float64(hits) / float64(len(qs))
	}
	res.Latency["top50"] = s
	for _, d := range ds {
		res.Seconds += d.Seconds()
	}
	return res, nil
}
