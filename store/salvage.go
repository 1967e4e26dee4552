package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// SalvageReport says what Salvage got back from a damaged file.
type SalvageReport struct {
	Records     int `json:"records"`      // records written to the new store
	Links       int `json:"links"`        // links written to the new store
	LostPages   int `json:"lost_pages"`   // pages that could not be read (missing, or not what their parent says)
	LostRecords int `json:"lost_records"` // heads whose body or decoding was lost, plus records the change log names that were not found
	BadValues   int `json:"bad_values"`   // keys or values that did not decode
	// FromPages counts the records taken from pages the tree walk did
	// not reach (a meta page was damaged, or pages were lost).
	FromPages int `json:"from_pages"`
	// Headless counts those of them copied from their body alone, their
	// head lost: kind HeadlessKind, titled by their id.
	Headless int `json:"headless"`
	// LostUnknown is set when such pages were read: LostRecords then
	// counts only the records the change log names and no page held,
	// and the log itself may have been on a lost page.
	LostUnknown bool `json:"lost_unknown"`
}

// Salvage reads what it can of the (damaged) bbolt file src, without
// bbolt and without trusting any page, and writes every record and link
// it can still decode into a new store at dst, which must not exist. It
// walks the B+tree from the better meta page, skips every page that is
// past the end of the file or is not what its parent says, and counts
// what it lost. Records start afresh in the new store (version 1, the
// salvage's time), as with an import; earlier versions are not kept.
func Salvage(src, dst string, opts *Options) (SalvageReport, error) {
	var rep SalvageReport
	if _, err := os.Stat(dst); err == nil {
		return rep, fmt.Errorf("salvage into %s: it already exists; name a new file: %w", dst, ErrInvalid)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return rep, fmt.Errorf("salvage %s: %w", src, err)
	}
	f, err := newRawFile(src, data)
	if err != nil {
		return rep, err
	}
	buckets := f.buckets()
	rep.LostPages = f.lost
	recs, lost, bad := salvageRecords(buckets)
	if f.badMeta || f.lost > 0 {
		// The walk missed pages: read the rest (salvage_pages.go).
		byKey := make(map[string]Record, len(recs))
		for _, r := range recs {
			byKey[string(key(r.NS, r.ID))] = r
		}
		taken, headless, missing := recordsFromPages(f.unwalkedLeaves(), buckets, byKey)
		if taken > 0 || len(byKey) != len(recs) {
			recs = recs[:0]
			for _, r := range byKey {
				recs = append(recs, r)
			}
			slices.SortFunc(recs, func(a, b Record) int { return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID)) })
		}
		rep.FromPages, rep.Headless, lost, rep.LostUnknown = taken, headless, missing, true
	}
	for i := range recs {
		recs[i].Version = 0 // the new store numbers its own
	}
	links, lbad := salvageLinks(buckets)
	rep.LostRecords, rep.BadValues = lost, bad+lbad
	if o := opts; o != nil && o.ReadOnly {
		return rep, fmt.Errorf("salvage into %s: %w", dst, ErrReadOnly)
	}
	out, err := Open(dst, opts)
	if err != nil {
		return rep, err
	}
	defer out.Close()
	if _, err := out.PutMany(recs, links); err != nil {
		return rep, fmt.Errorf("salvage into %s: %w", dst, err)
	}
	rep.Records, rep.Links = len(recs), len(links)
	return rep, out.Close()
}

// rawFile reads bbolt pages straight from the file's bytes.
type rawFile struct {
	data []byte
	ps   int
	root uint64
	lost int
	seen map[uint64]bool
	// badMeta is set when a meta page is damaged: the walk starts from
	// the other, which may be older than the last write.
	badMeta bool
}

func newRawFile(path string, data []byte) (*rawFile, error) {
	var best *boltMeta
	for _, off := range []int{0, 4096, 512, 1024, 2048, 8192, 16384, 32768, 65536} {
		if off+pageHeaderSize+metaSize > len(data) {
			continue
		}
		m, err := parseMeta(data[off:])
		if err != nil || (off != 0 && int(m.pageSize) != off) {
			continue
		}
		if best == nil || m.txid > best.txid {
			best = &m
		}
	}
	if best == nil {
		return nil, &DamageError{Path: path, What: "has no valid meta page: there is nothing to salvage"}
	}
	// Both meta pages of a healthy file are valid, the second a page in.
	_, err1 := parseMeta(data[min(len(data), int(best.pageSize)):])
	_, err0 := parseMeta(data)
	return &rawFile{data: data, ps: int(best.pageSize), root: best.root, seen: map[uint64]bool{}, badMeta: err0 != nil || err1 != nil}, nil
}

// page returns the bytes of page id (with its overflow pages) if they are
// in the file and the page says it is id with one of the wanted flags.
func (f *rawFile) page(id uint64, flags ...uint16) ([]byte, bool) {
	off := id * uint64(f.ps)
	if id < 2 || off+pageHeaderSize > uint64(len(f.data)) || f.seen[id] {
		return nil, false
	}
	h := f.data[off:]
	le := binary.LittleEndian
	if le.Uint64(h) != id {
		return nil, false
	}
	end := off + uint64(f.ps)*(1+uint64(le.Uint32(h[12:])))
	if end > uint64(len(f.data)) {
		return nil, false
	}
	for _, fl := range flags {
		if le.Uint16(h[8:]) == fl {
			f.seen[id] = true
			return f.data[off:end], true
		}
	}
	return nil, false
}

const (
	flagBranch    = 0x01
	flagLeaf      = 0x02
	bucketLeaf    = 0x01
	elemSize      = 16
	inBucketBytes = 16
)

