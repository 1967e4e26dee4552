package store

import (
	"bytes"
)

// NamedHeads returns, sorted by id, the records of ns that go by a name:
// those with aliases or keys, and those of one of kinds (kinds whose titles
// are names). Each carries only what a mention scan reads: NS, ID, Kind,
// Title, Aliases, Keys, Meta and Order; Head gives the rest. Heads of other
// records are skipped without decoding, and the fields left out are never
// decoded, so a packet over a large namespace reads its names cheaply.
func (s *Store) NamedHeads(ns string, kinds []string) ([]Record, error) {
	if err := ValidNamespace(ns); err != nil {
		return nil, err
	}
	var out []Record
	err := s.view(func(tx KVTx) error {
		pre := prefix(ns)
		c := tx.Bucket(bucketHeads).Cursor()
		// One walk finds them (a peek per head), keeping the key and
		// value, which stay valid while tx is open; then the Records are
		// made at their exact number: a Record is large, and growing the
		// slice by doubling would copy it over and over.
		type named struct{ k, v []byte }
		var found []named
		for k, v := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, v = c.Next() {
			if namedHead(v, kinds) {
				found = append(found, named{k, v})
			}
		}
		out = make([]Record, 0, len(found))
		for _, f := range found {
			r, err := decodeNames(ns, string(f.k[len(pre):]), f.v)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// decodeNames decodes the fields NamedHeads returns from a head value,
// skipping the others. A value it cannot read is decoded whole, so the
// error is the one decodeHead gives.
func decodeNames(ns, id string, b []byte) (Record, error) {
	fail := func() (Record, error) {
		if _, err := decodeHead(ns, id, b); err != nil {
			return Record{}, err
		}
		return Record{}, valuef(id, "record %q in namespace %q: %w: head not readable for its names", id, ns, ErrCorrupt)
	}
	if len(b) == 0 || b[0] != formatV1 && b[0] != formatV2 {
		return fail()
	}
	named := b[0] == formatV2
	d := dec{b: b[1:]}
	r := Record{NS: ns, ID: id}
	r.Kind = d.str("kind")
	r.Title = d.str("title")
	d.bytes("summary")
	for n := d.count("tags"); n > 0 && d.err == nil; n-- {
		d.bytes("tag")
	}
	if n := d.count("meta"); n > 0 {
		r.Meta = make(map[string]string, n)
		for range n {
			k := d.str("meta key")
			r.Meta[k] = d.str("meta value")
		}
	}
	r.Order = d.varint("order")
	d.bytes1("flags")
	d.varint("created")
	d.varint("updated")
	d.varint("version")
	if n := int(d.bytes1("sha256 length")); d.err == nil {
		if n > len(d.b) {
			d.fail("sha256")
		} else {
			d.b = d.b[n:]
		}
	}
	d.varint("body size")
	for n := d.count("token counts"); n > 0 && d.err == nil; n-- {
		d.bytes("counter name")
		d.varint("title tokens")
		d.varint("body tokens")
		d.varint("summary tokens")
	}
	if named {
		r.Aliases = d.strs("aliases", "alias")
		r.Keys = d.strs("keys", "key")
	}
	if d.end("record") != nil {
		return fail()
	}
	return r, nil
}
