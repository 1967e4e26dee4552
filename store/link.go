package store

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"
)

// Direction selects which links of a record to read.
type Direction int

// The directions of Links.
const (
	Out  Direction = iota // links from the record
	In                    // links to the record
	Both                  // both, merged
)

// Neighbor is a record reached by a graph walk.
type Neighbor struct {
	ID   string `json:"id"`
	Hops int    `json:"hops"`
	// Via is the link that reached it (the first in (rel, id) order).
	Via Link `json:"via"`
}

// Link adds or updates the link (l.NS, l.From, l.Rel, l.To) with its
// weight. changed is false when the same link with the same weight was
// already stored (nothing is written then). The target need not exist.
func (s *Store) Link(l Link) (changed bool, err error) {
	if err := validLink(l); err != nil {
		return false, err
	}
	err = s.update(func(tx KVTx) error {
		changed, err = linkTx(tx, l, s.opts.Now(), false)
		return err
	})
	return changed, err
}

// lastLinkTime is the latest time given to a link by this process.
var lastLinkTime atomic.Int64

// linkTime returns now in Unix nanoseconds, or just after the last time
// it returned: links made one after another get increasing times even
// within one transaction or under a coarse or fixed clock.
func linkTime(now time.Time) int64 {
	for {
		last := lastLinkTime.Load()
		t := max(now.UnixNano(), last+1)
		if lastLinkTime.CompareAndSwap(last, t) {
			return t
		}
	}
}

// raiseLinkTime makes the links made next come after time t.
func raiseLinkTime(t int64) {
	for {
		last := lastLinkTime.Load()
		if last >= t || lastLinkTime.CompareAndSwap(last, t) {
			return
		}
	}
}

// linkTx writes l. keepMade (a restore) keeps l.Made for a new link.
func linkTx(tx KVTx, l Link, now time.Time, keepMade bool) (bool, error) {
	out, in := tx.Bucket(bucketOut), tx.Bucket(bucketIn)
	ko := key(l.NS, l.From, l.Rel, l.To)
	var made int64
	if old := out.Get(ko); old != nil {
		w, m, err := decodeLinkValue(old)
		if err != nil {
			return false, valuef(l.From, "link %q -%s-> %q: %w", l.From, l.Rel, l.To, err)
		}
		if w == l.Weight {
			return false, nil
		}
		made = m
	} else if keepMade && l.Made > 0 {
		made = l.Made // a restore keeps it
		raiseLinkTime(made)
	} else {
		made = linkTime(now)
	}
	v := encodeLinkValue(l.Weight, made)
	if err := out.Put(ko, v); err != nil {
		return false, err
	}
	if err := in.Put(key(l.NS, l.To, l.Rel, l.From), v); err != nil {
		return false, err
	}
	_, err := appendChange(tx, OpLink, l.NS, l.From)
	return err == nil, err
}

// Unlink removes a link; ErrNotFound if it is not there.
func (s *Store) Unlink(ns, from, rel, to string) error {
	if err := validLink(Link{NS: ns, From: from, Rel: rel, To: to}); err != nil {
		return err
	}
	return s.update(func(tx KVTx) error {
		ok, err := unlinkTx(tx, ns, from, rel, to)
		if err == nil && !ok {
			err = valuef(from, "link %q -%s-> %q in namespace %q: %w", from, rel, to, ns, ErrNotFound)
		}
		return err
	})
}

func unlinkTx(tx KVTx, ns, from, rel, to string) (bool, error) {
	out := tx.Bucket(bucketOut)
	ko := key(ns, from, rel, to)
	if out.Get(ko) == nil {
		return false, nil
	}
	if err := out.Delete(ko); err != nil {
		return false, err
	}
	if err := tx.Bucket(bucketIn).Delete(key(ns, to, rel, from)); err != nil {
		return false, err
	}
	_, err := appendChange(tx, OpUnlink, ns, from)
	return err == nil, err
}

// Links returns the links of a record in one direction or both, sorted by
// relation, then the id at the other end (outgoing first on a tie).
func (s *Store) Links(ns, id string, dir Direction) ([]Link, error) {
	if err := validKey(ns, id); err != nil {
		return nil, err
	}
	if dir < Out || dir > Both {
		return nil, fmt.Errorf("%w: direction %d; want Out, In or Both", ErrInvalid, dir)
	}
	var links []Link
	err := s.view(func(tx KVTx) error {
		var err error
		links, err = linksTx(tx, ns, id, dir)
		return err
	})
	return links, err
}

func linksTx(tx KVTx, ns, id string, dir Direction) ([]Link, error) {
	return newLinkScan(tx).links(ns, id, dir)
}

// linkScan reads the links of records of one transaction with one cursor
// a direction and one prefix buffer, kept from record to record: on
// bbolt every tx.Bucket looks its bucket up again and every Cursor is
// new (see getter), and a packet reads the links of hundreds of hits.
type linkScan struct {
	out, in KVCursor
	pre     []byte
}

func newLinkScan(tx KVTx) *linkScan {
	return &linkScan{out: tx.Bucket(bucketOut).Cursor(), in: tx.Bucket(bucketIn).Cursor()}
}