// walk calls fn on every leaf element of the tree at page id, or of the
// inline page p when id is 0, skipping (and counting) pages it cannot read.
func (f *rawFile) walk(id uint64, p []byte, depth int, fn func(flags uint32, k, v []byte)) {
	if p == nil {
		var ok bool
		if p, ok = f.page(id, flagBranch, flagLeaf); !ok || depth > 64 {
			f.lost++
			return
		}
	}
	if len(p) < pageHeaderSize {
		f.lost++
		return
	}
	le := binary.LittleEndian
	count, isLeaf := int(le.Uint16(p[10:])), le.Uint16(p[8:]) == flagLeaf
	for i := range count {
		e := pageHeaderSize + i*elemSize
		if e+elemSize > len(p) {
			f.lost++
			return
		}
		if !isLeaf {
			f.walk(le.Uint64(p[e+8:]), nil, depth+1, fn)
			continue
		}
		fl, pos, ks, vs := le.Uint32(p[e:]), int(le.Uint32(p[e+4:])), int(le.Uint32(p[e+8:])), int(le.Uint32(p[e+12:]))
		start := e + pos
		if pos < 0 || ks < 0 || vs < 0 || start+ks+vs > len(p) || start+ks+vs < start {
			f.lost++
			return
		}
		fn(fl, p[start:start+ks], p[start+ks:start+ks+vs])
	}
}

// buckets reads every top-level bucket: name -> key -> value.
func (f *rawFile) buckets() map[string]map[string][]byte {
	out := map[string]map[string][]byte{}
	f.walk(f.root, nil, 0, func(fl uint32, k, v []byte) {
		if fl&bucketLeaf == 0 || len(v) < inBucketBytes {
			return
		}
		kv := map[string][]byte{}
		out[string(k)] = kv
		root := binary.LittleEndian.Uint64(v)
		var inline []byte
		if root == 0 {
			inline = v[inBucketBytes:]
		}
		f.walk(root, inline, 1, func(fl uint32, k, v []byte) {
			if fl&bucketLeaf == 0 {
				kv[string(k)] = bytes.Clone(v)
			}
		})
	})
	return out
}

// salvageRecords decodes every head that has its body, counting the
// records lost: heads that do not decode or lack their body, and records
// the change log says were last put that have no head.
func salvageRecords(b map[string]map[string][]byte) (recs []Record, lost, bad int) {
	bodies, vectors := b[string(bucketBodies)], b[string(bucketVectors)]
	have := map[string]bool{}
	for k, v := range b[string(bucketHeads)] {
		parts, err := splitKey([]byte(k), 2)
		if err != nil {
			bad++
			continue
		}
		r, err := decodeHead(parts[0], parts[1], v)
		if err != nil {
			lost++
			continue
		}
		if r.BodyBytes > 0 {
			body, err := decodeBody(bodies[k])
			if err != nil || len(body) != r.BodyBytes {
				lost++
				continue
			}
			r.Body = body
		}
		have[k] = true
		var vec []float32 // a vector on a lost page leaves the record without it, not lost
		if r.hasVector {
			vec, _ = decodeVector(r.NS, r.ID, vectors[k])
		}
		recs = append(recs, Record{NS: r.NS, ID: r.ID, Kind: r.Kind, Title: r.Title, Body: r.Body, Summary: r.Summary,
			Tags: r.Tags, Aliases: r.Aliases, Keys: r.Keys, Meta: r.Meta, Order: r.Order, Pinned: r.Pinned, Binary: r.Binary,
			Vector: vec, Version: r.Version})
	}
	// The change log names records whose heads were on lost pages.
	changes := b[string(bucketChanges)]
	seqs := make([]string, 0, len(changes))
	for k := range changes {
		if len(k) == 8 {
			seqs = append(seqs, k)
		}
	}
	slices.Sort(seqs) // big-endian: byte order is seq order
	last := map[string]Op{}
	for _, k := range seqs {
		c, err := decodeChange(binary.BigEndian.Uint64([]byte(k)), changes[k])
		if err == nil && (c.Op == OpPut || c.Op == OpDelete) {
			last[string(key(c.NS, c.ID))] = c.Op
		}
	}
	for k, op := range last {
		if _, tried := b[string(bucketHeads)][k]; op == OpPut && !tried {
			lost++
		}
	}
	slices.SortFunc(recs, func(a, b Record) int { return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID)) })
	return recs, lost, bad
}

// salvageLinks gathers the links of both directions.
func salvageLinks(b map[string]map[string][]byte) (links []Link, bad int) {
	seen := map[string]bool{}
	add := func(k string, v []byte, out bool) {
		parts, err := splitKey([]byte(k), 4)
		if err != nil {
			bad++
			return
		}
		w, err := decodeWeight(v)
		if err != nil {
			bad++
			return
		}
		l := Link{NS: parts[0], From: parts[1], Rel: parts[2], To: parts[3], Weight: w}
		if !out {
			l.From, l.To = parts[3], parts[1]
		}
		if id := string(key(l.NS, l.From, l.Rel, l.To)); !seen[id] {
			seen[id] = true
			links = append(links, l)
		}
	}
	for k, v := range b[string(bucketOut)] {
		add(k, v, true)
	}
	for k, v := range b[string(bucketIn)] {
		add(k, v, false)
	}
	slices.SortFunc(links, func(a, b Link) int {
		return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.From, b.From), cmp.Compare(a.Rel, b.Rel), cmp.Compare(a.To, b.To))
	})
	return links, bad
}
