package main

import "github.com/lorekeep/lore/packet"

// cacheStats are the process's packet caches' counters at one moment.
type cacheStats struct {
	nameHits, nameMisses, fragHits, fragMisses, aheadRead, aheadUsed int64
}

func takeCacheStats() cacheStats {
	var c cacheStats
	c.nameHits, c.nameMisses = packet.NameStats()
	c.fragHits, c.fragMisses = packet.FragmentStats()
	c.aheadRead, c.aheadUsed = packet.BodiesAheadStats()
	return c
}

// since puts into s what the counters gained from before to c.
func (c cacheStats) since(before cacheStats, s *latency) {
	s.NameHits, s.NameMisses = c.nameHits-before.nameHits, c.nameMisses-before.nameMisses
	s.FragmentHits, s.FragmentMisses = c.fragHits-before.fragHits, c.fragMisses-before.fragMisses
	s.AheadRead, s.AheadUsed = c.aheadRead-before.aheadRead, c.aheadUsed-before.aheadUsed
}
