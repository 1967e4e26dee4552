package packet

import (
	"context"
	"slices"
	"sync/atomic"
)

// The bodies a packet will most likely hold, read and counted on another
// core while the build prices and fits.
//
// A packet reads the bodies of the records it keeps once fitting has
// decided (loadBodies), and counts them as it re-counts its render
// (budget rule 6): for a scene at 100,000 records, two fifths of the
// time after the gather, on one core, while the other waits. Which
// records a packet keeps is known only then, but the most important
// ones, up to the budget by their cached counts, are kept nearly always.
// Their bodies are read ahead, and each is counted as the render will
// hold it, into the process's fragment cache (fragcache.go); loadBodies
// then takes them from there. Nothing about the packet depends on it:
// a body read ahead is used only where it would have been read, trial
// renders still stand in for bodies not loaded, and the cache holds
// exact counts whoever made them. A guess that misses costs the other
// core's time alone.

// aheadStats counts the bodies read ahead and those a build then took.
var aheadStats struct{ read, used atomic.Int64 }

// BodiesAheadStats reports how many bodies builds read ahead, and how
// many of them they then loaded (the guess's hits).
func BodiesAheadStats() (read, used int64) { return aheadStats.read.Load(), aheadStats.used.Load() }

// bodiesAhead is the bodies being read ahead, or read.
type bodiesAhead struct {
	done   chan struct{}
	bodies map[string]string
}

// wait returns the bodies read ahead (none if the read failed: the
// build then reads them itself, and meets the error there).
func (a *bodiesAhead) wait() map[string]string {
	if a == nil {
		return nil
	}
	<-a.done
	return a.bodies
}

// startBodiesAhead starts reading and counting the bodies of the most
// important candidates (cands in packet order), up to the budget by
// their cached counts; nil when the source cannot be read from another
// goroutine, there is one core, or nothing to read.
func (b *builder) startBodiesAhead() *bodiesAhead {
	if !readsConcurrently(b.src) {
		return nil
	}
	ids, entries := b.likelyKept()
	if len(ids) == 0 {
		return nil
	}
	a := &bodiesAhead{done: make(chan struct{})}
	src, ns, format := b.src, b.req.NS, b.req.Format
	frags := newFragmentCounter(b.req.Counter)
	b.bg.Go(func(ctx context.Context) {
		defer close(a.done)
		sorted := slices.Sorted(slices.Values(ids))
		bodies, err := src.Bodies(ns, sorted)
		if err != nil {
			return
		}
		a.bodies = bodies
		aheadStats.read.Add(int64(len(bodies)))
		if frags.seeds == nil {
			return // counts are kept for the budget package's counters alone
		}
		for k, id := range ids {
			if ctx.Err() != nil {
				return // the build has returned
			}
			e := entries[k]
			e.Text = bodies[id]
			frags.Count(entryFragment(format, e)) // kept chunk by chunk, as the render's count takes them
		}
	})
	return a
}

// likelyKept lists the candidates with a body, most important first,
// until their cached counts pass the budget, with the entry each renders
// as in full (its body still to be filled in).
func (b *builder) likelyKept() ([]string, []Entry) {
	enc := b.req.Counter.Name()
	var ids []string
	var entries []Entry
	sum := 0
	for _, c := range b.cands {
		if fits(b.req.Budget, sum) { // the bodies read hold the budget
			break
		}
		tc, ok := c.rec.Tokens[enc]
		if !ok || c.rec.BodyBytes == 0 || c.rec.Binary {
			continue
		}
		if c.excerpt != nil {
			sum += c.tc.Title + c.tc.Body // its excerpt is loaded already
			continue
		}
		sum += tc.Title + tc.Body
		ids = append(ids, c.rec.ID)
		entries = append(entries, b.entry(c, formFull, "")) // b.cost is not made yet: no Tokens
	}
	return ids, entries
}

// entryFragment is e rendered alone in format.
func entryFragment(format string, e Entry) string {
	switch format {
	case "xml":
		return xmlEntry(e, true)
	case "json":
		return jsonFragment(e)
	default:
		return mdEntry(e, true)
	}
}
