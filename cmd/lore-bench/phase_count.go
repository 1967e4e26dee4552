package main

import (
	"slices"
	"time"

	"github.com/lorekeep/lore/budget"
)

// The counting phase: the store's default counter over the corpus.

// count runs the store's default counter (o200k_base) over the text of the
// first CountMax records, on one goroutine.
func count(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		return res, err
	}
	n := min(c.n, a.CountMax)
	var spent time.Duration
	per := make([]int, 0, n)
	for from := 0; from < n; from += a.Batch {
		recs, _ := c.batch(from, min(from+a.Batch, n))
		t := time.Now()
		for i := range recs {
			r := &recs[i]
			k := counter.Count(r.Title) + counter.Count(r.Summary) + counter.Count(r.Body)
			per = append(per, k)
			res.Tokens += int64(k)
			res.Bytes += int64(textBytes(r))
		}
		spent += time.Since(t)
		res.Records += len(recs)
	}
	res.Seconds = spent.Seconds()
	slices.Sort(per)
	res.TokensP1, res.TokensP50, res.TokensP99 = per[len(per)/100], per[len(per)/2], per[len(per)*99/100]
	return res, nil
}
