package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PutStatus says what a put did to a record.
type PutStatus string

// The outcomes of a put.
const (
	StatusAdded     PutStatus = "added"     // the record did not exist
	StatusUpdated   PutStatus = "updated"   // content changed: version+1, old version in history
	StatusUnchanged PutStatus = "unchanged" // identical content: nothing was written
)

// PutResult reports one record's put.
type PutResult struct {
	NS      string    `json:"ns"`
	ID      string    `json:"id"`
	Status  PutStatus `json:"status"`
	Version int       `json:"version"`
	// Seq is the change-log sequence number of this write; 0 when the
	// record was unchanged.
	Seq uint64 `json:"seq"`
}

// pending is a validated record on its way in.
type pending struct {
	rec    Record
	tokens map[string]TokenCount // nil until counted
	// given holds the Created, Updated and Version a restore keeps.
	given *Record
	// earlier: a restore gives this record again later in the batch, so
	// this is one of its earlier versions.
	earlier bool
}

// Put stores one record. Fields from Created on are set by the store. Tags,
// aliases and keys are sorted and deduplicated. A record whose content (see Record.SHA256)
// equals the stored one is not written and reports StatusUnchanged.
func (s *Store) Put(r Record) (PutResult, error) {
	return s.PutContext(context.Background(), r)
}

// PutContext is Put that writes nothing once ctx is done before the
// commit (see PutManyContext).
func (s *Store) PutContext(ctx context.Context, r Record) (PutResult, error) {
	res, err := s.PutManyContext(ctx, []Record{r}, nil)
	if err != nil {
		var many *putError
		if errors.As(err, &many) && len(many.raw) == 1 {
			return PutResult{}, many.raw[0] // no "record 0" prefix for one record
		}
		return PutResult{}, err
	}
	return res[0], nil
}

// putError lists every bad input of a PutMany.
type putError struct {
	total int
	errs  []error // each names its input: "record 3 (ns/id): ..."
	raw   []error // the same errors without the name
}

func (e *putError) Error() string {
	const show = 100 // the rest stay reachable through Unwrap
	var b strings.Builder
	fmt.Fprintf(&b, "nothing written: %d of %d inputs are bad", len(e.errs), e.total)
	for i, err := range e.errs {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.errs)-show)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(err.Error())
	}
	return b.String()
}

func (e *putError) Unwrap() []error { return e.errs }

// PutMany stores records and then links in one transaction: all of them,
// or, if any is bad, none; the error then lists every bad record (by
// index, namespace and id) and every bad link (the message shows the
// first 100; errors.Unwrap gives all), and wraps ErrInvalid.
// Results are in the order of recs. A record given twice is put twice, in
// order. The records are written, and logged, in key order (namespace,
// then id), which keeps a large batch linear on bbolt.
func (s *Store) PutMany(recs []Record, links []Link) ([]PutResult, error) {
	return s.PutManyContext(context.Background(), recs, links)
}

// PutManyContext is PutMany that gives up, writing nothing, once ctx is
// done before the commit: between token counts, and every few hundred
// records inside the transaction, which it then rolls back. The error
// wraps context.Cause(ctx). A commit already under way completes.
func (s *Store) PutManyContext(ctx context.Context, recs []Record, links []Link) ([]PutResult, error) {
	return s.putMany(ctx, recs, links, false)
}

// RestoreContext is PutManyContext for records read back from an export:
// a record that does not exist before the call keeps the Created,
// Updated and Version it is given (those left zero are set as by Put),
// and the same record given several times with increasing versions is
// its history, oldest first, the last one current. A record that exists
// already is put as PutMany puts it (a new version, stamped now, or
// unchanged), its earlier versions in the batch skipped, so a restore
// never rewrites the past of a record it did not create. A
// version that does not increase is ErrInvalid, naming the record.
func (s *Store) RestoreContext(ctx context.Context, recs []Record, links []Link) ([]PutResult, error) {
	return s.putMany(ctx, recs, links, true)
}

