package etcdstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lorekeep/lore/store"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// etcdTx is one snapshot of an etcd store, read at rev, with the writes
// of an update buffered until commit. Reads see the buffered writes.
type etcdTx struct {
	e        *etcdEngine
	ctx      context.Context
	rev      int64  // the snapshot's revision
	logRev   int64  // mod revision of the log key at rev (0: no write yet)
	logValue []byte // its value: the last write's changes
	writing  bool

	writes  map[string]etcdWrite // full key -> buffered write
	reads   map[string]int64     // full key -> mod revision read (0: absent)
	changes []store.Change
	cache   map[string]cached // keys read ahead (prefetch)
	err     error             // the first failed read; view and update return it
}

var (
	_ store.ChangeLogTx = (*etcdTx)(nil)
	_ store.BatchReader = (*etcdTx)(nil)
)

type etcdWrite struct {
	val []byte
	del bool
}

// fail keeps the first read error; the read then returns nothing.
func (t *etcdTx) fail(err error) {
	if t.err == nil {
		t.err = t.e.fail("read", err)
	}
}

func (t *etcdTx) Bucket(name []byte) store.KVBucket {
	return &etcdBucket{t: t, pfx: t.e.prefix + string(name) + "/"}
}

// AppendChange buffers one change; the commit writes the write's
// changes as the log key's value (ops).
func (t *etcdTx) AppendChange(op store.Op, ns, id string) error {
	t.changes = append(t.changes, store.Change{Op: op, NS: ns, ID: id})
	return nil
}

// LastSeq is the log key's mod revision at the snapshot: the revision of
// the last logged write.
func (t *etcdTx) LastSeq() uint64 { return uint64(t.logRev) }

// CheckLog: the log's newest value must decode. Gaps are normal
// (revisions are shared).
func (t *etcdTx) CheckLog() error {
	if t.logRev == 0 {
		return nil
	}
	if _, err := decodeLog(uint64(t.logRev), t.logValue); err != nil {
		return fmt.Errorf("change log at revision %d does not decode: %v", t.logRev, err)
	}
	return nil
}

// ops lists the buffered writes in key order, plus the log key when the
// write logs changes, and their size in bytes.
func (t *etcdTx) ops() ([]clientv3.Op, int) {
	keys := make([]string, 0, len(t.writes))
	for k := range t.writes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var ops []clientv3.Op
	size := 0
	for _, k := range keys {
		w := t.writes[k]
		size += len(k) + len(w.val) + 8
		if w.del {
			ops = append(ops, clientv3.OpDelete(k))
		} else {
			ops = append(ops, clientv3.OpPut(k, string(w.val)))
		}
	}
	if len(t.changes) > 0 {
		v := encodeLog(t.changes)
		size += len(t.e.logKey) + len(v)
		ops = append(ops, clientv3.OpPut(t.e.logKey, string(v)))
	}
	return ops, size
}

// logFormat is the first byte of the log key's value.
const logFormat = 1

// encodeLog encodes one write's changes as the log key's value: a format
// byte, then each change as a uvarint length and EncodeChange's bytes.
func encodeLog(cs []store.Change) []byte {
	b := []byte{logFormat}
	for _, c := range cs {
		e := store.EncodeChange(c)
		b = binary.AppendUvarint(b, uint64(len(e)))
		b = append(b, e...)
	}
	return b
}

// decodeLog decodes a log value written at revision seq.
func decodeLog(seq uint64, b []byte) ([]store.Change, error) {
	if len(b) == 0 || b[0] != logFormat {
		return nil, fmt.Errorf("%w: change log at revision %d: format byte %x, want %d", store.ErrCorrupt, seq, b[:min(1, len(b))], logFormat)
	}
	b = b[1:]
	var out []store.Change
	for len(b) > 0 {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return nil, fmt.Errorf("%w: change log at revision %d is cut short", store.ErrCorrupt, seq)
		}
		c, err := store.DecodeChange(seq, b[w:w+int(n)])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		b = b[w+int(n):]
	}
	return out, nil
}

// etcdBucket is one bucket: the keys under pfx.
type etcdBucket struct {
	t   *etcdTx
	pfx string
}

