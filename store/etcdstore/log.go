package etcdstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lorekeep/lore/store"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Changes reads the change log after a revision: the history of the log
// key, through a watch from after+1 up to the key's current revision.
// Every event is one write, so a limit never splits a sequence number.
func (e *etcdEngine) Changes(after uint64, limit int) ([]store.Change, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Get(ctx, e.logKey)
	if err != nil {
		return nil, e.fail("read change log", err)
	}
	if len(resp.Kvs) == 0 || uint64(resp.Kvs[0].ModRevision) <= after {
		return nil, nil
	}
	last := resp.Kvs[0]
	// The usual call comes right after one write: if the log's previous
	// value is at or before after, the newest value is all there is.
	if last.Version == 1 {
		return decodeLog(uint64(last.ModRevision), last.Value)
	}
	prev, err := e.cli.Get(ctx, e.logKey, clientv3.WithRev(last.ModRevision-1))
	if err == nil && len(prev.Kvs) == 1 && uint64(prev.Kvs[0].ModRevision) <= after {
		return decodeLog(uint64(last.ModRevision), last.Value)
	}
	wctx := clientv3.WithRequireLeader(ctx)
	var out []store.Change
	// The log begins at the log key's creation: a compaction before it
	// took nothing of this store's log.
	from := max(int64(after)+1, last.CreateRevision)
	for wr := range e.cli.Watch(wctx, e.logKey, clientv3.WithRev(from)) {
		if wr.CompactRevision != 0 {
			return nil, fmt.Errorf("read change log on etcd cluster %s after %d: etcd compacted its history up to %d: %w",
				strings.Join(e.endpoints, ","), after, wr.CompactRevision, store.ErrCompacted)
		}
		if err := wr.Err(); err != nil {
			return nil, e.fail("read change log", err)
		}
		for _, ev := range wr.Events {
			if ev.Type != clientv3.EventTypePut {
				continue
			}
			cs, err := decodeLog(uint64(ev.Kv.ModRevision), ev.Kv.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, cs...)
			if ev.Kv.ModRevision >= last.ModRevision || (limit > 0 && len(out) >= limit) {
				return out, nil
			}
		}
	}
	return nil, e.fail("read change log", ctx.Err())
}

// Notify watches the log key: every logged write rewrites it.
func (e *etcdEngine) Notify(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for ctx.Err() == nil {
			for wr := range e.cli.Watch(clientv3.WithRequireLeader(ctx), e.logKey) {
				if wr.Err() != nil {
					break
				}
				select {
				case out <- struct{}{}:
				default:
				}
			}
			select { // the watch broke (no leader, a member down): retry
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
			select {
			case out <- struct{}{}: // something may have been missed
			default:
			}
		}
	}()
	return out
}

// Size is the database size an etcd member reports (the first endpoint
// that answers): the whole cluster's keys, every prefix's, not only this
// store's.
func (e *etcdEngine) Size() (int64, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	type answer struct {
		size int64
		err  error
	}
	// Ask every member at once: a member that is down must not hold up
	// the answer of those that are up.
	answers := make(chan answer, len(e.endpoints))
	for _, ep := range e.endpoints {
		go func() {
			st, err := e.cli.Status(ctx, ep)
			if err != nil {
				answers <- answer{err: err}
				return
			}
			answers <- answer{size: st.DbSize}
		}()
	}
	var last error
	for range e.endpoints {
		a := <-answers
		if a.err == nil {
			return a.size, nil
		}
		last = a.err
	}
	return 0, e.fail("status", last)
}
