package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

func notFound(ns, id string) error {
	return valuef(id, "record %q in namespace %q: %w", id, ns, ErrNotFound)
}

func validKey(ns, id string) error {
	if err := ValidNamespace(ns); err != nil {
		return err
	}
	return ValidID(id)
}

// headTx reads the head of (ns, id); ok is false when it does not exist.
func headTx(tx KVTx, ns, id string) (r Record, ok bool, err error) {
	b := tx.Bucket(bucketHeads).Get(key(ns, id))
	if b == nil {
		return Record{}, false, nil
	}
	r, err = decodeHead(ns, id, b)
	return r, err == nil, err
}

// bodyTx reads the body of (ns, id); a record without body has none.
func bodyTx(tx KVTx, ns, id string) (string, error) {
	return bodyOf(ns, id, tx.Bucket(bucketBodies).Get(key(ns, id)))
}

// bodyOf decodes the body value b of (ns, id); nil is no body.
func bodyOf(ns, id string, b []byte) (string, error) {
	if b == nil {
		return "", nil
	}
	body, err := decodeBody(b)
	if err != nil {
		return "", valuef(id, "record %q in namespace %q: %w", id, ns, err)
	}
	return body, nil
}

// Get returns the current version of a record with its body.
func (s *Store) Get(ns, id string) (Record, error) { return s.get(ns, id, true) }

// Head returns a record without its body (BodyBytes says how long it is):
// what ranking and fitting need, without reading bodies.
func (s *Store) Head(ns, id string) (Record, error) { return s.get(ns, id, false) }

// get reads the current head of (ns, id) and, if withBody, its body, in
// one read transaction.
func (s *Store) get(ns, id string, withBody bool) (Record, error) {
	if err := validKey(ns, id); err != nil {
		return Record{}, err
	}
	var r Record
	err := s.view(func(tx KVTx) error {
		var ok bool
		var err error
		if r, ok, err = headTx(tx, ns, id); err != nil {
			return err
		} else if !ok {
			return notFound(ns, id)
		}
		if withBody {
			if r.Body, err = bodyTx(tx, ns, id); err != nil {
				return err
			}
			err = withVector(tx, &r, r.hasVector)
		}
		return err
	})
	return r, err
}

// Heads returns the heads of the given records in the order asked; ids
// that do not exist are skipped.
func (s *Store) Heads(ns string, ids []string) ([]Record, error) { return s.heads(ns, ids, true) }

// HeadsShared is Heads for a caller that only reads what it gets: the
// records may share their slices and maps with the heads the store keeps
// (readcache.go), so changing one would change what later reads return.
// A packet reads hundreds of heads and changes none; copying them out
// was half of what reading a kept head cost.
func (s *Store) HeadsShared(ns string, ids []string) ([]Record, error) {
	return s.heads(ns, ids, false)
}

// heads is Heads, with copies of kept heads where copies is set.
func (s *Store) heads(ns string, ids []string, copies bool) ([]Record, error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := ValidID(id); err != nil {
			return nil, err
		}
	}
	g, useKept := s.rc.begin()
	if !useKept {
		return s.readHeads(ns, ids)
	}
	out := make([]Record, len(ids))
	found := make([]bool, len(ids))
	miss := s.rc.keptHeads(g, ns, ids, copies, out, found)
	read, err := s.readHeads(ns, miss)
	if err != nil {
		return nil, err
	}
	if !s.rc.still(g) {
		if len(miss) == len(ids) {
			return read, nil
		}
		// A write ran: what was kept may be older than the read.
		return s.readHeads(ns, ids)
	}
	s.rc.keepHeads(g, read, copies)
	n := 0
	for i, id := range ids {
		switch {
		case found[i]:
			out[n] = out[i]
			n++
		case len(read) > 0 && read[0].ID == id:
			out[n] = read[0]
			read = read[1:]
			n++
		}
	}
	clear(out[n:])
	return out[:n], nil
}

