package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing Check found wrong.
type Problem struct {
	What string `json:"what"` // a sentence saying what is wrong
	NS   string `json:"ns,omitempty"`
	ID   string `json:"id,omitempty"`
	// Severity is SeverityError or SeverityWarning; empty means an error.
	Severity string `json:"severity"`
}

// Problem severities. A warning is a state the model allows but a reader
// may want to know about: a link to a record that does not exist (yet).
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Warning reports whether p is only a warning.
func (p Problem) Warning() bool { return p.Severity == SeverityWarning }

// Check verifies the store and returns what is wrong, sorted by (NS, ID,
// What); none means healthy. It runs bbolt's own page check, then checks
// that every value decodes, every head has its body and no body lacks a
// head, both link directions agree, links point at existing records, the
// change log is gap-free and ends at the stored sequence number, and the
// cached token counts of every counter in Options.Counters match a
// recount. The error is for failures to run the check at all.
//
// On a writable store Check holds the write lock while it runs (bbolt's
// page check is only safe that way), so writers wait. On a read-only
// store it checks through a bbolt handle of its own (checkHandle).
func (s *Store) Check() (probs []Problem, err error) {
	err = guard(s.path, func() error {
		probs, err = s.check()
		return err
	})
	return probs, err
}

// check runs bbolt's page check and the kv layer's checks on bbolt
// (boltEngine.check), and the kv layer's on one snapshot of any other
// engine, which keeps its own pages.
func (s *Store) check() ([]Problem, error) {
	if b, ok := s.eng.(*boltEngine); ok {
		return b.check(s.opts.Counters)
	}
	var probs []Problem
	err := s.eng.View(func(tx KVTx) error {
		c := checker{tx: tx, counters: s.opts.Counters}
		c.all()
		probs = c.problems
		return nil
	})
	return probs, err
}

// all runs every check of the kv layer and sorts what it found.
func (c *checker) all() {
	c.heads()
	c.bodies()
	c.vectors()
	c.history()
	c.links()
	c.changes()
	c.index()
	slices.SortFunc(c.problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID), cmp.Compare(a.What, b.What))
	})
}

type checker struct {
	tx       KVTx
	counters []Counter
	problems []Problem
	digest   byte // of every byte touchAll read
}

// warn records a warning: a legal state worth reporting.
func (c *checker) warn(ns, id, format string, args ...any) {
	c.problems = append(c.problems, Problem{What: fmt.Sprintf(format, args...), NS: ns, ID: id, Severity: SeverityWarning})
}

func (c *checker) add(ns, id, format string, args ...any) {
	c.problems = append(c.problems, Problem{What: fmt.Sprintf(format, args...), NS: ns, ID: id, Severity: SeverityError})
}

// recordKey splits and validates a (ns, id) key, reporting a problem when
// it is malformed.
func (c *checker) recordKey(bucket string, k []byte, n int) ([]string, bool) {
	parts, err := splitKey(k, n)
	if err != nil {
		c.add("", "", "bucket %s: %v", bucket, err)
		return nil, false
	}
	if err := ValidNamespace(parts[0]); err != nil {
		c.add("", "", "bucket %s: key %q: %v", bucket, k, err)
		return nil, false
	}
	for _, p := range parts[1:] {
		if err := validName("key part", p, maxIDBytes); err != nil {
			c.add(parts[0], "", "bucket %s: key %q: %v", bucket, k, err)
			return nil, false
		}
	}
	return parts, true
}

