package packet

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/lorekeep/lore/index"
)

// The bodies of the best hits, counted on the other core as soon as the
// first search returns.
//
// After the search the gather reads the hits' heads and links on one
// goroutine, a millisecond at 100,000 records, while the other core has
// nothing to do; then pricing runs on both cores beside the bodies read
// ahead (bodiesahead.go), which count the bodies the packet will most
// likely hold. The best hits are most of those bodies. Their text is
// counted in that idle millisecond, chunk by chunk as a markdown render
// holds it, into the process's fragment cache, where the bodies read
// ahead and the final re-count then find it. As with the bodies read
// ahead, nothing about the packet depends on it: the cache holds exact
// counts whoever made them, and a guess that misses costs the idle
// core's time alone.

// warmTokensPerHit is the budget's share per hit warmed: a scene's
// budget of 8,000 warms its best 16 hits.
const warmTokensPerHit = 500

// warmHits starts counting the bodies of the best of hits on another
// goroutine, where the source can be read from two and the counts are
// the budget package's own (so they are kept), for a markdown packet.
// The build waits for it only as it returns, cancelling it first
// (helpers.go); the channel, closed when it is done (nil if it did not
// start), is for tests.
func (g *gatherer) warmHits(hits []index.Hit) <-chan struct{} {
	if g.req.Format != "md" || !readsConcurrently(g.src) || !exactBPE(g.req.Counter) {
		return nil
	}
	var ids []string
	for _, h := range hits[:min(len(hits), g.req.Budget/warmTokensPerHit)] {
		if h.NS == g.req.NS {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	src, ns, frags := g.src, g.req.NS, sharedFragmentCounter(g.req.Counter)
	done := make(chan struct{})
	g.bg.Go(func(ctx context.Context) {
		defer close(done)
		bodies, err := src.Bodies(ns, ids)
		if err != nil {
			return // the build reads them itself, and meets the error there
		}
		var buf bytes.Buffer
		for _, id := range ids {
			if ctx.Err() != nil {
				return // the build has returned
			}
			text := strings.TrimRight(bodies[id], "\n")
			if text == "" {
				continue
			}
			// As writeMDEntry writes a body: below its heading line, so
			// its chunks are cut where the entry's are.
			buf.Reset()
			buf.WriteString(demoteHeadings(text))
			buf.WriteByte('\n')
			frags.countBytes(buf.Bytes())
		}
	})
	return done
}