func (b *etcdBucket) Get(k []byte) []byte {
	full := b.pfx + string(k)
	if w, ok := b.t.writes[full]; ok {
		if w.del {
			return nil
		}
		return w.val
	}
	if b.t.err != nil {
		return nil
	}
	var rev int64
	var v []byte
	if c, ok := b.t.cache[full]; ok {
		rev, v = c.rev, c.val
	} else {
		resp, err := b.t.e.cli.Get(b.t.ctx, full, clientv3.WithRev(b.t.rev))
		if err != nil {
			b.t.fail(err)
			return nil
		}
		if len(resp.Kvs) == 1 {
			rev, v = resp.Kvs[0].ModRevision, resp.Kvs[0].Value
		}
		// A snapshot's keys never change: a key read again (the store's
		// format, once a record in a put) costs no second round trip.
		if b.t.cache == nil {
			b.t.cache = map[string]cached{}
		}
		b.t.cache[full] = cached{val: v, rev: rev}
	}
	if b.t.writing {
		if b.t.reads == nil {
			b.t.reads = map[string]int64{}
		}
		b.t.reads[full] = rev
	}
	return v
}

func (b *etcdBucket) Put(k, v []byte) error { return b.write(k, etcdWrite{val: slices.Clone(v)}) }

func (b *etcdBucket) Delete(k []byte) error { return b.write(k, etcdWrite{del: true}) }

func (b *etcdBucket) write(k []byte, w etcdWrite) error {
	if !b.t.writing {
		return fmt.Errorf("write to store %s in a read transaction: %w", b.t.e.url, store.ErrReadOnly)
	}
	if b.t.writes == nil {
		b.t.writes = map[string]etcdWrite{}
	}
	b.t.writes[b.pfx+string(k)] = w
	return nil
}

func (b *etcdBucket) Cursor() store.KVCursor { return &etcdCursor{b: b} }

// etcdCursor merges the snapshot's keys, read a page at a time, with the
// tx's buffered writes (taken when the cursor is positioned).
type etcdCursor struct {
	b     *etcdBucket
	page  []*mvccpb.KeyValue // snapshot keys not yet passed
	from  string             // where the next page starts (inclusive)
	more  bool               // the snapshot may hold keys from from on
	over  []string           // buffered keys of the bucket, sorted
	bound string             // the key last returned
}

// etcdPage is how many keys a cursor reads per request.
const etcdPage = 512

func (c *etcdCursor) First() ([]byte, []byte) { return c.Seek(nil) }

func (c *etcdCursor) Seek(seek []byte) ([]byte, []byte) {
	start := c.b.pfx + string(seek)
	c.page, c.from, c.more = nil, start, true
	c.over = c.over[:0]
	for k := range c.b.t.writes {
		if strings.HasPrefix(k, c.b.pfx) {
			c.over = append(c.over, k)
		}
	}
	sort.Strings(c.over)
	return c.next(start, true)
}

func (c *etcdCursor) Next() ([]byte, []byte) {
	if c.bound == "" {
		return nil, nil
	}
	return c.next(c.bound, false)
}

// next returns the first live key at or after bound (after it when not
// incl), from the snapshot or the buffered writes.
func (c *etcdCursor) next(bound string, incl bool) ([]byte, []byte) {
	past := func(k string) bool { return k > bound || (incl && k == bound) }
	for {
		snap := c.snapHead(past)
		i := sort.Search(len(c.over), func(i int) bool { return past(c.over[i]) })
		var ov string
		if i < len(c.over) {
			ov = c.over[i]
		}
		switch {
		case snap == nil && ov == "":
			c.bound = ""
			return nil, nil
		case ov != "" && (snap == nil || ov <= string(snap.Key)):
			bound, incl = ov, false
			if w := c.b.t.writes[ov]; !w.del {
				c.bound = ov
				return []byte(ov[len(c.b.pfx):]), w.val
			}
		default:
			c.bound = string(snap.Key)
			return snap.Key[len(c.b.pfx):], snap.Value
		}
	}
}

