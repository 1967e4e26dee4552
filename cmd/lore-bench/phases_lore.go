package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime/pprof"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/packet"
)

// The phases that measure Lore: its ingest, its packets and its search.

// ingestLore puts the corpus through Lore's PutMany in batches: validation,
// token counting, bbolt, the change log and the bleve catch-up.
func ingestLore(c corpus, a phaseArgs) (phaseResult, error) {
	var res phaseResult
	dir := loreDir(a.Dir)
	var spent time.Duration
	start := time.Now()
	if err := lore.Init(dir); err != nil {
		return res, err
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		return res, err
	}
	spent += time.Since(start)
	ctx := context.Background()
	for ahead := range c.ahead(a.Batch) {
		// PutMany returns while the index takes the batch in, so Lore is
		// idle (Flush) before the untimed generation of the next batches.
		t := time.Now()
		if err := l.Flush(); err != nil {
			l.Close()
			return res, err
		}
		spent += time.Since(t)
		g := rusage.CPU()
		batches := ahead()
		res.GenCPUSeconds += (rusage.CPU() - g).Seconds()
		for _, b := range batches {
			for i := range b.recs {
				res.Bytes += int64(textBytes(&b.recs[i]))
			}
			res.Records += len(b.recs)
			res.Links += len(b.links)
			t := time.Now()
			if _, err := l.PutMany(ctx, b.recs, b.links); err != nil {
				l.Close()
				return res, fmt.Errorf("put records %d..%d: %w", b.from, b.from+len(b.recs)-1, err)
			}
			spent += time.Since(t)
		}
	}
	t := time.Now()
	if err := l.Close(); err != nil {
		return res, err
	}
	spent += time.Since(t)
	res.Seconds = spent.Seconds()
	return res, nil
}

// packetRequest is the Lore request for q at a budget.
func packetRequest(q query, scope string, tokens int) packet.Request {
	req := packet.Request{NS: q.NS, Query: q.Text, Budget: tokens, Scope: scope, Profile: q.Profile}
	if q.Focus != "" {
		req.Focus = []string{q.Focus}
	}
	return req
}

// packets builds and renders one packet per query at each budget, warm,
// in process, through the same facade the CLI uses (read-only open).
func packets(c corpus, a phaseArgs) (phaseResult, error) {
	res := phaseResult{Latency: map[string]latency{}}
	l, err := lore.Open(loreDir(a.Dir), &lore.Options{ReadOnly: true})
	if err != nil {
		return res, err
	}
	defer l.Close()
	dump, err := createDump(a.PacketsOut)
	if err != nil {
		return res, err
	}
	defer dump.Close()
	ctx := context.Background()
	qs := c.queries(a.Queries)
	var total time.Duration
	for _, b := range packetBudgets {
		// A CPU profile tells the budgets apart: pprof -tagfocus budget=scene.
		pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("budget", b.scope)))
		s, took, err := packetsAt(ctx, l, qs, b, dump)
		if err != nil {
			return res, err
		}
		res.Latency[b.scope] = s
		total += took
	}
	pprof.SetGoroutineLabels(ctx)
	// Lore's search alone, to compare index with index.
	search, err := searchTimes(l, qs)
	if err != nil {
		return res, err
	}
	res.Latency["search"] = search
	res.Seconds = total.Seconds()
	return res, dump.Close()
}

// packetsAt times the packets of qs at budget b, after a warm-up, and
// returns their latencies, the process caches' figures over them and
// the time they took in all; each packet's hash and time go to dump.
func packetsAt(ctx context.Context, l *lore.Lore, qs []query, b packetBudget, dump *packetDump) (latency, time.Duration, error) {
	// one builds and renders the packet of q; out is the packet, or the
	// refusal's message.
	one := func(q query) (out []byte, tokens int, deferred, refused bool, err error) {
		p, err := l.Packet(ctx, packetRequest(q, b.scope, b.tokens))
		if err != nil {
			if errors.Is(err, packet.ErrCannotFit) {
				return []byte(err.Error()), 0, false, true, nil
			}
			return nil, 0, false, false, fmt.Errorf("packet ns %q focus %q query %q: %w", q.NS, q.Focus, q.Text, err)
		}
		// Render is part of what a caller waits for.
		if out, err = p.Render("md"); err != nil {
			return nil, 0, false, false, err
		}
		return out, p.Tokens, p.Incomplete(), false, nil
	}
	for _, q := range qs[:min(warmup, len(qs))] {
		if _, _, _, _, err := one(q); err != nil {
			return latency{}, 0, err
		}
	}
	ds := make([]time.Duration, 0, len(qs))
	before := takeCacheStats()
	var total time.Duration
	var outTokens, deferrals, refusals int
	for k, q := range qs {
		t := time.Now()
		out, n, deferred, refused, err := one(q)
		d := time.Since(t)
		if err != nil {
			return latency{}, 0, err
		}
		if dump != nil {
			fmt.Fprintf(dump, "%s %d refused=%t %x %.2fms\n", b.scope, k, refused, sha256.Sum256(out), d.Seconds()*1000)
		}
		ds = append(ds, d)
		total += d
		outTokens += n
		if deferred {
			deferrals++
		}
		if refused {
			refusals++
		}
	}
	s := summarize(ds)
	s.Deferred, s.Refused = deferrals, refusals
	takeCacheStats().since(before, &s)
	if len(qs) > 0 {
		s.Tokens = float64(outTokens) / float64(len(qs))
	}
	return s, total, nil
}

// searchTimes times Lore's search alone for qs (its own mapping, the
// same words, top 50, each hit checked against the store), after the
// first warmup untimed.
func searchTimes(l *lore.Lore, qs []query) (latency, error) {
	ctx := context.Background()
	ds := make([]time.Duration, 0, len(qs))
	hits := 0
	for k, q := range qs {
		t := time.Now()
		h, err := l.Search(ctx, index.Query{NS: q.NS, Text: q.Text, Limit: 50})
		d := time.Since(t)
		if err != nil {
			return latency{}, fmt.Errorf("search ns %q query %q: %w", q.NS, q.Text, err)
		}
		if k >= warmup || len(qs) <= warmup {
			ds = append(ds, d)
		}
		hits += len(h)
	}
	s := summarize(ds)
	s.Hits = float64(hits) / float64(len(qs))
	return s, nil
}

// searchLore is Lore's search alone as its own phase (run by hand with
// -phase search-lore -cpuprofile, to see where its time goes beside
// search-bleve's): the packet phase's search figures without the packets.
func searchLore(c corpus, a phaseArgs) (phaseResult, error) {
	res := phaseResult{Latency: map[string]latency{}}
	l, err := lore.Open(loreDir(a.Dir), &lore.Options{ReadOnly: true})
	if err != nil {
		return res, err
	}
	defer l.Close()
	s, err := searchTimes(l, c.queries(a.Queries))
	if err != nil {
		return res, err
	}
	res.Latency["search"] = s
	res.Seconds = s.Meanms * float64(s.Count) / 1000
	return res, nil
}
