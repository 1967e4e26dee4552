package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// A record's vector is the caller's embedding of it: Lore runs no model,
// it keeps what it is given and ranks by it on request (see the vector
// package). Vectors live apart from heads, as bodies do, so that ranking
// and fitting never read one: a packet reads heads by the hundred, and a
// vector of 384 dimensions is 1.5 KB.
//
//	vectors   ns 0 id -> format byte + the float32s, little-endian
//	meta      "vecdim" 0 ns -> format byte + dimension + records with a vector (uvarints)
//
// The dimension of a namespace is fixed by its first vector; a vector of
// another dimension is refused, naming both. It is released when the
// last record with a vector loses it or goes, so a namespace can change
// models by removing its vectors first.

var (
	bucketVectors = []byte("vectors")
	keyVecDim     = "vecdim"
)

// MaxVectorDims bounds a vector's dimension. Embedding models give 256
// to 4,096; the bound keeps a damaged or hostile input from making a
// namespace's vectors absurdly large.
const MaxVectorDims = 16384

// flagVector in a head's flags says the record has a vector.
const flagVector = 1 << 2

// validVector checks r's vector: none, or 1 to MaxVectorDims finite
// numbers. The error names the record.
func validVector(r *Record) error {
	v := r.Vector
	if v == nil {
		return nil
	}
	if len(v) == 0 {
		return fmt.Errorf("%w: record %s/%s: the vector is empty; give 1 to %d numbers, or no vector", ErrInvalid, r.NS, r.ID, MaxVectorDims)
	}
	if len(v) > MaxVectorDims {
		return fmt.Errorf("%w: record %s/%s: the vector has %d dimensions, more than the limit of %d", ErrInvalid, r.NS, r.ID, len(v), MaxVectorDims)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: record %s/%s: vector element %d is %v; every element must be a finite number", ErrInvalid, r.NS, r.ID, i, x)
		}
	}
	return nil
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 1, 1+4*len(v))
	b[0] = formatV1
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func decodeVector(ns, id string, b []byte) ([]float32, error) {
	if len(b) < 5 || b[0] != formatV1 || (len(b)-1)%4 != 0 {
		return nil, valuef(id, "record %q in namespace %q: %w: vector value of %d bytes, want format byte %d and 4 bytes a dimension", id, ns, ErrCorrupt, len(b), formatV1)
	}
	v := make([]float32, (len(b)-1)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[1+4*i:]))
	}
	return v, nil
}

// vectorTx reads the vector of (ns, id); nil when it has none. A store
// made before vectors has no vectors bucket.
func vectorTx(tx KVTx, ns, id string) ([]float32, error) {
	b := tx.Bucket(bucketVectors)
	if b == nil {
		return nil, nil
	}
	v := b.Get(key(ns, id))
	if v == nil {
		return nil, nil
	}
	return decodeVector(ns, id, v)
}

// withVector fills r.Vector from tx when r's head says it has one. A
// head that says so over a missing vector is damage.
func withVector(tx KVTx, r *Record, flagged bool) error {
	if !flagged {
		return nil
	}
	v, err := vectorTx(tx, r.NS, r.ID)
	if err != nil {
		return err
	}
	if v == nil {
		return valuef(r.ID, "record %q in namespace %q: %w: its head says it has a vector, but none is stored", r.ID, r.NS, ErrCorrupt)
	}
	r.Vector = v
	return nil
}

// vecDim is a namespace's vector dimension and how many of its records
// have a vector.
type vecDim struct{ dim, count uint64 }

func vecDimKey(ns string) []byte { return key(keyVecDim, ns) }

func readVecDim(tx KVTx, ns string) (vecDim, error) {
	b := tx.Bucket(bucketMeta).Get(vecDimKey(ns))
	if b == nil {
		return vecDim{}, nil
	}
	d := dec{b: b}
	d.format("vector dimension")
	vd := vecDim{dim: d.uvarint("dimension"), count: d.uvarint("vector count")}
	if err := d.end("vector dimension"); err != nil {
		return vecDim{}, valuef(ns, "namespace %q: %w", ns, err)
	}
	return vd, nil
}

func writeVecDim(tx KVTx, ns string, vd vecDim) error {
	if vd.count == 0 {
		return tx.Bucket(bucketMeta).Delete(vecDimKey(ns))
	}
	e := enc{b: []byte{formatV1}}
	e.uvarint(vd.dim)
	e.uvarint(vd.count)
	return tx.Bucket(bucketMeta).Put(vecDimKey(ns), e.b)
}

