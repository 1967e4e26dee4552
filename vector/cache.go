package vector

import (
	"os"
	"sync"

	"github.com/lorekeep/lore/internal/badvalue"
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

// StoreRef names the store a search reads, and how to read it. A Cache
// outlives the opens of a store (a server opens its store per request):
// what it keeps is the store's, whichever open reads it.
type StoreRef struct {
	Src Source
	// Key names the store in this process: its bbolt file's path, or its
	// etcd URL.
	Key string
	// File is the bbolt file as it is now (nil for etcd): a file replaced
	// at the same path (a restored backup) is another store.
	File os.FileInfo
}

// Cache keeps the Sets of the namespaces searched, each read once and
// then brought up to date from the store's change log before every
// search: a search sees every write acknowledged before it began, by
// this process or any other, and a namespace's vectors are read whole
// only the first time (or when more changed than re-reading costs, or
// the store is not the one they were read from). The least recently
// searched namespaces are let go past the cache's bound. A Cache is safe
// for concurrent use.
type Cache struct {
	maxFloats int

	mu    sync.Mutex
	sets  map[[2]string]*cached // by store key and namespace
	clock uint64
}

type cached struct {
	mu   sync.RWMutex // the set, seq and file; held for reading by searches
	set  *Set
	seq  uint64      // the change log is applied up to here
	file os.FileInfo // the store file the set was read from
	used uint64      // the cache's clock at the last search
}

// NewCache returns a cache that keeps at most maxFloats numbers (0:
// DefaultMaxFloats); a namespace larger than that alone is still
// searched, then let go.
func NewCache(maxFloats int) *Cache {
	if maxFloats <= 0 {
		maxFloats = DefaultMaxFloats
	}
	return &Cache{maxFloats: maxFloats, sets: map[[2]string]*cached{}}
}

// catchUpChanges bounds the change-log entries a catch-up reads before
// it re-reads the namespace whole instead.
const catchUpChanges = 16384

// Search returns the k records of ns whose vectors are nearest q (see
// Set.Search), as of every write acknowledged before the call.
func (c *Cache) Search(st StoreRef, ns string, q []float32, k int, f Filter) ([]Hit, error) {
	e, err := c.current(st, ns)
	if err != nil {
		return nil, err
	}
	defer e.mu.RUnlock()
	return e.set.Search(q, k, f)
}

// current returns ns's entry brought up to date and read-locked.
func (c *Cache) current(st StoreRef, ns string) (*cached, error) {
	last, err := st.Src.LastSeq()
	if err != nil {
		return nil, err
	}
	key := [2]string{st.Key, ns}
	c.mu.Lock()
	e := c.sets[key]
	if e == nil {
		e = &cached{}
		c.sets[key] = e
	}
	c.clock++
	e.used = c.clock
	c.mu.Unlock()

	e.mu.Lock()
	if e.set != nil && (e.seq > last || !sameFile(e.file, st.File)) {
		e.set = nil // another store at this path, or one rolled back: read it whole
	}
	if e.set == nil || e.seq < last {
		e.file = st.File
		if err := refresh(st.Src, ns, e, last); err != nil {
			e.set = nil // read it whole next time
			e.mu.Unlock()
			return nil, badvalue.Errorf(ns, "vectors of namespace %q: %w", ns, err)
		}
	}
	e.mu.Unlock()
	e.mu.RLock()
	if e.set != nil {
		c.evict(key, e.set.size())
	}
	return e, nil
}

// sameFile reports whether two stats name the same file (both nil: an
// etcd store, which has none).
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b)
}

// refresh brings e up to last: from the change log where e holds a set
// and few records changed, else by reading the namespace whole.
func refresh(src Source, ns string, e *cached, last uint64) error {
	if e.set != nil {
		ok, err := catchUp(src, ns, e, last)
		if err != nil || ok {
			return err
		}
	}
	vs, err := src.Vectors(ns)
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
func catchUp(src Source, ns string, e *cached, last uint64) (ok bool, err error) {
	touched := map[string]bool{}
	seq, read := e.seq, 0
	for seq < last {
		chs, err := src.Changes(seq, 1024)
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
		now, err := src.VectorsOf(ns, ids)
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
func (c *Cache) evict(keep [2]string, keepSize int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		total, oldest, found := keepSize, uint64(0), false
		var oldestKey [2]string
		for key, e := range c.sets {
			if key == keep || !e.mu.TryLock() {
				continue
			}
			if e.set != nil {
				total += e.set.size()
				if !found || e.used < oldest {
					oldest, oldestKey, found = e.used, key, true
				}
			}
			e.mu.Unlock()
		}
		if total <= c.maxFloats || !found {
			return
		}
		delete(c.sets, oldestKey)
	}
}