// keyOrder lists the positions of ps in the order of their keys (by
// namespace, then id; the same record twice in its given order). bbolt
// splits no node until a transaction commits and moves the tail of a
// node on each insert, so a large batch written in the caller's order
// (ids out of key order) is quadratic in its size; in key order each
// insert lands after the last.
func keyOrder(ps []pending) []int {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(ps[a].rec.NS, ps[b].rec.NS), strings.Compare(ps[a].rec.ID, ps[b].rec.ID))
	})
	return order
}

func (s *Store) putMany(ctx context.Context, recs []Record, links []Link, restore bool) ([]PutResult, error) {
	if s.opts.ReadOnly {
		return nil, valuef(s.path, "write to store %q: %w (opened for reading)", s.path, ErrReadOnly)
	}
	ps, err := preparePending(recs, links, restore, s.opts.MaxBodyBytes)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 && len(links) == 0 {
		return nil, nil
	}
	if err := s.countPending(ctx, ps); err != nil {
		return nil, err
	}
	cancelled := func() error {
		if ctx.Err() != nil {
			return fmt.Errorf("nothing written to %s, the write was cancelled: %w", s.path, context.Cause(ctx))
		}
		return nil
	}
	if err := cancelled(); err != nil {
		return nil, err
	}
	results, rev, err := s.writePending(ctx, ps, links, restore, cancelled)
	if err != nil {
		return nil, err
	}
	if rev != 0 {
		for i := range results {
			if results[i].Status != StatusUnchanged {
				results[i].Seq = rev // one etcd transaction, one revision
			}
		}
	}
	return results, nil
}

// preparePending normalizes and validates every record and link of a
// write before anything is read or written: one bad one refuses the
// whole write, with every problem named.
func preparePending(recs []Record, links []Link, restore bool, maxBody int) ([]pending, error) {
	ps := make([]pending, len(recs))
	var errs, raw []error
	// bad names a bad input by what, which quotes its namespace ns first.
	bad := func(what, ns string, err error) {
		errs = append(errs, valuef(ns, "%s: %w", what, err))
		raw = append(raw, err)
	}
	for i := range recs {
		r := normalize(recs[i])
		what := fmt.Sprintf("record %d (ns %q, id %q)", i, r.NS, r.ID)
		if err := validRecord(&r, maxBody); err != nil {
			bad(what, r.NS, err)
			continue
		}
		r.SHA256 = contentHash(&r)
		ps[i] = pending{rec: r}
		if restore {
			given := recs[i]
			if given.Version < 0 {
				bad(what, r.NS, valuef(r.ID, "%w: version %d of record %q; versions start at 1", ErrInvalid, given.Version, r.ID))
			}
			ps[i].given = &given
		}
	}
	if restore {
		markEarlier(ps)
	}
	for i, l := range links {
		if err := validLink(l); err != nil {
			bad(fmt.Sprintf("link %d (ns %q: %q -%s-> %q)", i, l.NS, l.From, l.Rel, l.To), l.NS, err)
		}
	}
	if len(errs) > 0 {
		return nil, &putError{total: len(recs) + len(links), errs: errs, raw: raw}
	}
	return ps, nil
}

// markEarlier marks the records of a restore that a later record of the
// same write replaces (same namespace and id).
func markEarlier(ps []pending) {
	last := map[[2]string]int{}
	for i := range ps {
		last[[2]string{ps[i].rec.NS, ps[i].rec.ID}] = i
	}
	for i := range ps {
		ps[i].earlier = last[[2]string{ps[i].rec.NS, ps[i].rec.ID}] != i
	}
}

