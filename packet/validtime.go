package packet

import (
	"fmt"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/store"
)

// Validity in time: when a fact holds, beside when Lore learned it
// (created, updated). A record says it with meta.valid_from and
// meta.valid_until. A number, or the id of a record with an order, is a
// story position, read as meta.from and meta.until are (inclusive, at
// Request.AsOf). A date (2026-03-01) or an RFC 3339 time is a time, read
// at Request.At, by default the time of the request: a record holds from
// its valid_from (inclusive) until its valid_until (exclusive). A record
// that no longer holds is not loaded, and where another record
// supersedes it (a "supersedes" link, as `lore put --supersedes` makes),
// the packet says so in its Superseded lines, with the handle that
// fetches it: the fact is out of date, not lost.

// validityKeys are the meta keys a record's validity reads: the story
// positions' older names and the two that hold a position or a time.
var validityKeys = []string{"from", "until", facts.MetaValidFrom, facts.MetaValidUntil}

// timeValidity returns why r does not hold at the request's time, and
// false when it does not.
func (g *gatherer) timeValidity(r store.Record) (string, bool) {
	at := g.req.at
	if v := r.Meta[facts.MetaValidFrom]; v != "" {
		if t, ok := facts.ParseTime(v); ok && at.Before(t) {
			return fmt.Sprintf("not yet valid: valid from %s", v), false
		}
	}
	if v := r.Meta[facts.MetaValidUntil]; v != "" {
		if t, ok := facts.ParseTime(v); ok && !at.Before(t) {
			return fmt.Sprintf("no longer holds: valid until %s", v), false
		}
	}
	return "", true
}

// Superseded is a record a packet left out because it no longer holds
// at the request's time and another record supersedes it.
type Superseded struct {
	ID    string `json:"id"`
	Kind  string `json:"kind,omitempty"`
	By    string `json:"by"`
	On    string `json:"on"` // its valid_until
	Fetch string `json:"fetch"`
}

// maxSupersededLines bounds the Superseded lines a packet writes: the
// first are named, the rest counted.
const maxSupersededLines = 5

// noteSuperseded records candidate r, not loaded because its time ran
// out, as superseded when a record that holds now supersedes it; the
// skip's reason then says by which. It returns the reason to keep.
func (g *gatherer) noteSuperseded(r store.Record, why string) string {
	until, ok := facts.ParseTime(r.Meta[facts.MetaValidUntil])
	if !ok || g.req.at.Before(until) {
		return why
	}
	nbs, err := g.src.Neighbors(g.req.NS, r.ID, 1, []string{facts.RelSupersedes})
	if err != nil {
		return why // the record stays out; only its note is lost
	}
	for _, n := range nbs {
		if n.Via.To != r.ID || n.Via.From == r.ID {
			continue
		}
		heads, err := g.src.Heads(g.req.NS, []string{n.Via.From})
		if err != nil || len(heads) == 0 {
			continue
		}
		if _, holds := g.timeValidity(heads[0]); !holds {
			continue
		}
		on := r.Meta[facts.MetaValidUntil]
		g.superseded = append(g.superseded, Superseded{ID: r.ID, Kind: r.Kind, By: n.Via.From, On: on, Fetch: fetchCmd(g.req.NS, r.ID)})
		return fmt.Sprintf("superseded by %s on %s", n.Via.From, on)
	}
	return why
}