// readHeads reads the heads of ids in one read transaction, in the order
// of ids; ids with no record are left out.
func (s *Store) readHeads(ns string, ids []string) ([]Record, error) {
	out := make([]Record, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := s.view(func(tx KVTx) error {
		prefetch(tx, ns, ids, bucketHeads)
		get := getter(tx.Bucket(bucketHeads))
		in := interner{}
		var k []byte
		for _, id := range ids {
			k = appendKey(k[:0], ns, id)
			b := get(k)
			if b == nil {
				continue
			}
			r, err := decodeHeadWith(ns, id, b, in)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// Bodies returns the bodies of the given records, by id; ids that do not
// exist are left out, records without body map to "".
func (s *Store) Bodies(ns string, ids []string) (map[string]string, error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := ValidID(id); err != nil {
			return nil, err
		}
	}
	out := make(map[string]string, len(ids))
	err := s.view(func(tx KVTx) error {
		prefetch(tx, ns, ids, bucketHeads, bucketBodies)
		head, body := getter(tx.Bucket(bucketHeads)), getter(tx.Bucket(bucketBodies))
		var k []byte
		for _, id := range ids {
			k = appendKey(k[:0], ns, id)
			if head(k) == nil {
				continue
			}
			text, err := bodyOf(ns, id, body(k))
			if err != nil {
				return err
			}
			out[id] = text
		}
		return nil
	})
	return out, err
}

// GetVersion returns one version of a record, current or kept in history.
func (s *Store) GetVersion(ns, id string, version int) (Record, error) {
	if err := validKey(ns, id); err != nil {
		return Record{}, err
	}
	if version < 1 {
		return Record{}, fmt.Errorf("%w: version %d; versions start at 1", ErrInvalid, version)
	}
	var r Record
	err := s.view(func(tx KVTx) error {
		cur, ok, err := headTx(tx, ns, id)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ns, id)
		}
		if cur.Version == version {
			r = cur
			if r.Body, err = bodyTx(tx, ns, id); err != nil {
				return err
			}
			return withVector(tx, &r, r.hasVector)
		}
		b := tx.Bucket(bucketHistory).Get(append(prefix(ns, id), u64(uint64(version))...))
		if b == nil {
			kept := versionsTx(tx, ns, id)
			return valuef(id, "version %d of record %q in namespace %q (current %d, kept in history: %v): %w",
				version, id, ns, cur.Version, kept, ErrNotFound)
		}
		r, err = decodeVersion(ns, id, b)
		return err
	})
	return r, err
}

// versionsTx lists the version numbers kept in history for (ns, id).
func versionsTx(tx KVTx, ns, id string) []uint64 {
	pre := prefix(ns, id)
	vs := []uint64{}
	c := tx.Bucket(bucketHistory).Cursor()
	for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
		if len(k) == len(pre)+8 {
			vs = append(vs, binary.BigEndian.Uint64(k[len(pre):]))
		}
	}
	return vs
}

// History returns every kept version of a record with bodies, oldest
// first, the current version last.
func (s *Store) History(ns, id string) ([]Record, error) {
	if err := validKey(ns, id); err != nil {
		return nil, err
	}
	var out []Record
	err := s.view(func(tx KVTx) error {
		cur, ok, err := headTx(tx, ns, id)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ns, id)
		}
		pre := prefix(ns, id)
		c := tx.Bucket(bucketHistory).Cursor()
		for k, v := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			r, err := decodeVersion(ns, id, v)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		if cur.Body, err = bodyTx(tx, ns, id); err != nil {
			return err
		}
		if err := withVector(tx, &cur, cur.hasVector); err != nil {
			return err
		}
		out = append(out, cur)
		return nil
	})
	return out, err
}

// Delete removes a record, its body and its history. With cascade it also
// removes every link from or to it, in both directions; without, its
// links stay (Check reports them as dangling).
func (s *Store) Delete(ns, id string, cascade bool) error {
	if err := validKey(ns, id); err != nil {
		return err
	}
	return s.update(func(tx KVTx) error {
		k := key(ns, id)
		heads := tx.Bucket(bucketHeads)
		v := heads.Get(k)
		if v == nil {
			return notFound(ns, id)
		}
		old, err := decodeHead(ns, id, v)
		if err != nil {
			return err
		}
		if err := heads.Delete(k); err != nil {
			return err
		}
		if err := reindex(tx, &old, nil); err != nil {
			return err
		}
		if err := tx.Bucket(bucketBodies).Delete(k); err != nil {
			return err
		}
		if err := deleteVectorTx(tx, ns, id, old.hasVector); err != nil {
			return err
		}
		if err := deletePrefix(tx.Bucket(bucketHistory), prefix(ns, id)); err != nil {
			return err
		}
		if _, err := appendChange(tx, OpDelete, ns, id); err != nil {
			return err
		}
		if !cascade {
			return nil
		}
		links, err := linksTx(tx, ns, id, Both)
		if err != nil {
			return err
		}
		for _, l := range links {
			if _, err := unlinkTx(tx, l.NS, l.From, l.Rel, l.To); err != nil {
				return err
			}
		}
		return nil
	})
}

// deletePrefix deletes every key of b that starts with pre. Keys are
// collected first: deleting under a live cursor skips keys.
func deletePrefix(b KVBucket, pre []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
		keys = append(keys, slices.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// SetTokens caches a token count for a record under another counter
// (one not in Options.Counters, counted lazily by a caller). It changes
// no content: no version bump, no change-log entry.
func (s *Store) SetTokens(ns, id, counter string, tc TokenCount) error {
	if err := validKey(ns, id); err != nil {
		return err
	}
	if err := validName("counter name", counter, maxKindBytes); err != nil {
		return err
	}
	if tc.Title < 0 || tc.Body < 0 || tc.Summary < 0 {
		return fmt.Errorf("%w: token count %+v is negative", ErrInvalid, tc)
	}
	return s.update(func(tx KVTx) error {
		r, ok, err := headTx(tx, ns, id)
		if err != nil {
			return err
		}
		if !ok {
			return notFound(ns, id)
		}
		if r.Tokens == nil {
			r.Tokens = map[string]TokenCount{}
		}
		r.Tokens[counter] = tc
		return tx.Bucket(bucketHeads).Put(key(ns, id), encodeHead(&r))
	})
}

// ReadsConcurrently reports that the store's reads may run on several
// goroutines at once (each in its own read transaction), so a packet may
// read ahead beside its own reads.
func (s *Store) ReadsConcurrently() bool { return true }