// countPending counts tokens before the write transaction, so that slow
// counting does not hold up other writers; records whose content is
// already stored are skipped.
func (s *Store) countPending(ctx context.Context, ps []pending) error {
	if len(s.opts.Counters) == 0 {
		return nil
	}
	stored := make([]bool, len(ps))
	err := s.view(func(tx KVTx) error {
		prefetchPending(tx, ps, bucketHeads)
		heads := tx.Bucket(bucketHeads)
		for i := range ps {
			stored[i] = sameSum(heads.Get(key(ps[i].rec.NS, ps[i].rec.ID)), ps[i].rec.SHA256)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.countAll(ctx, ps, stored, ProgressFrom(ctx))
	return nil
}

// writePending writes the records (in key order), then the links, in one
// transaction, telling progress and checking for cancellation as it goes;
// rev is the write's etcd revision (0 on bbolt).
func (s *Store) writePending(ctx context.Context, ps []pending, links []Link, restore bool, cancelled func() error) ([]PutResult, uint64, error) {
	results := make([]PutResult, len(ps))
	rev, err := s.updateRev(func(tx KVTx) error {
		now := s.opts.Now()
		prefetchPending(tx, ps, bucketHeads, bucketBodies, bucketVectors)
		var restored map[[2]string]int // (ns, id) made by this restore -> its version
		if restore {
			restored = map[[2]string]int{}
		}
		progress := ProgressFrom(ctx)
		for n, i := range keyOrder(ps) {
			if n%256 == 0 {
				if err := cancelled(); err != nil {
					return err
				}
				progress("writing", n, len(ps))
			}
			res, err := s.putTx(tx, &ps[i], now, restored)
			if err != nil {
				return fmt.Errorf("put %s/%s: %w", ps[i].rec.NS, ps[i].rec.ID, err)
			}
			results[i] = res
		}
		progress("writing", len(ps), len(ps))
		for i, l := range links {
			if i%1024 == 0 {
				progress("linking", i, len(links))
			}
			if _, err := linkTx(tx, l, now, restore); err != nil {
				return err
			}
		}
		if len(links) > 0 {
			progress("linking", len(links), len(links))
		}
		progress("committing", 0, 1)
		return cancelled()
	})
	return results, rev, err
}

// putTx writes one record inside tx. restored is nil for a put; for a
// restore it holds the records this restore created, whose given stamps
// are kept (see RestoreContext).
func (s *Store) putTx(tx KVTx, p *pending, now time.Time, restored map[[2]string]int) (PutResult, error) {
	r := p.rec
	res := PutResult{NS: r.NS, ID: r.ID}
	heads, bodies := tx.Bucket(bucketHeads), tx.Bucket(bucketBodies)
	k := key(r.NS, r.ID)
	r.Created = now
	r.Version = 1
	res.Status = StatusAdded
	rk := [2]string{r.NS, r.ID}
	prevVersion, keep := restored[rk]
	old := heads.Get(k)
	var prevHead *Record // the head this put replaces, for its secondary keys
	if restored != nil && !keep && old != nil && p.earlier {
		// An earlier version of a record that exists already: its past
		// is the store's own, so only its last line is put.
		prev, err := decodeHead(r.NS, r.ID, old)
		res.Status, res.Version = StatusUnchanged, prev.Version
		return res, err
	}
	keep = keep || restored != nil && old == nil
	if keep && p.given.Version != 0 && p.given.Version <= prevVersion {
		return res, valuef(r.ID, "%w: version %d of record %q comes after version %d: a record's versions must increase, oldest first",
			ErrInvalid, p.given.Version, r.ID, prevVersion)
	}
	if old != nil {
		prev, err := decodeHead(r.NS, r.ID, old)
		if err != nil {
			return res, err
		}
		if prev.SHA256 == r.SHA256 {
			res.Status, res.Version = StatusUnchanged, prev.Version
			return res, nil
		}
		if err := s.retire(tx, &prev, bodies.Get(k)); err != nil {
			return res, err
		}
		prevHead = &prev
		r.Created = prev.Created
		r.Version = prev.Version + 1
		res.Status = StatusUpdated
	}
	r.Updated = now
	if keep {
		applyGiven(&r, p.given, res.Status == StatusAdded)
		restored[rk] = r.Version
	}
	r.BodyBytes = len(r.Body)
	r.Tokens = p.tokens
	if r.Tokens == nil && len(s.opts.Counters) > 0 {
		r.Tokens = s.count(&r) // stored by another put since we looked
	}
	if err := heads.Put(k, encodeHead(&r)); err != nil {
		return res, err
	}
	if err := reindex(tx, prevHead, &r); err != nil {
		return res, err
	}
	var err error
	if r.Body != "" {
		err = bodies.Put(k, encodeBody(r.Body))
	} else {
		err = bodies.Delete(k)
	}
	if err != nil {
		return res, err
	}
	if err := putVectorTx(tx, &r, prevHead != nil && prevHead.hasVector); err != nil {
		return res, err
	}
	res.Version = r.Version
	res.Seq, err = appendChange(tx, OpPut, r.NS, r.ID)
	return res, err
}

// retire moves the version a put replaces into history (body is its
// stored body, nil for none), or with no history kept, drops the
// record's history.
func (s *Store) retire(tx KVTx, prev *Record, body []byte) error {
	if s.opts.HistoryCap == 0 {
		return deletePrefix(tx.Bucket(bucketHistory), prefix(prev.NS, prev.ID))
	}
	if body != nil {
		var err error
		if prev.Body, err = decodeBody(body); err != nil {
			return valuef(prev.ID, "record %q in namespace %q: %w", prev.ID, prev.NS, err)
		}
	}
	if err := withVector(tx, prev, prev.hasVector); err != nil {
		return err
	}
	return s.keepVersion(tx, prev)
}

// applyGiven gives a restored record the times and version its dump
// gave: the creation time only where the record is new to the store.
func applyGiven(r *Record, given *Record, added bool) {
	if !given.Created.IsZero() && added {
		r.Created = given.Created
	}
	if !given.Updated.IsZero() {
		r.Updated = given.Updated
	}
	if given.Version != 0 {
		r.Version = given.Version
	}
}

// keepVersion moves prev into history and evicts the oldest versions
// beyond HistoryCap.
func (s *Store) keepVersion(tx KVTx, prev *Record) error {
	hist := tx.Bucket(bucketHistory)
	pre := prefix(prev.NS, prev.ID)
	if err := hist.Put(append(slices.Clip(pre), u64(uint64(prev.Version))...), encodeVersion(prev)); err != nil {
		return err
	}
	var keys [][]byte
	c := hist.Cursor()
	for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
		keys = append(keys, slices.Clone(k))
	}
	for len(keys) > s.opts.HistoryCap {
		if err := hist.Delete(keys[0]); err != nil {
			return err
		}
		keys = keys[1:]
	}
	return nil
}

// countAll counts the records not already stored, spread over the CPUs
// when there are many (tokenizing is most of a big import's time).
func (s *Store) countAll(ctx context.Context, ps []pending, stored []bool, progress Progress) {
	workers := min(runtime.GOMAXPROCS(0), len(ps)/64+1)
	var wg sync.WaitGroup
	var done atomic.Int64
	// The workers take turns to tell, and only a count past the last one
	// told is told: two workers reaching 64 and 128 at once must not make
	// the count go back.
	var mu sync.Mutex
	told := 0
	tell := func(n int) {
		mu.Lock()
		defer mu.Unlock()
		if n > told {
			told = n
			progress("counting tokens", n, len(ps))
		}
	}
	progress("counting tokens", 0, len(ps)) // the phase starts now
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(ps) && ctx.Err() == nil; i += workers {
				if !stored[i] {
					ps[i].tokens = s.count(&ps[i].rec)
				}
				if n := done.Add(1); n%64 == 0 {
					tell(int(n))
				}
			}
		})
	}
	wg.Wait()
	tell(int(done.Load()))
}

