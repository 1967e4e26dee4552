package store

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// formatV1 is the first byte of every value the store writes. A reader
// that meets another byte refuses the value with ErrCorrupt instead of
// guessing; a future format gets a new byte and a decoder beside this one.
const formatV1 = 1

// formatV2 marks a record head that carries names: it is a formatV1 head
// followed by the aliases and the keys. A head without names is still
// written as formatV1, byte for byte as before, so a store that uses no
// names stays readable by a version that knows only formatV1.
const formatV2 = 2

// sep separates the parts of a key. Namespaces, ids and relation names
// cannot contain it, so "a"+sep is never a prefix of "a/b"+sep or "ab"+sep.
const sep = 0x00

// key joins parts with sep.
func key(parts ...string) []byte {
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, sep)
		}
		b = append(b, p...)
	}
	return b
}

// appendKey appends key(ns, id) to dst: a loop over many records reuses
// one buffer where the bucket keeps no key it is given.
func appendKey(dst []byte, ns, id string) []byte {
	return append(append(append(dst, ns...), sep), id...)
}

// prefix is key(parts...) followed by sep: every key below parts.
func prefix(parts ...string) []byte {
	return append(key(parts...), sep)
}

// splitKey splits a key into exactly n parts, or reports ErrCorrupt.
func splitKey(k []byte, n int) ([]string, error) {
	parts := make([]string, 0, n)
	start := 0
	for i, c := range k {
		if c == sep {
			parts = append(parts, string(k[start:i]))
			start = i + 1
		}
	}
	parts = append(parts, string(k[start:]))
	if len(parts) != n {
		return nil, fmt.Errorf("%w: key %q has %d parts, want %d", ErrCorrupt, k, len(parts), n)
	}
	return parts, nil
}

// u64 encodes v big-endian so byte order is numeric order.
func u64(v uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, v)
}

// Values ------------------------------------------------------------------

type enc struct{ b []byte }

func (e *enc) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) varint(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) time(t time.Time) {
	if t.IsZero() {
		e.varint(0)
		return
	}
	e.varint(t.UnixNano())
}

// dec reads what enc wrote. The first failure sticks; every read after it
// returns zero values, so decoders check err once at the end.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: value truncated or malformed at %s", ErrCorrupt, what)
	}
}

func (d *dec) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length or element count that cannot exceed the bytes left
// (each element takes at least one byte), so corrupt input never makes a
// huge allocation.
func (d *dec) count(what string) int {
	v := d.uvarint(what)
	if d.err == nil && v > uint64(len(d.b)) {
		d.fail(what)
		return 0
	}
	return int(v)
}

func (d *dec) bytes(what string) []byte {
	n := d.count(what)
	if d.err != nil {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str(what string) string { return string(d.bytes(what)) }

// common reads a string that many records share (a kind, a tag, a meta
// key, a counter's name), one copy per interner.
func (d *dec) common(what string, in interner) string {
	b := d.bytes(what)
	if in == nil {
		return string(b)
	}
	return in.str(b)
}

// interner keeps one copy of each short string decoded through it: the
// heads of one read share a few kinds, meta keys and counter names, and
// a packet reads hundreds of heads. It is for one goroutine.
type interner map[string]string

// Bounds of an interner: strings longer than maxInternedLen, or met once
// it holds maxInterned, are copied as they are.
const (
	maxInternedLen = 32
	maxInterned    = 512
)

func (in interner) str(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(b) <= maxInternedLen && len(in) < maxInterned {
		in[s] = s
	}
	return s
}

func (d *dec) int(what string) int {
	v := d.varint(what)
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(what)
		return 0
	}
	return int(v)
}

func (d *dec) time(what string) time.Time {
	v := d.varint(what)
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}

func (d *dec) format(what string) {
	if d.err != nil {
		return
	}
	if len(d.b) == 0 {
		d.err = fmt.Errorf("%w: empty %s value", ErrCorrupt, what)
		return
	}
	if d.b[0] != formatV1 {
		d.err = fmt.Errorf("%w: %s value has format byte %d, this version reads %d", ErrCorrupt, what, d.b[0], formatV1)
		return
	}
	d.b = d.b[1:]
}

func (d *dec) end(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d unexpected bytes after %s value", ErrCorrupt, len(d.b), what)
	}
	return d.err
}

const (
	flagPinned = 1 << iota
	flagBinary
)

