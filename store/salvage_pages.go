package store

import (
	"encoding/binary"
	"slices"
)

// Salvage by pages. The tree walk reaches only the pages its meta page's
// root leads to. When a meta page is damaged the walk starts from the
// other, which may be older: the records written after it sit on pages
// no root leads to any more. And a page lost in the walk hides the pages
// under it. Then salvage also reads every leaf page the walk did not
// reach and takes each record found there whose head and body decode and
// whose content hash matches the head's: the newest such version of each
// record, unless the change log's last word on it is a delete. A leaf page
// does not say which bucket it belongs to; a record's head and body are
// told apart by decoding, and its hash proves the pair. Links cannot be
// taken so: an outgoing and an incoming link key look alike, and the page
// does not say which direction it files.

// pageElem is one key and value of a leaf page.
type pageElem struct{ k, v []byte }

// unwalkedLeaves returns the elements of every leaf page of the file
// that the tree walk did not read.
func (f *rawFile) unwalkedLeaves() []pageElem {
	var out []pageElem
	le := binary.LittleEndian
	for id := uint64(2); (id+1)*uint64(f.ps) <= uint64(len(f.data)); id++ {
		if f.seen[id] {
			continue
		}
		p, ok := f.page(id, flagLeaf)
		if !ok {
			continue
		}
		count := int(le.Uint16(p[10:]))
		for i := range count {
			e := pageHeaderSize + i*elemSize
			if e+elemSize > len(p) {
				break
			}
			fl, pos, ks, vs := le.Uint32(p[e:]), int(le.Uint32(p[e+4:])), int(le.Uint32(p[e+8:])), int(le.Uint32(p[e+12:]))
			start := e + pos
			if fl&bucketLeaf != 0 || pos < 0 || ks < 0 || vs < 0 || start+ks+vs > len(p) || start+ks+vs < start {
				continue
			}
			out = append(out, pageElem{k: p[start : start+ks], v: p[start+ks : start+ks+vs]})
		}
	}
	return out
}

// recordsFromPages adds to recs (the records the walk found, by key) the
// records on the pages the walk did not reach: for each key, the version
// of highest number whose body decodes and whose content hash matches
// its head, where it is newer than the walk's, and unless the change log
// (walked and scanned) ends with its delete, which also takes out a
// record the walk found. A body whose head is lost is taken alone
// (HeadlessKind). It returns how many it took, how many of those from a
// body alone, and how many records the change log says were last put
// that are still missing.
func recordsFromPages(elems []pageElem, walked map[string]map[string][]byte, recs map[string]Record) (taken, headless, missing int) {
	heads := map[string][]Record{}
	bodies := map[string][]string{}
	lastOp := map[string]struct {
		seq uint64
		op  Op
	}{}
	noteChange := func(k, v []byte) {
		if len(k) != 8 {
			return
		}
		seq := binary.BigEndian.Uint64(k)
		c, err := decodeChange(seq, v)
		if err != nil || (c.Op != OpPut && c.Op != OpDelete) {
			return
		}
		rk := string(key(c.NS, c.ID))
		if l, ok := lastOp[rk]; !ok || seq > l.seq {
			lastOp[rk] = struct {
				seq uint64
				op  Op
			}{seq, c.Op}
		}
	}
	for k, v := range walked[string(bucketChanges)] {
		noteChange([]byte(k), v)
	}
	for k, v := range walked[string(bucketBodies)] {
		if b, err := decodeBody(v); err == nil {
			bodies[k] = append(bodies[k], b)
		}
	}
	for _, e := range elems {
		noteChange(e.k, e.v)
		parts, err := splitKey(e.k, 2)
		if err != nil {
			continue
		}
		k := string(e.k)
		if r, err := decodeHead(parts[0], parts[1], e.v); err == nil {
			heads[k] = append(heads[k], r)
		} else if b, err := decodeBody(e.v); err == nil {
			bodies[k] = append(bodies[k], b)
		}
	}
	for k, hs := range heads {
		if l, ok := lastOp[k]; ok && l.op == OpDelete {
			continue
		}
		best, found := Record{}, false
		for _, h := range hs {
			if found && h.Version <= best.Version {
				continue
			}
			if r, ok := withBody(h, bodies[k]); ok {
				best, found = r, true
			}
		}
		if !found {
			continue
		}
		if w, ok := recs[k]; ok && w.Version >= best.Version {
			continue
		}
		recs[k] = best
		taken++
	}
	// A body whose head is on no page readable is still the record's
	// text: copied under kind "salvaged", titled by its id, when its
	// pages hold one text for it (older texts linger on freed pages).
	for k, bs := range bodies {
		if _, ok := recs[k]; ok || len(heads[k]) > 0 {
			continue
		}
		if l, ok := lastOp[k]; ok && l.op == OpDelete {
			continue
		}
		parts, err := splitKey([]byte(k), 2)
		if err != nil || slices.ContainsFunc(bs, func(b string) bool { return b != bs[0] }) {
			continue
		}
		recs[k] = Record{NS: parts[0], ID: parts[1], Kind: HeadlessKind, Title: parts[1], Body: bs[0]}
		taken++
		headless++
	}
	for k, l := range lastOp {
		_, ok := recs[k]
		switch {
		case ok && l.op == OpDelete:
			// Deleted after the state the walk read (its meta page
			// was the older one).
			delete(recs, k)
		case !ok && l.op == OpPut:
			missing++
		}
	}
	return taken, headless, missing
}

// HeadlessKind is the kind of a record salvage copies from its body
// alone, its head (kind, title, tags, meta) lost.
const HeadlessKind = "salvaged"

// withBody is head h with the body among candidates that makes its
// content hash match, and false when none does.
func withBody(h Record, candidates []string) (Record, bool) {
	if h.BodyBytes == 0 {
		candidates = []string{""}
	}
	for _, b := range candidates {
		if len(b) != h.BodyBytes {
			continue
		}
		r := h
		r.Body = b
		if contentHash(&r) == h.SHA256 {
			return r, true
		}
	}
	return Record{}, false
}