func (c *checker) heads() {
	aliases := map[[2]string][]string{} // (ns, lower-cased alias) -> ids
	defer c.sharedAliases(aliases)
	bodies := c.tx.Bucket(bucketBodies)
	cur := c.tx.Bucket(bucketHeads).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		parts, ok := c.recordKey("heads", k, 2)
		if !ok {
			continue
		}
		ns, id := parts[0], parts[1]
		r, err := decodeHead(ns, id, v)
		if err != nil {
			c.add(ns, id, "head does not decode: %v", err)
			continue
		}
		for _, a := range r.Aliases {
			k := [2]string{ns, strings.ToLower(a)}
			if ids := aliases[k]; len(ids) == 0 || ids[len(ids)-1] != id {
				aliases[k] = append(ids, id)
			}
		}
		if r.Version < 1 {
			c.add(ns, id, "head has version %d; versions start at 1", r.Version)
		}
		b := bodies.Get(k)
		switch {
		case b == nil && r.BodyBytes != 0:
			c.add(ns, id, "head says the body has %d bytes but no body is stored", r.BodyBytes)
		case b != nil:
			body, err := decodeBody(b)
			if err != nil {
				c.add(ns, id, "body does not decode: %v", err)
				continue
			}
			if len(body) != r.BodyBytes {
				c.add(ns, id, "head says the body has %d bytes but the stored body has %d", r.BodyBytes, len(body))
			}
			r.Body = body
		}
		if err := withVector(c.tx, &r, r.hasVector); err != nil {
			c.add(ns, id, "vector: %v", err)
			continue
		}
		if r.SHA256 != contentHash(&r) {
			c.add(ns, id, "content digest %.12s does not match the content (%.12s)", r.SHA256, contentHash(&r))
		}
		for _, ctr := range c.counters {
			cached, ok := r.Tokens[ctr.Name()]
			if !ok {
				continue // not counted yet: a cache, filled lazily
			}
			if now := countWith(ctr, &r); now != cached {
				c.add(ns, id, "cached %s token counts %+v differ from a recount %+v", ctr.Name(), cached, now)
			}
		}
	}
}

// sharedAliases warns once for every alias two or more records of a
// namespace share, naming them all: a mention of it brings each of them
// into a packet, marked ambiguous, instead of the one the writer meant.
func (c *checker) sharedAliases(aliases map[[2]string][]string) {
	for k, ids := range aliases {
		if len(ids) > 1 {
			c.warn(k[0], ids[0], "alias %q is shared by %s: a mention of it brings in all of them, marked ambiguous (give each its own alias)",
				k[1], strings.Join(quoted(ids), " and "))
		}
	}
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func (c *checker) bodies() {
	heads := c.tx.Bucket(bucketHeads)
	cur := c.tx.Bucket(bucketBodies).Cursor()
	for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
		parts, ok := c.recordKey("bodies", k, 2)
		if ok && heads.Get(k) == nil {
			c.add(parts[0], parts[1], "a body is stored for a record that does not exist")
		}
	}
}

// vectors checks the vectors bucket against the heads (a vector kept for
// a record that does not exist, or whose head says it has none) and
// every namespace's dimension and count against its vectors.
func (c *checker) vectors() {
	b := c.tx.Bucket(bucketVectors)
	if b == nil {
		return // a store made before vectors, opened read-only
	}
	heads := c.tx.Bucket(bucketHeads)
	type tally struct{ dim, n int }
	seen := map[string]*tally{}
	cur := b.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		parts, ok := c.recordKey("vectors", k, 2)
		if !ok {
			continue
		}
		ns, id := parts[0], parts[1]
		h := heads.Get(k)
		if h == nil {
			c.add(ns, id, "a vector is stored for a record that does not exist")
			continue
		}
		if r, err := decodeHead(ns, id, h); err == nil && !r.hasVector {
			c.add(ns, id, "a vector is stored for a record whose head says it has none")
			continue
		}
		vec, err := decodeVector(ns, id, v)
		if err != nil {
			c.add(ns, id, "vector does not decode: %v", err)
			continue
		}
		t := seen[ns]
		if t == nil {
			t = &tally{dim: len(vec)}
			seen[ns] = t
		}
		if len(vec) != t.dim {
			c.add(ns, id, "vector of %d dimensions in a namespace whose vectors have %d", len(vec), t.dim)
		}
		t.n++
	}
	for ns, t := range seen {
		vd, err := readVecDim(c.tx, ns)
		switch {
		case err != nil:
			c.add(ns, "", "%v", err)
		case vd.dim != uint64(t.dim) || vd.count != uint64(t.n):
			c.add(ns, "", "the namespace's vector dimension and count read %d and %d, but its vectors are %d of %d dimensions", vd.dim, vd.count, t.n, t.dim)
		}
	}
}

