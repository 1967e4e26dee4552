package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// ListOptions select the records List returns.
type ListOptions struct {
	NS    string // required
	Kind  string // only this kind, when set
	Tag   string // only records with this tag, when set
	After string // paging cursor: start after this id (the next of the previous page)
	Limit int    // at most this many; 0 means no limit
	// Pinned, when set, keeps only pinned records. Like Kind, it is read
	// without decoding the other heads.
	Pinned bool
	// Named, when set, keeps only the records that go by a name: those
	// with aliases or keys, and those of NamedKinds (kinds whose titles
	// are names). It is what a packet's mention scan reads, and like Kind
	// it skips the other heads without decoding them.
	Named      bool
	NamedKinds []string
}

// List returns the heads (no bodies) of one namespace's records, sorted
// by id. next is the cursor for the following page (pass it as After),
// or "" when there is none.
func (s *Store) List(opts ListOptions) (heads []Record, next string, err error) {
	if err := ValidNamespace(opts.NS); err != nil {
		return nil, "", err
	}
	if opts.Limit < 0 {
		return nil, "", fmt.Errorf("%w: limit %d is negative; want 0 (no limit) or more", ErrInvalid, opts.Limit)
	}
	if opts.After != "" {
		if err := ValidID(opts.After); err != nil {
			return nil, "", err
		}
	}
	err = s.view(func(tx KVTx) error {
		if hs, nx, ok, err := listIndexed(tx, opts); ok {
			heads, next = hs, nx
			return err
		}
		pre := prefix(opts.NS)
		c := tx.Bucket(bucketHeads).Cursor()
		start := pre
		if opts.After != "" {
			start = key(opts.NS, opts.After)
		}
		k, v := c.Seek(start)
		if opts.After != "" && bytes.Equal(k, start) {
			k, v = c.Next()
		}
		for ; k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			// Listing by kind skips other kinds without decoding them:
			// packets list a few rare kinds (obligations, timeline) of a
			// whole namespace on every build.
			if opts.Kind != "" {
				if kind, ok := headKind(v); ok && string(kind) != opts.Kind {
					continue
				}
			}
			if opts.Pinned {
				if p, ok := peekHead(v); ok && !p.pinned {
					continue
				}
			}
			if opts.Named && !namedHead(v, opts.NamedKinds) {
				continue
			}
			id := string(k[len(pre):])
			r, err := decodeHead(opts.NS, id, v)
			if err != nil {
				return err
			}
			if opts.Kind != "" && r.Kind != opts.Kind || opts.Tag != "" && !slices.Contains(r.Tags, opts.Tag) || opts.Pinned && !r.Pinned {
				continue
			}
			if opts.Limit > 0 && len(heads) == opts.Limit {
				next = heads[len(heads)-1].ID
				return nil
			}
			heads = append(heads, r)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return heads, next, nil
}

// Namespaces returns every namespace that holds a record or a link, sorted.
func (s *Store) Namespaces() ([]string, error) {
	seen := map[string]bool{}
	err := s.view(func(tx KVTx) error {
		for _, name := range [][]byte{bucketHeads, bucketOut} {
			c := tx.Bucket(name).Cursor()
			for k, _ := c.First(); k != nil; {
				i := bytes.IndexByte(k, sep)
				if i < 0 {
					return fmt.Errorf("%w: key %q in bucket %s has no namespace", ErrCorrupt, k, name)
				}
				seen[string(k[:i])] = true
				// Jump past every key of this namespace: sep+1 sorts after them all.
				k, _ = c.Seek(append(slices.Clone(k[:i]), sep+1))
			}
		}
		return nil
	})
	return sortedKeys(seen), err
}

// ForEach calls fn on every record of ns (every namespace when ns is ""),
// with bodies, sorted by (ns, id). It reads in batches and calls fn
// outside any transaction, so fn may use the store, and writes made
// meanwhile may or may not be seen. An error from fn stops the walk and
// is returned.
func (s *Store) ForEach(ns string, fn func(Record) error) error {
	pre, err := nsPrefix(ns)
	if err != nil {
		return err
	}
	return walkBatches(s, bucketHeads, pre, 256, 16<<20, func(tx KVTx, k, v []byte) (Record, int, error) {
		parts, err := splitKey(k, 2)
		if err != nil {
			return Record{}, 0, err
		}
		r, err := decodeHead(parts[0], parts[1], v)
		if err != nil {
			return Record{}, 0, err
		}
		if r.Body, err = bodyTx(tx, r.NS, r.ID); err != nil {
			return Record{}, 0, err
		}
		if err := withVector(tx, &r, r.hasVector); err != nil {
			return Record{}, 0, err
		}
		return r, len(r.Body) + 4*len(r.Vector), nil
	}, fn)
}

// ForEachLink calls fn on every link of ns (every namespace when ns is
// ""), sorted by (ns, from, rel, to), in batches like ForEach.
func (s *Store) ForEachLink(ns string, fn func(Link) error) error {
	pre, err := nsPrefix(ns)
	if err != nil {
		return err
	}
	return walkBatches(s, bucketOut, pre, 4096, 0, func(_ KVTx, k, v []byte) (Link, int, error) {
		l, err := decodeLink(k, v)
		return l, 0, err
	}, fn)
}

// nsPrefix is the key prefix of namespace ns, or none for "" (all).
func nsPrefix(ns string) ([]byte, error) {
	if ns == "" {
		return nil, nil
	}
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	return prefix(ns), nil
}

// walkBatches reads the entries of bucket under pre in key order, a batch
// per read transaction (at most maxBatch entries and, when maxBytes > 0,
// about maxBytes of decoded size), and calls fn on each outside any
// transaction, so fn may use the store. Each batch resumes after the last
// key of the one before.
func walkBatches[T any](s *Store, bucket, pre []byte, maxBatch, maxBytes int,
	decode func(tx KVTx, k, v []byte) (T, int, error), fn func(T) error) error {
	var last []byte
	for {
		var batch []T
		err := s.view(func(tx KVTx) error {
			c := tx.Bucket(bucket).Cursor()
			var k, v []byte
			if last == nil {
				k, v = c.Seek(pre)
			} else if k, v = c.Seek(last); bytes.Equal(k, last) {
				k, v = c.Next()
			}
			size := 0
			for ; k != nil && bytes.HasPrefix(k, pre) && len(batch) < maxBatch && (maxBytes <= 0 || size < maxBytes); k, v = c.Next() {
				item, n, err := decode(tx, k, v)
				if err != nil {
					return err
				}
				size += n
				batch = append(batch, item)
				last = slices.Clone(k)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		for _, item := range batch {
			if err := fn(item); err != nil {
				return err
			}
		}
	}
}

// decodeLink decodes an entry of the links_out bucket.
func decodeLink(k, v []byte) (Link, error) {
	parts, err := splitKey(k, 4)
	if err != nil {
		return Link{}, err
	}
	w, made, err := decodeLinkValue(v)
	if err != nil {
		return Link{}, err
	}
	return Link{NS: parts[0], From: parts[1], Rel: parts[2], To: parts[3], Weight: w, Made: made}, nil
}

// Changes returns change-log entries with a sequence number above after,
// oldest first, at most limit of them (0 means all).
func (s *Store) Changes(after uint64, limit int) ([]Change, error) {
	if limit < 0 {
		return nil, fmt.Errorf("%w: limit %d is negative; want 0 (all) or more", ErrInvalid, limit)
	}
	return s.eng.Changes(after, limit)
}

// LastSeq returns the sequence number of the newest change (0 for a new
// store).
func (s *Store) LastSeq() (uint64, error) {
	var seq uint64
	err := s.view(func(tx KVTx) error {
		seq = lastSeqTx(tx)
		return nil
	})
	return seq, err
}

func lastSeqTx(tx KVTx) uint64 {
	if cl, ok := tx.(ChangeLogTx); ok {
		return cl.LastSeq()
	}
	if b := tx.Bucket(bucketMeta).Get(keySeq); len(b) == 8 {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// Stats counts what a store (or one namespace of it) holds.
type Stats struct {
	Records    int            `json:"records"`
	Links      int            `json:"links"`
	Versions   int            `json:"versions"`   // previous versions kept in history
	Namespaces map[string]int `json:"namespaces"` // records per namespace
	Kinds      map[string]int `json:"kinds"`      // records per kind ("" for none)
	LastSeq    uint64         `json:"last_seq"`
	// FileBytes is the bbolt file's size, or the etcd member's database
	// size (the whole cluster's keys, not only this store's prefix).
	FileBytes int64 `json:"file_bytes"`
}

// Stats counts records, links, kept versions and kinds of ns, or of the
// whole store when ns is "".
func (s *Store) Stats(ns string) (Stats, error) {
	var pre []byte
	if ns != "" {
		if err := ValidNamespace(ns); err != nil {
			return Stats{}, err
		}
		pre = prefix(ns)
	}
	st := Stats{Namespaces: map[string]int{}, Kinds: map[string]int{}}
	err := s.view(func(tx KVTx) error {
		c := tx.Bucket(bucketHeads).Cursor()
		for k, v := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			parts, err := splitKey(k, 2)
			if err != nil {
				return err
			}
			r, err := decodeHead(parts[0], parts[1], v)
			if err != nil {
				return err
			}
			st.Records++
			st.Namespaces[r.NS]++
			st.Kinds[r.Kind]++
		}
		st.Links = countPrefix(tx.Bucket(bucketOut), pre)
		st.Versions = countPrefix(tx.Bucket(bucketHistory), pre)
		st.LastSeq = lastSeqTx(tx)
		if bt, ok := tx.(boltTx); ok {
			st.FileBytes = bt.Size() // the file as this snapshot sees it
		}
		return nil
	})
	if _, ok := s.eng.(*boltEngine); !ok && err == nil {
		st.FileBytes, err = s.eng.Size()
	}
	return st, err
}

func countPrefix(b KVBucket, pre []byte) int {
	if bb, ok := b.(boltBucket); ok && len(pre) == 0 {
		return bb.Stats().KeyN
	}
	n := 0
	c := b.Cursor()
	for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
		n++
	}
	return n
}

// headKind returns the kind of an encoded head (the first field after the
// format byte) without decoding the rest. ok is false when v is not a
// well-formed head start; decodeHead then reports the corruption.
func headKind(v []byte) (kind []byte, ok bool) {
	if len(v) == 0 || (v[0] != formatV1 && v[0] != formatV2) {
		return nil, false
	}
	n, w := binary.Uvarint(v[1:])
	if w <= 0 || n > uint64(len(v)-1-w) {
		return nil, false
	}
	return v[1+w : 1+w+int(n)], true
}

// namedHead reports whether an encoded head has aliases or keys (only
// such heads are written in formatV2) or a kind among kinds. A head that
// is not well formed counts as named, so that decodeHead reports it.
func namedHead(v []byte, kinds []string) bool {
	if len(v) > 0 && v[0] == formatV2 {
		return true
	}
	kind, ok := headKind(v)
	if !ok {
		return true
	}
	for _, k := range kinds {
		if string(kind) == k {
			return true
		}
	}
	return false
}

// headPeek is what peekHead reads of an encoded head.
type headPeek struct {
	pinned  bool
	order   int64
	updated int64 // UnixNano; 0 for the zero time
}

// peekHead reads the pinned flag and the update time of an encoded head,
// skipping the fields before them without allocating. ok is false when v
// is not well formed; decodeHead then reports the corruption.
func peekHead(v []byte) (p headPeek, ok bool) {
	if len(v) == 0 || (v[0] != formatV1 && v[0] != formatV2) {
		return p, false
	}
	b := v[1:]
	uv := func() (uint64, bool) {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return x, true
	}
	skipStr := func() bool {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return false
		}
		b = b[n:]
		return true
	}
	for range 3 { // kind, title, summary
		if !skipStr() {
			return p, false
		}
	}
	tags, ok := uv()
	if !ok || tags > uint64(len(b)) {
		return p, false
	}
	for range tags {
		if !skipStr() {
			return p, false
		}
	}
	meta, ok := uv()
	if !ok || meta > uint64(len(b)) {
		return p, false
	}
	for range 2 * meta {
		if !skipStr() {
			return p, false
		}
	}
	sv := func() (int64, bool) {
		x, n := binary.Varint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return x, true
	}
	if p.order, ok = sv(); !ok {
		return p, false
	}
	if len(b) == 0 {
		return p, false
	}
	p.pinned = b[0]&flagPinned != 0
	b = b[1:]
	if _, ok := sv(); !ok { // created
		return p, false
	}
	p.updated, ok = sv()
	return p, ok
}

// Recent returns the heads of the n most recently updated records of ns,
// newest first; equal times (an import writes them all at once) go by
// order, the latest position first, then by id. It reads only the update time of the
// heads it passes over, so it costs a walk over the namespace's keys, not
// a decode of every record.
func (s *Store) Recent(ns string, n int) ([]Record, error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: recent count %d is negative; want 0 or more", ErrInvalid, n)
	}
	if n == 0 {
		return nil, nil
	}
	type entry struct {
		updated, order int64
		id             string
		v              []byte
	}
	// newer orders entries newest first, then latest in order, then by id.
	newer := func(a, b entry) int {
		if c := cmp.Compare(b.updated, a.updated); c != 0 {
			return c
		}
		if c := cmp.Compare(b.order, a.order); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	}
	var out []Record
	err := s.view(func(tx KVTx) error {
		if hs, ok, err := recentIndexed(tx, ns, n); ok {
			out = hs
			return err
		}
		pre := prefix(ns)
		top := make([]entry, 0, n+1) // sorted by newer; at most n kept
		c := tx.Bucket(bucketHeads).Cursor()
		for k, v := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			p, ok := peekHead(v)
			if !ok {
				_, err := decodeHead(ns, string(k[len(pre):]), v)
				if err == nil {
					err = fmt.Errorf("%w: head of %q in namespace %q", ErrCorrupt, k[len(pre):], ns)
				}
				return err
			}
			e := entry{updated: p.updated, order: p.order, id: string(k[len(pre):]), v: v}
			if len(top) == n && newer(e, top[n-1]) > 0 {
				continue
			}
			i, _ := slices.BinarySearchFunc(top, e, newer)
			top = slices.Insert(top, i, e)
			if len(top) > n {
				top = top[:n]
			}
		}
		out = make([]Record, 0, len(top))
		for _, e := range top {
			r, err := decodeHead(ns, e.id, e.v)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