// encodeHead encodes everything of r except NS, ID (they are the key) and
// Body (it lives in the bodies bucket). Tags, meta and token counts are
// written in sorted order so equal records encode to equal bytes.
func encodeHead(r *Record) []byte {
	e := enc{b: make([]byte, 0, 96+len(r.Title)+len(r.Summary))}
	named := len(r.Aliases)+len(r.Keys) > 0
	if named {
		e.b = append(e.b, formatV2)
	} else {
		e.b = append(e.b, formatV1)
	}
	e.str(r.Kind)
	e.str(r.Title)
	e.str(r.Summary)
	e.uvarint(uint64(len(r.Tags)))
	for _, t := range r.Tags {
		e.str(t)
	}
	keys := sortedKeys(r.Meta)
	e.uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.str(k)
		e.str(r.Meta[k])
	}
	e.varint(r.Order)
	var flags byte
	if r.Pinned {
		flags |= flagPinned
	}
	if r.Binary {
		flags |= flagBinary
	}
	if r.hasVector || len(r.Vector) > 0 {
		flags |= flagVector
	}
	e.b = append(e.b, flags)
	e.time(r.Created)
	e.time(r.Updated)
	e.varint(int64(r.Version))
	sum, _ := hex.DecodeString(r.SHA256)
	e.b = append(e.b, byte(len(sum)))
	e.b = append(e.b, sum...)
	e.varint(int64(r.BodyBytes))
	names := sortedKeys(r.Tokens)
	e.uvarint(uint64(len(names)))
	for _, n := range names {
		tc := r.Tokens[n]
		e.str(n)
		e.varint(int64(tc.Title))
		e.varint(int64(tc.Body))
		e.varint(int64(tc.Summary))
	}
	if named {
		for _, list := range [][]string{r.Aliases, r.Keys} {
			e.uvarint(uint64(len(list)))
			for _, a := range list {
				e.str(a)
			}
		}
	}
	return e.b
}

// hexString is hex.EncodeToString in one allocation (it makes two): a
// packet decodes hundreds of heads, each with its sha256.
func hexString(b []byte) string {
	var s strings.Builder
	s.Grow(hex.EncodedLen(len(b)))
	const digits = "0123456789abcdef"
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&0x0f])
	}
	return s.String()
}

// decodeHead decodes a head value; ns and id come from its key. Corrupt
// bytes give ErrCorrupt, never a panic.
func decodeHead(ns, id string, b []byte) (Record, error) { return decodeHeadWith(ns, id, b, nil) }

// decodeHeadWith is decodeHead with the strings records share taken
// through in (nil: none).
func decodeHeadWith(ns, id string, b []byte, in interner) (Record, error) {
	d := dec{b: b}
	named := len(b) > 0 && b[0] == formatV2
	if named {
		d.b = d.b[1:]
	} else {
		d.format("record")
	}
	r := Record{NS: ns, ID: id}
	r.Kind = d.common("kind", in)
	r.Title = d.str("title")
	r.Summary = d.str("summary")
	if n := d.count("tags"); n > 0 {
		r.Tags = make([]string, n)
		for i := range r.Tags {
			r.Tags[i] = d.common("tag", in)
		}
	}
	if n := d.count("meta"); n > 0 {
		r.Meta = make(map[string]string, n)
		for range n {
			k := d.common("meta key", in)
			r.Meta[k] = d.common("meta value", in)
		}
	}
	r.Order = d.varint("order")
	flags := d.bytes1("flags")
	r.Pinned = flags&flagPinned != 0
	r.Binary = flags&flagBinary != 0
	r.hasVector = flags&flagVector != 0
	r.Created = d.time("created")
	r.Updated = d.time("updated")
	r.Version = d.int("version")
	if n := int(d.bytes1("sha256 length")); d.err == nil {
		if n > len(d.b) {
			d.fail("sha256")
		} else {
			r.SHA256 = hexString(d.b[:n])
			d.b = d.b[n:]
		}
	}
	r.BodyBytes = d.int("body size")
	if n := d.count("token counts"); n > 0 {
		r.Tokens = make(map[string]TokenCount, n)
		for range n {
			name := d.common("counter name", in)
			r.Tokens[name] = TokenCount{Title: d.int("title tokens"), Body: d.int("body tokens"), Summary: d.int("summary tokens")}
		}
	}
	if named {
		r.Aliases = d.strs("aliases", "alias")
		r.Keys = d.strs("keys", "key")
	}
	if err := d.end("record"); err != nil {
		return Record{}, valuef(id, "record %q in namespace %q: %w", id, ns, err)
	}
	return r, nil
}

// strs reads a counted list of strings; an empty list is nil.
func (d *dec) strs(list, what string) []string {
	n := d.count(list)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str(what)
	}
	return out
}

func (d *dec) bytes1(what string) byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail(what)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// encodeBody prefixes a body with the format byte.
func encodeBody(body string) []byte {
	b := make([]byte, 0, 1+len(body))
	b = append(b, formatV1)
	return append(b, body...)
}

