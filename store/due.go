package store

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
)

// Due keys (store format 3): for every open obligation, a secondary key
// in bucket idx that orders it by when it is due, so that "the open
// obligations of ns due by D" reads what it returns, not every
// obligation the namespace ever had (closed ones have no key at all).
//
//	d sep ns sep kind sep 'n' asc(due) id   meta.due is a number
//	d sep ns sep kind sep 'i' due sep id    meta.due names a record of ns
//	d sep ns sep kind sep 'x' id            no meta.due, or neither
//
// meta.due means what the packet's obligation rule takes it to mean: the
// trimmed text parsed as a base-10 int64 is a story position; else, if
// it is a valid id, the order of that record (a chapter, a scene), which
// only counts when above 0. Like every secondary key, a due key is
// derived from its own head alone: the position of a named record is
// looked up when Due reads, once per named record, so a chapter that
// moves rewrites no obligation.
var dueKinds = []string{"obligation"}

// DueKinds are the kinds whose open records the store keeps due keys for
// (obligations: `kind: obligation`, `meta.due`, `meta.status`). Due answers for these
// only; an obligation rule configured with other kinds walks those.
func DueKinds() []string { return slices.Clone(dueKinds) }

// OpenStatus reports whether an obligation's meta.status means it is
// still owed: empty, open, pending, owed or active, in any case, with
// space around it ignored.
func OpenStatus(status string) bool {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "", "open", "pending", "owed", "active":
		return true
	}
	return false
}

// dueKey is the due key of head r, or nil when r has none.
func dueKey(r *Record) []byte {
	if !slices.Contains(dueKinds, r.Kind) || !OpenStatus(r.Meta["status"]) {
		return nil
	}
	k := prefix("d", r.NS, r.Kind)
	due := strings.TrimSpace(r.Meta["due"])
	if n, err := strconv.ParseInt(due, 10, 64); err == nil {
		k = append(append(k, 'n'), asc(n)...)
	} else if due != "" && ValidID(due) == nil {
		k = append(append(append(k, 'i'), due...), sep)
	} else {
		k = append(k, 'x')
	}
	return append(k, r.ID...)
}

// dueIndexed reports whether tx's store keeps complete due keys.
func dueIndexed(tx KVTx) bool { return idxLevel(tx) >= formatDue }

// Due calls fn on the heads of the open obligations of kind in ns that
// are due by position by: those whose meta.due is a position at most by
// (overdue ones too), those whose due names a record of ns with an order
// at most by, and those whose due is no position (none, text that is
// neither a number nor an id, a record that does not exist or has no
// order). With all it calls fn on every open obligation of kind. Heads
// come numbers first by due, then named records by name, then the rest,
// ties by id; fn returning false stops. It costs the obligations it
// returns plus a seek per named record, not a walk of the kind. ok is
// false, and fn is not called, when the store keeps no due keys for kind
// (see DueKinds; or a store older than them opened read-only): the
// caller lists the kind instead. fn runs inside a read transaction and
// must not use the store.
func (s *Store) Due(ns, kind string, by int64, all bool, fn func(Record) bool) (ok bool, err error) {
	if err := ValidNamespace(ns); err != nil {
		return false, err
	}
	err = s.view(func(tx KVTx) error {
		if ok = dueIndexed(tx) && slices.Contains(dueKinds, kind); !ok {
			return nil
		}
		d := dueReader{tx: tx, ns: ns, fn: fn, c: tx.Bucket(bucketIdx).Cursor()}
		pre := prefix("d", ns, kind)
		if d.numbers(append(slices.Clone(pre), 'n'), by, all) && d.named(append(slices.Clone(pre), 'i'), by, all) {
			d.rest(append(slices.Clone(pre), 'x'))
		}
		return d.err
	})
	return ok, err
}

// dueReader reads due keys in batches of heads and hands them to fn.
type dueReader struct {
	tx   KVTx
	ns   string
	fn   func(Record) bool
	c    KVCursor
	ids  []string
	err  error
	stop bool
}

// take queues id; flush reads the queued heads and calls fn on them.
// Both return false once fn stopped or a read failed.
func (d *dueReader) take(id string) bool {
	d.ids = append(d.ids, id)
	if len(d.ids) < 16 { // heads per round trip on etcd
		return true
	}
	return d.flush()
}

func (d *dueReader) flush() bool {
	if d.stop || d.err != nil {
		return false
	}
	hs, err := headsTx(d.tx, d.ns, d.ids)
	d.ids = d.ids[:0]
	if err != nil {
		d.err = err
		return false
	}
	for _, r := range hs {
		if !d.fn(r) {
			d.stop = true
			return false
		}
	}
	return true
}

// numbers reads the obligations due at a number, up to by unless all.
func (d *dueReader) numbers(pre []byte, by int64, all bool) bool {
	for k, _ := d.c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = d.c.Next() {
		if len(k) <= len(pre)+8 {
			continue // Check names it
		}
		if at := int64(binary.BigEndian.Uint64(k[len(pre):]) ^ 1<<63); !all && at > by {
			break
		}
		if !d.take(string(k[len(pre)+8:])) {
			return false
		}
	}
	return d.flush()
}

// named reads the obligations due at a named record, group by group:
// a group whose record has an order above by is skipped in one seek.
func (d *dueReader) named(pre []byte, by int64, all bool) bool {
	heads := d.tx.Bucket(bucketHeads)
	for k, _ := d.c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); {
		i := bytes.IndexByte(k[len(pre):], sep)
		if i < 1 {
			k, _ = d.c.Next() // Check names it
			continue
		}
		group := slices.Clone(k[:len(pre)+i+1])
		target := string(k[len(pre) : len(pre)+i])
		if !all {
			if p, ok := peekHead(heads.Get(key(d.ns, target))); ok && p.order > 0 && p.order > by {
				past := append(group[:len(group)-1:len(group)-1], sep+1)
				k, _ = d.c.Seek(past)
				continue
			}
		}
		for ; k != nil && bytes.HasPrefix(k, group); k, _ = d.c.Next() {
			if len(k) > len(group) && !d.take(string(k[len(group):])) {
				return false
			}
		}
	}
	return d.flush()
}

// rest reads the obligations with no due position.
func (d *dueReader) rest(pre []byte) {
	for k, _ := d.c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = d.c.Next() {
		if len(k) > len(pre) && !d.take(string(k[len(pre):])) {
			return
		}
	}
	d.flush()
}
