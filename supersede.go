package lore

import (
	"context"
	"maps"
	"strconv"
	"time"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
)

// Supersede stores r as the record that supersedes record old of the same
// namespace: a newer fact of the same thing ("I moved to Chicago"). In one
// transaction it writes r, a "supersedes" link from r to old, and, where
// old has no end of validity (meta.valid_until or meta.until), a new
// version of old whose meta.valid_until is when r holds from: r's
// meta.valid_from (a time, or a story position: old then ends at the
// position before), or now, which r then takes as its valid_from. The old
// record stays, with its history: a packet for a time before then shows
// it, and one after names it as superseded, with the handle to fetch it.
func (l *Lore) Supersede(ctx context.Context, r store.Record, old string) (store.PutResult, error) {
	if old == r.ID {
		return store.PutResult{}, badvalue.Errorf(old, "record %q cannot supersede itself: %w", old, store.ErrInvalid)
	}
	prev, err := l.st.Get(r.NS, old)
	if err != nil {
		return store.PutResult{}, badvalue.Errorf(old, "supersedes %q: %w", old, err)
	}
	from := r.Meta[facts.MetaValidFrom]
	if from == "" {
		from = facts.FormatTime(l.clock())
		r.Meta = maps.Clone(r.Meta)
		if r.Meta == nil {
			r.Meta = map[string]string{}
		}
		r.Meta[facts.MetaValidFrom] = from
	}
	recs := []store.Record{r}
	if prev.Meta[facts.MetaValidUntil] == "" && prev.Meta["until"] == "" {
		prev.Meta = maps.Clone(prev.Meta)
		if prev.Meta == nil {
			prev.Meta = map[string]string{}
		}
		prev.Meta[facts.MetaValidUntil] = endBefore(from)
		recs = append(recs, prev)
	}
	res, err := l.PutMany(ctx, recs, []store.Link{{NS: r.NS, From: r.ID, Rel: facts.RelSupersedes, To: old}})
	if len(res) == 0 {
		return store.PutResult{}, err
	}
	return res[0], err
}

// endBefore is the end of validity of a record superseded from from: the
// same time (a time's end is exclusive), or for a story position n, n-1
// (a position's bounds are inclusive, and one scene shows one value).
func endBefore(from string) string {
	if n, err := strconv.ParseInt(from, 10, 64); err == nil && n > 1 {
		return strconv.FormatInt(n-1, 10)
	}
	return from
}

// clock is the time Lore sets on what it writes: Options.Now, or now.
func (l *Lore) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}