// snapHead drops snapshot keys not past the bound, or overwritten by the
// tx, reading pages as needed, and returns the first left (nil: none).
func (c *etcdCursor) snapHead(past func(string) bool) *mvccpb.KeyValue {
	for {
		for len(c.page) > 0 {
			kv := c.page[0]
			if _, own := c.b.t.writes[string(kv.Key)]; past(string(kv.Key)) && !own {
				return kv
			}
			c.page = c.page[1:]
		}
		if !c.more || c.b.t.err != nil {
			return nil
		}
		end := clientv3.GetPrefixRangeEnd(c.b.pfx)
		resp, err := c.b.t.e.cli.Get(c.b.t.ctx, c.from, clientv3.WithRange(end),
			clientv3.WithRev(c.b.t.rev), clientv3.WithLimit(etcdPage))
		if err != nil {
			c.b.t.fail(err)
			return nil
		}
		c.page, c.more = resp.Kvs, resp.More
		if n := len(resp.Kvs); n > 0 {
			c.from = string(resp.Kvs[n-1].Key) + "\x00"
		} else {
			c.more = false
		}
	}
}

// cached is a key read ahead by prefetch.
type cached struct {
	val []byte
	rev int64
}

// prefetchOps is how many reads one prefetch round trip carries: etcd's
// default --max-txn-ops, which every cluster allows.
const prefetchOps = 128

// Prefetch reads keys of one bucket ahead, many per round trip (a Txn of
// Gets at the snapshot's revision), so the Gets that follow are served
// from memory: a packet's Heads or a batch's puts cost a few round trips,
// not one per record.
func (t *etcdTx) Prefetch(bucket []byte, keys [][]byte) {
	pfx := t.e.prefix + string(bucket) + "/"
	var ops []clientv3.Op
	var names []string
	flush := func() {
		if len(ops) == 0 || t.err != nil {
			return
		}
		resp, err := t.e.cli.Txn(t.ctx).Then(ops...).Commit()
		if err != nil {
			t.fail(err)
			return
		}
		if t.cache == nil {
			t.cache = map[string]cached{}
		}
		for i, r := range resp.Responses {
			var c cached
			if kvs := r.GetResponseRange().GetKvs(); len(kvs) == 1 {
				c = cached{val: kvs[0].Value, rev: kvs[0].ModRevision}
			}
			t.cache[names[i]] = c
		}
		ops, names = ops[:0], names[:0]
	}
	for _, k := range keys {
		full := pfx + string(k)
		if _, ok := t.cache[full]; ok {
			continue
		}
		ops = append(ops, clientv3.OpGet(full, clientv3.WithRev(t.rev)))
		names = append(names, full)
		if len(ops) == prefetchOps {
			flush()
		}
	}
	flush()
}

// PrefixKeys calls fn with every key of bucket under each of prefixes
// (without the bucket's prefix), prefix by prefix, many prefixes per
// round trip (a Txn of keys-only range reads at the snapshot's
// revision): a cursor's Seek reads a page of the keys that follow, which
// for many short runs of keys is a round trip and a page each. It
// reports false, calling fn never, when the transaction has buffered
// writes, which a cursor overlays and this does not.
func (t *etcdTx) PrefixKeys(bucket []byte, prefixes [][]byte, fn func(pre, k []byte)) bool {
	if len(t.writes) > 0 {
		return false
	}
	pfx := t.e.prefix + string(bucket) + "/"
	for len(prefixes) > 0 && t.err == nil {
		batch := prefixes[:min(len(prefixes), prefetchOps)]
		prefixes = prefixes[len(batch):]
		ops := make([]clientv3.Op, len(batch))
		for i, p := range batch {
			ops[i] = clientv3.OpGet(pfx+string(p), clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithRev(t.rev))
		}
		resp, err := t.e.cli.Txn(t.ctx).Then(ops...).Commit()
		if err != nil {
			t.fail(err)
			return true
		}
		for i, r := range resp.Responses {
			for _, kv := range r.GetResponseRange().GetKvs() {
				fn(batch[i], kv.Key[len(pfx):])
			}
		}
	}
	return true
}

// CountKeys counts the keys of bucket after after (all of them when
// after is empty) at the snapshot's revision, in one count-only range
// read.
func (t *etcdTx) CountKeys(bucket, after []byte) int {
	pfx := t.e.prefix + string(bucket) + "/"
	from := pfx
	if len(after) > 0 {
		from = pfx + string(after) + "\x00"
	}
	resp, err := t.e.cli.Get(t.ctx, from, clientv3.WithRange(clientv3.GetPrefixRangeEnd(pfx)), clientv3.WithRev(t.rev), clientv3.WithCountOnly())
	if err != nil {
		t.fail(err)
		return 0
	}
	return int(resp.Count)
}
