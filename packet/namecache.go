package packet

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/mention"
	"github.com/lorekeep/lore/store"
)

// Work shared across packets: the names of a namespace. A packet with
// mention rules needs every name its focus text can match. Reading the
// heads of every record of the namespace that goes by a name was a tenth
// of a novel packet's CPU at 100,000 records, and most of a cold one at a
// million. So the first request at a store's sequence reads only the
// names filed under its text's words (WordNamer), and the second reads
// the whole set and keeps it for the process under the store's identity,
// the namespace, the naming kinds and the store's last sequence number,
// which every change of a record advances (SetTokens, which caches token
// counts, does not; the names hold none): a packet reads the sequence
// from the store itself (one small read), and a set made at another
// sequence is never served. What a packet's request decides (the focus,
// story time) is applied to the names it meets, not kept.

// Versioned is implemented by a Source whose reads can be shared across
// packets (*store.Store does). Identity is the same for a store and every
// view of it in this process and differs between stores open at once; it
// must be comparable. LastSeq is the sequence number of the newest
// change, read from the store each time.
type Versioned interface {
	Identity() any
	LastSeq() (uint64, error)
}

// maxNameBytes bounds the memory the kept name sets take, roughly: the
// least recently used sets go first, and a set larger than it is not
// kept (its packets read the names as without the cache).
const maxNameBytes = 64 << 20

// namedHead is what a mention scan needs of a record beyond its names:
// who it is, and what story time reads (meta.from, meta.until, order).
type namedHead struct {
	id, kind string
	order    int64
	meta     map[string]string // from and until only; nil without either
}

// nameSet is every name of one namespace's named heads, at one sequence,
// filed for selection by the words of a text. Read-only once made.
type nameSet struct {
	heads []namedHead
	names []mention.Name
	owner []int32 // per name: its head in heads
	bytes int     // roughly, of the whole set with its index
	// index is built when the set is first served from the cache
	// (served): a process that builds one packet (the CLI) selects by a
	// pass over the names instead, which costs less than filing them.
	served atomic.Bool
	once   sync.Once
	index  *mention.Index
}

// positions returns, ascending, the positions of the names texts can
// match: through the index once the set has been served from the cache,
// else by a pass (both select the same names).
func (s *nameSet) positions(texts []string) []int {
	if !s.served.Load() {
		return mention.Select(s.names, texts...)
	}
	s.once.Do(func() { s.index = mention.NewIndex(s.names) })
	return s.index.For(texts...)
}

// newNameSet files the names of heads (sorted by id) in the order the
// mention rules met them before the cache: per head its title (for a
// naming kind), its aliases, its keys.
func newNameSet(heads []store.Record, naming func(kind string) bool) *nameSet {
	s := &nameSet{}
	for _, h := range heads {
		if len(h.Aliases)+len(h.Keys) == 0 && !naming(h.Kind) {
			continue
		}
		o := int32(len(s.heads))
		nh := namedHead{id: h.ID, kind: h.Kind, order: h.Order}
		for _, k := range validityKeys {
			if v, ok := h.Meta[k]; ok {
				if nh.meta == nil {
					nh.meta = map[string]string{}
				}
				nh.meta[k] = v
				s.bytes += 64 + len(v)
			}
		}
		s.heads = append(s.heads, nh)
		s.bytes += int(unsafe.Sizeof(nh)) + len(h.ID) + len(h.Kind)
		add := func(text, via string) {
			s.names = append(s.names, mention.Name{Text: text, ID: h.ID, Via: via})
			s.owner = append(s.owner, o)
			s.bytes += int(unsafe.Sizeof(mention.Name{})) + 4 + 3*len(text) + 48 // the name, its owner, its filing and words
		}
		if h.Title != "" && naming(h.Kind) {
			add(h.Title, "title")
		}
		for _, a := range h.Aliases {
			add(a, "alias")
		}
		for _, k := range h.Keys {
			add(k, "key")
		}
	}
	return s
}

type nameKey struct {
	store     any
	ns, kinds string
}

type nameEntry struct {
	seq  uint64
	set  *nameSet
	used uint64 // tick of the last use
}

var nameSets = struct {
	sync.Mutex
	m            map[nameKey]*nameEntry
	bytes        int
	tick         uint64
	seen         map[nameKey]seenNames // what readByWord decided last
	hits, misses atomic.Int64
}{m: map[nameKey]*nameEntry{}, seen: map[nameKey]seenNames{}}

// seenNames is the sequence at which a request last read names by word,
// and whether the whole set is known to be too large to keep.
type seenNames struct {
	seq    uint64
	tooBig bool
}

// maxSeen bounds nameSets.seen: past it, what it remembers is forgotten
// (the cost is one more read by word per key).
const maxSeen = 4096

// readByWord reports whether a request should read the names of key at
// seq by word rather than whole: the first one at a sequence does (a
// write may come before the next, and reading the whole set would buy
// nothing), the second reads it whole to keep, and when the whole set is
// too large to keep every request reads by word.
func readByWord(key nameKey, seq uint64) bool {
	nameSets.Lock()
	defer nameSets.Unlock()
	e, ok := nameSets.seen[key]
	if ok && (e.tooBig || e.seq == seq) {
		return e.tooBig
	}
	if len(nameSets.seen) >= maxSeen {
		clear(nameSets.seen)
	}
	nameSets.seen[key] = seenNames{seq: seq}
	return true
}