// links is linksTx for id.
func (s *linkScan) links(ns, id string, dir Direction) ([]Link, error) {
	var links []Link
	s.pre = append(appendKey(s.pre[:0], ns, id), sep)
	pre := s.pre
	scan := func(c KVCursor, out bool) error {
		for k, v := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			parts, err := splitKey(k[len(pre):], 2)
			if err != nil {
				return err
			}
			w, made, err := decodeLinkValue(v)
			if err != nil {
				return err
			}
			l := Link{NS: ns, From: id, Rel: parts[0], To: parts[1], Weight: w, Made: made}
			if !out {
				l.From, l.To = parts[1], id
			}
			links = append(links, l)
		}
		return nil
	}
	if dir != In {
		if err := scan(s.out, true); err != nil {
			return nil, err
		}
	}
	if dir != Out {
		if err := scan(s.in, false); err != nil {
			return nil, err
		}
	}
	if dir == Both {
		other := func(l Link) string {
			if l.From == id {
				return l.To
			}
			return l.From
		}
		slices.SortStableFunc(links, func(a, b Link) int {
			return cmp.Or(cmp.Compare(a.Rel, b.Rel), cmp.Compare(other(a), other(b)))
		})
	}
	return links, nil
}

// Neighbors walks links in both directions from a record, up to hops
// (1 or 2) steps, following only the relations in rels (all when empty).
// The start record is not included; neighbours are returned whether or
// not a record exists for them. Sorted by (hops, id).
func (s *Store) Neighbors(ns, id string, hops int, rels []string) ([]Neighbor, error) {
	if err := validKey(ns, id); err != nil {
		return nil, err
	}
	if hops < 1 || hops > 2 {
		return nil, fmt.Errorf("%w: hops %d; want 1 or 2", ErrInvalid, hops)
	}
	follow := relSet(rels)
	var out []Neighbor
	err := s.view(func(tx KVTx) error {
		var err error
		out, err = neighborsTx(tx, ns, id, hops, follow)
		return err
	})
	return out, err
}

// NeighborsOf gives, for each of ids, what Neighbors(ns, id, 1, rels)
// gives, read in one transaction: a packet asks for the neighbours of
// hundreds of search hits at once. Ids without links map to nothing.
func (s *Store) NeighborsOf(ns string, ids []string, rels []string) (map[string][]Neighbor, error) {
	for _, id := range ids {
		if err := validKey(ns, id); err != nil {
			return nil, err
		}
	}
	follow := relSet(rels)
	relsK := relsKey(follow)
	g, useKept := s.rc.begin()
	if !useKept {
		out, _, err := s.readNeighbors(ns, ids, follow)
		return out, err
	}
	out := make(map[string][]Neighbor, len(ids))
	miss := s.rc.keptNeighbors(g, ns, ids, relsK, out)
	read, byKey, err := s.readNeighbors(ns, miss, follow)
	if err != nil {
		return nil, err
	}
	if !s.rc.still(g) {
		if len(miss) == len(ids) {
			return read, nil
		}
		// A write ran: what was kept may be older than the read.
		out, _, err := s.readNeighbors(ns, ids, follow)
		return out, err
	}
	s.rc.keepNeighbors(g, byKey)
	maps.Copy(out, read)
	return out, nil
}

// readNeighbors reads the one-hop neighbours of ids over the relations
// follow in one read transaction: by id where there are any, and by
// neighborsKey for every id (empty lists too), for the read cache.
func (s *Store) readNeighbors(ns string, ids []string, follow map[string]bool) (map[string][]Neighbor, map[string][]Neighbor, error) {
	out := make(map[string][]Neighbor, len(ids))
	byKey := make(map[string][]Neighbor, len(ids))
	if len(ids) == 0 {
		return out, byKey, nil
	}
	err := s.view(func(tx KVTx) error {
		ls := newLinkScan(tx)
		relsK := relsKey(follow)
		for _, id := range ids {
			nbs, err := neighborsWith(ls, ns, id, 1, follow)
			if err != nil {
				return err
			}
			byKey[neighborsKey(ns, id, relsK)] = nbs
			if len(nbs) > 0 {
				out[id] = nbs
			}
		}
		return nil
	})
	return out, byKey, err
}

// relSet is the set of relations to follow; empty follows all.
func relSet(rels []string) map[string]bool {
	follow := make(map[string]bool, len(rels))
	for _, r := range rels {
		follow[r] = true
	}
	return follow
}

// neighborsTx walks links both ways from id, up to hops steps, following
// the relations in follow (all when empty), sorted by (hops, id).
func neighborsTx(tx KVTx, ns, id string, hops int, follow map[string]bool) ([]Neighbor, error) {
	return neighborsWith(newLinkScan(tx), ns, id, hops, follow)
}

// neighborsWith is neighborsTx reading links through ls.
func neighborsWith(ls *linkScan, ns, id string, hops int, follow map[string]bool) ([]Neighbor, error) {
	var out []Neighbor
	seen := map[string]bool{id: true}
	frontier := []string{id}
	for h := 1; h <= hops; h++ {
		var next []Neighbor
		for _, from := range frontier {
			links, err := ls.links(ns, from, Both)
			if err != nil {
				return nil, err
			}
			for _, l := range links {
				if len(follow) > 0 && !follow[l.Rel] {
					continue
				}
				to := l.To
				if l.To == from {
					to = l.From
				}
				if !seen[to] {
					seen[to] = true
					next = append(next, Neighbor{ID: to, Hops: h, Via: l})
				}
			}
		}
		slices.SortFunc(next, func(a, b Neighbor) int { return cmp.Compare(a.ID, b.ID) })
		frontier = frontier[:0]
		for _, n := range next {
			frontier = append(frontier, n.ID)
		}
		out = append(out, next...)
	}
	return out, nil
}

// CompareLinks orders links by namespace, from, relation, to and weight:
// the order exports and readers list them in.
func CompareLinks(a, b Link) int {
	return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.From, b.From),
		cmp.Compare(a.Rel, b.Rel), cmp.Compare(a.To, b.To), cmp.Compare(a.Weight, b.Weight))
}