// putVectorTx stores r's vector (or removes the one it had: had says
// whether the record it replaces had one), keeping the namespace's
// dimension and count.
func putVectorTx(tx KVTx, r *Record, had bool) error {
	if r.Vector == nil && !had {
		return nil
	}
	vd, err := readVecDim(tx, r.NS)
	if err != nil {
		return err
	}
	b := tx.Bucket(bucketVectors)
	if b == nil {
		return fmt.Errorf("%w: the store has no vectors bucket; open it writable once with this version to add it", ErrReadOnly)
	}
	k := key(r.NS, r.ID)
	if r.Vector == nil {
		if vd.count > 0 {
			vd.count--
		}
		if err := b.Delete(k); err != nil {
			return err
		}
		return writeVecDim(tx, r.NS, vd)
	}
	// The one vector of a namespace may change its dimension: it is the
	// namespace's first again.
	alone := had && vd.count == 1
	if vd.count > 0 && !alone && vd.dim != uint64(len(r.Vector)) {
		return valuef(r.ID, "%w: record %q has a vector of %d dimensions, but the vectors of namespace %q have %d (fixed by its first vector; remove them all to change models)",
			ErrInvalid, r.ID, len(r.Vector), r.NS, vd.dim)
	}
	if !had {
		vd.count++
	}
	vd.dim = uint64(len(r.Vector))
	if err := b.Put(k, encodeVector(r.Vector)); err != nil {
		return err
	}
	return writeVecDim(tx, r.NS, vd)
}

// deleteVectorTx removes the vector of a record that goes.
func deleteVectorTx(tx KVTx, ns, id string, had bool) error {
	if !had {
		return nil
	}
	gone := Record{NS: ns, ID: id}
	return putVectorTx(tx, &gone, true)
}

// VectorDim returns the dimension of ns's vectors, 0 when none of its
// records has one.
func (s *Store) VectorDim(ns string) (int, error) {
	if err := ValidNamespace(ns); err != nil {
		return 0, err
	}
	var vd vecDim
	err := s.view(func(tx KVTx) (err error) {
		vd, err = readVecDim(tx, ns)
		return err
	})
	return int(vd.dim), err
}

// VectorEntry is one record's vector with what a vector search filters
// by.
type VectorEntry struct {
	ID     string
	Kind   string
	Tags   []string
	Vector []float32
}

// VectorSet is every vector of one namespace as of one change-log
// sequence number.
type VectorSet struct {
	NS      string
	Dim     int
	Seq     uint64 // the last change the read saw
	Entries []VectorEntry
}

// Vectors reads every vector of ns, sorted by id, in one snapshot, with
// the sequence number of the last change that snapshot holds: a caller
// that keeps them checks Changes after Seq to stay current.
func (s *Store) Vectors(ns string) (VectorSet, error) {
	set := VectorSet{NS: ns}
	if err := ValidNamespace(ns); err != nil {
		return set, err
	}
	err := s.view(func(tx KVTx) error {
		set.Seq = lastSeqTx(tx)
		vb := tx.Bucket(bucketVectors)
		if vb == nil {
			return nil
		}
		pre := prefix(ns)
		var ids []string
		var vecs [][]float32
		c := vb.Cursor()
		for k, v := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			id := string(k[len(pre):])
			vec, err := decodeVector(ns, id, v)
			if err != nil {
				return err
			}
			ids, vecs = append(ids, id), append(vecs, vec)
		}
		prefetch(tx, ns, ids, bucketHeads)
		heads := getter(tx.Bucket(bucketHeads))
		in := interner{}
		for i, id := range ids {
			h := heads(key(ns, id))
			if h == nil {
				continue // a vector left by a version that did not know them
			}
			r, err := decodeHeadWith(ns, id, h, in)
			if err != nil {
				return err
			}
			if set.Dim == 0 {
				set.Dim = len(vecs[i])
			}
			set.Entries = append(set.Entries, VectorEntry{ID: id, Kind: r.Kind, Tags: r.Tags, Vector: vecs[i]})
		}
		return nil
	})
	return set, err
}

// VectorsOf reads the vectors of ids in ns (those that have one), with
// their kinds and tags, in one snapshot.
func (s *Store) VectorsOf(ns string, ids []string) ([]VectorEntry, error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var out []VectorEntry
	err := s.view(func(tx KVTx) error {
		prefetch(tx, ns, ids, bucketHeads, bucketVectors)
		for _, id := range ids {
			r, ok, err := headTx(tx, ns, id)
			if err != nil {
				return err
			}
			if !ok || !r.hasVector {
				continue
			}
			vec, err := vectorTx(tx, ns, id)
			if err != nil || vec == nil {
				return err
			}
			out = append(out, VectorEntry{ID: id, Kind: r.Kind, Tags: r.Tags, Vector: vec})
		}
		return nil
	})
	return out, err
}
