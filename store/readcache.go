package store

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// A bbolt store keeps the heads and neighbour lists it has decoded for
// the process. A server builds packet after packet over one store, and
// each packet reads hundreds of heads and links, most of them the ones
// the packet before read: decoding them was a third of a short-turn
// packet's time. Measured on the short turns (the recall benchmark,
// 3,795 packets, every row the same; two binaries at once): build p50
// 4.9-5.5 -> 4.3-4.8 ms at 500-4k tokens, 10.1 -> 9.0 ms at 8k; in the
// CPU profile the heads' reads 4.44 s -> 2.97 s (1.67 s of it copying
// them out), the neighbours' 3.24 s -> 1.67 s. A packet's reads then
// shared the kept heads (HeadsShared): 5.2-5.9 -> 4.7-5.4 ms at 500-4k,
// run beside the commit before, every row the same.
//
// What is kept is valid while nothing is written: every write through
// the store counts its generation up before it starts and again once it
// has committed (odd: a write runs), and a read uses what is kept only
// when the generation was even before its transaction began and is the
// same once it has read (a sequence lock). Otherwise it reads from its
// transaction alone. A bbolt file has one writing process, this one, so
// no write escapes the count. Heads hands out copies, as a caller may
// change what it got; HeadsShared, for a caller that only reads (a
// packet), the kept heads themselves.
type readCache struct {
	gen   atomic.Uint64
	mu    sync.Mutex
	at    uint64 // the generation the entries were read at
	heads map[string]Record
	links map[string][]Neighbor
}

// readCacheEntries bounds each of the cache's maps: past it, a map is
// emptied and fills again (a head with a few meta values keeps about
// half a kilobyte: some 16 MB of heads at most).
const readCacheEntries = 1 << 15

// writing marks a write running, until its done is called.
func (c *readCache) writing() (done func()) {
	if c == nil {
		return func() {}
	}
	c.gen.Add(1)
	return func() { c.gen.Add(1) }
}

// begin returns the generation a read starts at, and whether what is
// kept may serve it (no write runs).
func (c *readCache) begin() (uint64, bool) {
	if c == nil {
		return 0, false
	}
	g := c.gen.Load()
	return g, g%2 == 0
}

// still reports whether no write started since begin returned g.
func (c *readCache) still(g uint64) bool { return c.gen.Load() == g }

// ready readies the maps for n entries read at generation g, with mu
// held: false when a write has started since (nothing is to be kept);
// else the maps are emptied when their entries were read at another
// generation, and m (one of them) when n more would take it past
// readCacheEntries.
func ready[V any](c *readCache, g uint64, m func() map[string]V, n int) bool {
	if !c.still(g) {
		return false
	}
	if c.at != g || c.heads == nil {
		c.at, c.heads, c.links = g, map[string]Record{}, map[string][]Neighbor{}
	}
	if len(m())+n > readCacheEntries {
		clear(m())
	}
	return true
}

// keptHeads sets out[i] to the head kept for ns and ids[i] at generation
// g (a copy where copies is set) and found[i] where there is one, and
// returns the ids it has none for. One lock and no key built a head: a
// packet asks for hundreds.
func (c *readCache) keptHeads(g uint64, ns string, ids []string, copies bool, out []Record, found []bool) (miss []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at != g {
		return ids
	}
	key := make([]byte, 0, len(ns)+64)
	for i, id := range ids {
		key = append(append(append(key[:0], ns...), 0), id...)
		r, ok := c.heads[string(key)]
		if !ok {
			miss = append(miss, id)
			continue
		}
		if copies {
			r = cloneHead(r)
		}
		out[i], found[i] = r, true
	}
	return miss
}

// keepHeads keeps heads, read at generation g, unless a write has
// started since: copies where copies is set (the caller may change its
// own), else the heads themselves (the caller only reads them).
func (c *readCache) keepHeads(g uint64, heads []Record, copies bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ready(c, g, func() map[string]Record { return c.heads }, len(heads)) {
		return
	}
	for _, r := range heads {
		if copies {
			r = cloneHead(r)
		}
		c.heads[cacheKey(r.NS, r.ID)] = r
	}
}

// keptNeighbors sets out[id], for each of ids with a neighbour list
// kept at generation g over the relations relsK (neighborsKey), to a
// copy of it (ids whose list is empty are left out), and returns the ids
// it has none for. One lock, no key built, and the copies share one
// backing array, each capped at its length: a packet asks for hundreds.
func (c *readCache) keptNeighbors(g uint64, ns string, ids []string, relsK string, out map[string][]Neighbor) (miss []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at != g {
		return ids
	}
	kept := make([][]Neighbor, len(ids))
	n := 0
	key := make([]byte, 0, len(ns)+len(relsK)+64)
	for i, id := range ids {
		key = append(append(append(append(append(key[:0], ns...), 0), id...), 0), relsK...)
		nbs, ok := c.links[string(key)]
		if !ok {
			miss = append(miss, id)
			continue
		}
		kept[i] = nbs
		n += len(nbs)
	}
	all := make([]Neighbor, 0, n)
	for i, nbs := range kept {
		if len(nbs) > 0 {
			from := len(all)
			all = append(all, nbs...)
			out[ids[i]] = all[from:len(all):len(all)]
		}
	}
	return miss
}

// keepNeighbors keeps copies of the neighbour lists by key, read at
// generation g, unless a write has started since.
func (c *readCache) keepNeighbors(g uint64, byKey map[string][]Neighbor) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ready(c, g, func() map[string][]Neighbor { return c.links }, len(byKey)) {
		return
	}
	for k, nbs := range byKey {
		c.links[k] = slices.Clone(nbs)
	}
}

// cacheKey is the key of a record's entries.
func cacheKey(ns, id string) string { return ns + "\x00" + id }

// neighborsKey is the key of a record's neighbour list over the
// relations whose relsKey is rels.
func neighborsKey(ns, id, rels string) string { return cacheKey(ns, id) + "\x00" + rels }

// relsKey names the relations follow (all where empty) in a
// neighborsKey.
func relsKey(follow map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(follow)), "\x00")
}

// cloneHead copies what of r a caller could change in place: its
// slices and maps.
func cloneHead(r Record) Record {
	r.Tags = slices.Clone(r.Tags)
	r.Aliases = slices.Clone(r.Aliases)
	r.Keys = slices.Clone(r.Keys)
	r.Vector = slices.Clone(r.Vector)
	r.Meta = maps.Clone(r.Meta)
	r.Tokens = maps.Clone(r.Tokens)
	return r
}