// count runs every counter on r's title, body and summary.
func (s *Store) count(r *Record) map[string]TokenCount {
	m := make(map[string]TokenCount, len(s.opts.Counters))
	for _, c := range s.opts.Counters {
		m[c.Name()] = countWith(c, r)
	}
	return m
}

func countWith(c Counter, r *Record) TokenCount {
	return TokenCount{Title: c.Count(r.Title), Body: c.Count(r.Body), Summary: c.Count(r.Summary)}
}

// sameSum reports whether the encoded head carries the digest sum.
func sameSum(head []byte, sum string) bool {
	if head == nil {
		return false
	}
	r, err := decodeHead("", "", head)
	return err == nil && r.SHA256 == sum
}

// normalize keeps the content fields of r, sorted and deduplicated where
// order carries no meaning, and drops what the store maintains.
func normalize(r Record) Record {
	out := Record{NS: r.NS, ID: r.ID, Kind: r.Kind, Title: r.Title, Body: r.Body, Summary: r.Summary,
		Order: r.Order, Pinned: r.Pinned, Binary: r.Binary, Vector: slices.Clone(r.Vector)}
	if len(r.Tags) > 0 {
		out.Tags = slices.Compact(slices.Sorted(slices.Values(r.Tags)))
	}
	if len(r.Aliases) > 0 {
		out.Aliases = slices.Compact(slices.Sorted(slices.Values(r.Aliases)))
	}
	if len(r.Keys) > 0 {
		out.Keys = slices.Compact(slices.Sorted(slices.Values(r.Keys)))
	}
	if len(r.Meta) > 0 {
		out.Meta = make(map[string]string, len(r.Meta))
		for k, v := range r.Meta {
			out.Meta[k] = v
		}
	}
	return out
}