func (c *checker) history() {
	heads := c.tx.Bucket(bucketHeads)
	cur := c.tx.Bucket(bucketHistory).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		i := bytes.LastIndexByte(k[:max(0, len(k)-8)], sep)
		if i < 0 || len(k)-i-1 != 8 {
			c.add("", "", "history key %q is not namespace, id and an 8-byte version", k)
			continue
		}
		parts, ok := c.recordKey("history", k[:i], 2)
		if !ok {
			continue
		}
		ns, id := parts[0], parts[1]
		version := binary.BigEndian.Uint64(k[i+1:])
		old, err := decodeVersion(ns, id, v)
		if err != nil {
			c.add(ns, id, "version %d in history does not decode: %v", version, err)
			continue
		}
		if uint64(old.Version) != version {
			c.add(ns, id, "history entry %d holds version %d", version, old.Version)
		}
		hb := heads.Get(k[:i])
		if hb == nil {
			c.add(ns, id, "version %d is kept in history but the record does not exist", version)
			continue
		}
		if cur, err := decodeHead(ns, id, hb); err == nil && uint64(cur.Version) <= version {
			c.add(ns, id, "version %d in history is not older than the current version %d", version, cur.Version)
		}
	}
}

func (c *checker) links() {
	heads, out, in := c.tx.Bucket(bucketHeads), c.tx.Bucket(bucketOut), c.tx.Bucket(bucketIn)
	cur := out.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		parts, ok := c.recordKey("links_out", k, 4)
		if !ok {
			continue
		}
		ns, from, rel, to := parts[0], parts[1], parts[2], parts[3]
		if _, err := decodeWeight(v); err != nil {
			c.add(ns, from, "link -%s-> %q does not decode: %v", rel, to, err)
		}
		back := in.Get(key(ns, to, rel, from))
		switch {
		case back == nil:
			c.add(ns, from, "link -%s-> %q is stored outgoing but not incoming", rel, to)
		case !bytes.Equal(back, v):
			c.add(ns, from, "link -%s-> %q has a different weight in its two directions", rel, to)
		}
		if heads.Get(key(ns, from)) == nil {
			c.warn(ns, from, "dangling link -%s-> %q: its source %q does not exist", rel, to, from)
		}
		if heads.Get(key(ns, to)) == nil {
			c.warn(ns, from, "dangling link -%s-> %q: its target %q does not exist", rel, to, to)
		}
	}
	cur = in.Cursor()
	for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
		parts, ok := c.recordKey("links_in", k, 4)
		if !ok {
			continue
		}
		ns, to, rel, from := parts[0], parts[1], parts[2], parts[3]
		if out.Get(key(ns, from, rel, to)) == nil {
			c.add(ns, from, "link -%s-> %q is stored incoming but not outgoing", rel, to)
		}
	}
}

func (c *checker) changes() {
	if cl, ok := c.tx.(ChangeLogTx); ok {
		// The engine keeps the log (etcd: the log key's history, whose
		// gaps are normal, revisions being shared): it checks it.
		if err := cl.CheckLog(); err != nil {
			c.add("", "", "%v", err)
		}
		return
	}
	want := lastSeqTx(c.tx)
	var prev uint64
	cur := c.tx.Bucket(bucketChanges).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		if len(k) != 8 {
			c.add("", "", "change-log key %x is not 8 bytes", k)
			continue
		}
		seq := binary.BigEndian.Uint64(k)
		if prev != 0 && seq != prev+1 {
			c.add("", "", "change log has a gap: %d is followed by %d", prev, seq)
		}
		if _, err := decodeChange(seq, v); err != nil {
			c.add("", "", "change %d does not decode: %v", seq, err)
		}
		prev = seq
	}
	if prev != want {
		c.add("", "", "change log ends at %d but the store's sequence number is %d", prev, want)
	}
}

// Backup writes a consistent copy of the whole bbolt file to w, while
// other goroutines keep reading and writing. It returns the bytes written.
// An etcd store refuses: the cluster's own snapshot backs it up.
func (s *Store) Backup(w io.Writer) (int64, error) { return s.eng.Backup(w) }