// NameStats reports how often a packet's names came from the process's
// cache (hits) and how often they were read from the store (misses).
// Sources that are not Versioned count as neither.
func NameStats() (hits, misses int64) {
	return nameSets.hits.Load(), nameSets.misses.Load()
}

// namesFor returns a name set holding every name texts can match: the
// namespace's whole set, kept for the store at its current sequence;
// else the names filed under the texts' words (wordNames) when this is
// the first request to want names at this sequence, or a source that
// keeps no sets; else the whole set, read and, when no write came
// between, kept. So a process that builds one packet (the CLI), or one
// packet between writes (an agent that remembers every turn), never
// walks the names of its namespace, and one that builds many between
// writes reads them whole once. The sets give the same names either way.
func (g *gatherer) namesFor(texts []string) (*nameSet, error) {
	kinds := g.namingKinds()
	v, ok := g.src.(Versioned)
	if _, namer := g.src.(Namer); !ok || !namer || !reflect.ValueOf(v.Identity()).Comparable() {
		if s, ok, err := g.wordNames(store.TextWords(texts...)); ok || err != nil {
			return s, err
		}
		heads, err := g.namedHeads()
		if err != nil {
			return nil, err
		}
		return newNameSet(heads, g.naming), nil
	}
	key := nameKey{v.Identity(), g.req.NS, strings.Join(kinds, "\x00")}
	seq, err := v.LastSeq()
	if err != nil {
		return nil, badvalue.Errorf(g.req.NS, "names of ns %q: %w", g.req.NS, err)
	}
	if s := lookupNames(key, seq); s != nil {
		nameSets.hits.Add(1)
		s.served.Store(true)
		return s, nil
	}
	nameSets.misses.Add(1)
	if g.req.work.byWord(key, seq) {
		if s, ok, err := g.req.work.wordNamesAt(key, seq, store.TextWords(texts...), g.wordNames); ok || err != nil {
			return s, err
		}
	}
	heads, err := g.namedHeads()
	if err != nil {
		return nil, err
	}
	s := newNameSet(heads, g.naming)
	// Kept only when the heads are those of seq: no write between the two
	// reads of the sequence.
	if after, err := v.LastSeq(); err == nil && after == seq {
		keepNames(key, seq, s)
	}
	return s, nil
}

func lookupNames(key nameKey, seq uint64) *nameSet {
	nameSets.Lock()
	defer nameSets.Unlock()
	e, ok := nameSets.m[key]
	if !ok || e.seq != seq {
		return nil
	}
	nameSets.tick++
	e.used = nameSets.tick
	return e.set
}

// keepNames keeps s under key at seq, unless a set of a later sequence is
// kept there, then drops the least recently used sets past maxNameBytes.
func keepNames(key nameKey, seq uint64, s *nameSet) {
	nameSets.Lock()
	defer nameSets.Unlock()
	if s.bytes > maxNameBytes {
		nameSets.seen[key] = seenNames{seq: seq, tooBig: true}
		return
	}
	if e, ok := nameSets.m[key]; ok {
		if e.seq > seq {
			return
		}
		nameSets.bytes -= e.set.bytes
	}
	nameSets.tick++
	nameSets.m[key] = &nameEntry{seq: seq, set: s, used: nameSets.tick}
	nameSets.bytes += s.bytes
	for nameSets.bytes > maxNameBytes {
		var oldest nameKey
		var least uint64
		for k, e := range nameSets.m {
			if k != key && (least == 0 || e.used < least) {
				oldest, least = k, e.used
			}
		}
		if least == 0 {
			return
		}
		nameSets.bytes -= nameSets.m[oldest].set.bytes
		delete(nameSets.m, oldest)
	}
}

// names returns the names at positions of s (ascending) that the packet
// may use, in that order: not a focus record's, and of a record story
// time lets the packet see.
func (g *gatherer) names(s *nameSet, positions []int, isFocus func(string) bool) []mention.Name {
	seen := map[int32]bool{}
	var out []mention.Name
	for _, i := range positions {
		o := s.owner[i]
		ok, decided := seen[o]
		if !decided {
			h := s.heads[o]
			ok = !isFocus(h.id)
			if ok {
				w := len(g.warns)
				_, ok = g.storyTime(store.Record{ID: h.id, Kind: h.kind, Order: h.order, Meta: h.meta})
				g.warns = g.warns[:w] // a bad meta.from is warned about if the record becomes a candidate, not for lending a name
			}
			seen[o] = ok
		}
		if ok {
			out = append(out, s.names[i])
		}
	}
	return out
}

// WordNamer is implemented by a Source that files names by word
// (*store.Store does, from store format 4): NamesByWord returns, sorted
// by id, the heads NamedHeads(ns, kinds) would that have a name filed
// under one of words (store.TextWords of the texts to scan), or ok
// false when it cannot tell (the caller then reads every name).
type WordNamer interface {
	NamesByWord(ns string, kinds, words []string) (heads []store.Record, ok bool, err error)
}

// wordNames reads the names filed under words: a set that holds every
// name a text of those words can match, and the others of their
// records. ok is false when the source files no names by word.
func (g *gatherer) wordNames(words []string) (*nameSet, bool, error) {
	wn, ok := g.src.(WordNamer)
	if !ok {
		return nil, false, nil
	}
	heads, ok, err := wn.NamesByWord(g.req.NS, g.namingKinds(), words)
	if err != nil {
		return nil, false, badvalue.Errorf(g.req.NS, "names of ns %q: %w", g.req.NS, err)
	}
	if !ok {
		return nil, false, nil
	}
	return newNameSet(g.ownNS(heads), g.naming), true, nil
}