// contentHash digests every content field of r, each length-prefixed so
// no two different records hash the same bytes.
func contentHash(r *Record) string {
	h := sha256.New()
	var buf []byte
	var chunk [32 << 10]byte
	str := func(s string) {
		buf = binary.AppendUvarint(buf[:0], uint64(len(s)))
		h.Write(buf)
		// Through a small buffer: io.WriteString would copy a whole body.
		for len(s) > 0 {
			n := copy(chunk[:], s)
			h.Write(chunk[:n])
			s = s[n:]
		}
	}
	str("lore-record-v1")
	str(r.NS)
	str(r.ID)
	str(r.Kind)
	str(r.Title)
	str(r.Body)
	str(r.Summary)
	buf = binary.AppendUvarint(buf[:0], uint64(len(r.Tags)))
	h.Write(buf)
	for _, t := range r.Tags {
		str(t)
	}
	keys := sortedKeys(r.Meta)
	buf = binary.AppendUvarint(buf[:0], uint64(len(keys)))
	h.Write(buf)
	for _, k := range keys {
		str(k)
		str(r.Meta[k])
	}
	buf = binary.AppendVarint(buf[:0], r.Order)
	h.Write(buf)
	var flags byte
	if r.Pinned {
		flags |= flagPinned
	}
	if r.Binary {
		flags |= flagBinary
	}
	h.Write([]byte{flags})
	// Names come last and only when there are some, so a record without
	// them keeps the digest it had before they existed.
	if len(r.Aliases)+len(r.Keys) > 0 {
		for _, list := range [][]string{r.Aliases, r.Keys} {
			buf = binary.AppendUvarint(buf[:0], uint64(len(list)))
			h.Write(buf)
			for _, a := range list {
				str(a)
			}
		}
	}
	// The vector too, after a marker no name list can start with, and
	// only when there is one: a record without keeps its digest.
	if len(r.Vector) > 0 {
		str("\x00vector")
		buf = binary.AppendUvarint(buf[:0], uint64(len(r.Vector)))
		for _, x := range r.Vector {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}
