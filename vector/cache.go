package vector

import (
	"fmt"
	"sync"

	"github.com/lorekeep/lore/store"
)

// Source is what a Cache reads vectors and changes from; *store.Store
// satisfies it on both engines.
type Source interface {
	Vectors(ns string) (store.VectorSet, error)
	VectorsOf(ns string, ids []string) ([]store.VectorEntry, error)
	Changes(after uint64, limit int) ([]store.Change, error)
	LastSeq() (uint64, error)
}

// DefaultMaxFloats bounds what a Cache keeps: 2^28 float32s, 1 GiB
// (with each vector's int8 copy, about 560,000 vectors of 384
// dimensions).
const DefaultMaxFloats = 1 << 28

// Cache keeps the Sets of the namespaces searched, each read once and
// then brought up to date from the store's change log before every
// search: a search sees every write acknowledged before it began, by
// this process or any other, and a namespace's vectors are read whole
// only the first time (or when more changed than re-reading costs).
// The least recently searched namespaces are let go past MaxFloats.
// A Cache is safe for concurrent use.
type Cache struct {
	src       Source
	maxFloats int

	mu    sync.Mutex
	sets  map[string]*cached
	clock uint64
}

type cached struct {
	mu   sync.RWMutex // the set, seq and loaded; held for reading by searches
	set  *Set
	seq  uint64 // the change log is applied up to here
	used uint64 // the cache's clock at the last search
}

// NewCache returns a cache over src that keeps at most maxFloats
// numbers (0: DefaultMaxFloats); a namespace larger than that alone is
// still searched, then let go.
func NewCache(src Source, maxFloats int) *Cache {
	if maxFloats <= 0 {
		maxFloats = DefaultMaxFloats
	}
	return &Cache{src: src, maxFloats: maxFloats, sets: map[string]*cached{}}
}

// catchUpChanges bounds the change-log entries a catch-up reads before
// it re-reads the namespace whole instead.
const catchUpChanges = 16384

// Search returns the k records of ns whose vectors are nearest q (see
// Set.Search), as of every write acknowledged before the call.
func (c *Cache) Search(ns string, q []float32, k int, f Filter) ([]Hit, error) {
	e, err := c.current(ns)
	if err != nil {
		return nil, err
	}
	defer e.mu.RUnlock()
	return e.set.Search(q, k, f)
}

// Dim is the dimension of ns's vectors as of now; 0 when it has none.
func (c *Cache) Dim(ns string) (int, error) {
	e, err := c.current(ns)
	if err != nil {
		return 0, err
	}
	defer e.mu.RUnlock()
	return e.set.Dim(), nil
}

// current returns ns's entry brought up to date and read-locked.
func (c *Cache) current(ns string) (*cached, error) {
	last, err := c.src.LastSeq()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e := c.sets[ns]
	if e == nil {
		e = &cached{}
		c.sets[ns] = e
	}
	c.clock++
	e.used = c.clock
	c.mu.Unlock()

	e.mu.Lock()
	if e.set == nil || e.seq < last {
		if err := c.refresh(ns, e, last); err != nil {
			e.set = nil // read it whole next time
			e.mu.Unlock()
			return nil, fmt.Errorf("vectors of namespace %q: %w", ns, err)
		}
	}
	e.mu.Unlock()
	e.mu.RLock()
	if e.set != nil {
		c.evict(ns, e.set.size())
	}
	return e, nil
}

// refresh brings e up to last: from the change log where e holds a set
// and few records changed, else by reading the namespace whole.
func (c *Cache) refresh(ns string, e *cached, last uint64) error {
	if e.set != nil {
		ok, err := c.catchUp(ns, e, last)
		if err != nil || ok {
			return err
		}
	}
	vs, err := c.src.Vectors(ns)
	if err != nil {
		return err
	}
	set, err := NewSet(vs)
	if err != nil {
		return err
	}
	e.set, e.seq = set, vs.Seq
	return nil
}

// catchUp applies the changes after e.seq up to last that touch ns,
// reading only the records they name; ok is false when there were too
// many (or the log no longer reaches back: etcd compacts it), and the
// caller reads the namespace whole.
func (c *Cache) catchUp(ns string, e *cached, last uint64) (ok bool, err error) {
	touched := map[string]bool{}
	seq, read := e.seq, 0
	for seq < last {
		chs, err := c.src.Changes(seq, 1024)
		if err != nil || len(chs) == 0 {
			return false, nil
		}
		for _, ch := range chs {
			if ch.NS == ns && (ch.Op == store.OpPut || ch.Op == store.OpDelete) {
				touched[ch.ID] = true
			}
			seq = ch.Seq
		}
		if read += len(chs); read > catchUpChanges || len(touched) > max(1024, e.set.Len()/4) {
			return false, nil
		}
	}
	if len(touched) > 0 {
		ids := make([]string, 0, len(touched))
		for id := range touched {
			ids = append(ids, id)
		}
		now, err := c.src.VectorsOf(ns, ids)
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			e.set.remove(id)
		}
		for _, v := range now {
			if err := e.set.put(v); err != nil {
				return false, err
			}
		}
	}
	e.seq = seq
	return true, nil
}

// evict lets go of the least recently searched namespaces, other than
// keep (the caller's, holding keepSize numbers), while the cache holds
// more than maxFloats numbers. A namespace being searched or refreshed
// (its lock held) is skipped.
func (c *Cache) evict(keep string, keepSize int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		total, oldest, oldestNS := keepSize, uint64(0), ""
		for ns, e := range c.sets {
			if ns == keep || !e.mu.TryLock() {
				continue
			}
			if e.set != nil {
				total += e.set.size()
				if ns != keep && (oldestNS == "" || e.used < oldest) {
					oldest, oldestNS = e.used, ns
				}
			}
			e.mu.Unlock()
		}
		if total <= c.maxFloats || oldestNS == "" {
			return
		}
		delete(c.sets, oldestNS)
	}
}