func decodeBody(b []byte) (string, error) {
	if len(b) == 0 || b[0] != formatV1 {
		return "", fmt.Errorf("%w: body value does not start with format byte %d", ErrCorrupt, formatV1)
	}
	return string(b[1:]), nil
}

// encodeVersion encodes a whole past version: its head and its body, and
// between them its vector when it has one (then the value starts with
// formatV2; a version without a vector is written as before).
func encodeVersion(r *Record) []byte {
	head := encodeHead(r)
	var vec []byte
	if len(r.Vector) > 0 {
		vec = encodeVector(r.Vector)
	}
	e := enc{b: make([]byte, 0, 1+2*binary.MaxVarintLen64+len(head)+len(vec)+len(r.Body))}
	if vec != nil {
		e.b = append(e.b, formatV2)
	} else {
		e.b = append(e.b, formatV1)
	}
	e.uvarint(uint64(len(head)))
	e.b = append(e.b, head...)
	if vec != nil {
		e.uvarint(uint64(len(vec)))
		e.b = append(e.b, vec...)
	}
	e.b = append(e.b, r.Body...)
	return e.b
}

func decodeVersion(ns, id string, b []byte) (Record, error) {
	d := dec{b: b}
	withVec := len(b) > 0 && b[0] == formatV2
	if withVec {
		d.b = d.b[1:]
	} else {
		d.format("version")
	}
	head := d.bytes("version head")
	var vec []byte
	if withVec {
		vec = d.bytes("version vector")
	}
	if d.err != nil {
		return Record{}, valuef(id, "record %q in namespace %q: %w", id, ns, d.err)
	}
	r, err := decodeHead(ns, id, head)
	if err != nil {
		return Record{}, err
	}
	if withVec {
		if r.Vector, err = decodeVector(ns, id, vec); err != nil {
			return Record{}, err
		}
	}
	r.Body = string(d.b)
	return r, nil
}

// opCodes maps operations to their byte in the change log.
var opCodes = map[Op]byte{OpPut: 1, OpDelete: 2, OpLink: 3, OpUnlink: 4}

// EncodeChange and DecodeChange are the bytes of a change-log entry, for
// an engine that keeps the log itself (ChangeLogTx): DecodeChange reads
// what EncodeChange wrote back as the change with sequence number seq,
// and refuses other bytes with ErrCorrupt. c.Seq is not written.
func EncodeChange(c Change) []byte { return encodeChange(c.Op, c.NS, c.ID) }

// DecodeChange: see EncodeChange.
func DecodeChange(seq uint64, b []byte) (Change, error) { return decodeChange(seq, b) }

func encodeChange(op Op, ns, id string) []byte {
	e := enc{b: make([]byte, 0, 4+len(ns)+len(id))}
	e.b = append(e.b, formatV1, opCodes[op])
	e.str(ns)
	e.str(id)
	return e.b
}

func decodeChange(seq uint64, b []byte) (Change, error) {
	d := dec{b: b}
	d.format("change")
	code := d.bytes1("op")
	c := Change{Seq: seq}
	for op, oc := range opCodes {
		if oc == code {
			c.Op = op
		}
	}
	if d.err == nil && c.Op == "" {
		d.err = fmt.Errorf("%w: change %d has unknown op %d", ErrCorrupt, seq, code)
	}
	c.NS = d.str("namespace")
	c.ID = d.str("id")
	if err := d.end("change"); err != nil {
		return Change{}, fmt.Errorf("change %d: %w", seq, err)
	}
	return c, nil
}

// A link's value is the format byte, the weight (8 bytes) and the time the
// link was made (8 bytes, Unix nanoseconds), which keeps the order links
// were made in (the memory tools list relations so). A 9-byte value, as
// written before the time was kept, reads as made at time 0.
func encodeLinkValue(w float64, made int64) []byte {
	b := binary.BigEndian.AppendUint64([]byte{formatV1}, math.Float64bits(w))
	return binary.BigEndian.AppendUint64(b, uint64(made))
}

func decodeLinkValue(b []byte) (w float64, made int64, err error) {
	if (len(b) != 9 && len(b) != 17) || b[0] != formatV1 {
		return 0, 0, fmt.Errorf("%w: link value is %d bytes %x, want format byte %d, 8 bytes of weight and 8 of time", ErrCorrupt, len(b), b, formatV1)
	}
	if len(b) == 17 {
		made = int64(binary.BigEndian.Uint64(b[9:]))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b[1:9])), made, nil
}

func decodeWeight(b []byte) (float64, error) {
	w, _, err := decodeLinkValue(b)
	return w, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
