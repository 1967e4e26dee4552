package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lorekeep/lore/store"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// maxSendBytes is the largest request the client sends, so that the
// cluster's own --max-request-bytes is the limit a user meets.
const maxSendBytes = 1 << 30

// etcdEngine keeps the store's buckets in an etcd cluster, under one key
// prefix: bucket b's key k is prefix+b+"/"+k, the same layout as bbolt.
// The change log is one key, prefix+"log", rewritten by every write with
// that write's entries: its history is the log, and a change's sequence
// number is the revision of its write.
type etcdEngine struct {
	cli       *clientv3.Client
	url       string
	endpoints []string
	prefix    string
	logKey    string
	o         Options
	pin       int64 // a view's fixed revision (At), 0 for the live store
}

var _ store.Engine = (*etcdEngine)(nil)

// init writes the format key of a new store, unless mustExist, and
// checks an existing one.
func (e *etcdEngine) init(mustExist bool) error {
	ctx, cancel := e.ctx()
	defer cancel()
	k := e.prefix + store.FormatBucket + "/" + store.FormatKey
	resp, err := e.cli.Get(ctx, k)
	if err != nil {
		return e.fail("open", err)
	}
	if len(resp.Kvs) == 0 {
		if mustExist {
			return fmt.Errorf("open store %s: no lore store under this prefix (no %s key; none was created there): %w", e.url, k, store.ErrNotFound)
		}
		_, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
			Then(clientv3.OpPut(k, string(store.NewFormat()))).Commit()
		if err != nil {
			return e.fail("open", err)
		}
		return nil
	}
	if err := store.CheckFormat(resp.Kvs[0].Value); err != nil {
		return fmt.Errorf("open store %s: %w", e.url, err)
	}
	return nil
}

func (e *etcdEngine) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), e.o.RequestTimeout)
}

// fail wraps an etcd error with the store URL and, for a cluster that did
// not answer, ErrUnavailable with the endpoints and "no quorum".
func (e *etcdEngine) fail(what string, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, rpctypes.ErrTimeout),
		errors.Is(err, rpctypes.ErrNoLeader), errors.Is(err, rpctypes.ErrTimeoutDueToLeaderFail),
		errors.Is(err, rpctypes.ErrTimeoutDueToConnectionLost),
		status.Code(err) == codes.Unavailable, status.Code(err) == codes.DeadlineExceeded:
		return fmt.Errorf("%s on etcd cluster %s: no quorum or no endpoint answering within %s (%v): %w",
			what, strings.Join(e.endpoints, ","), e.o.RequestTimeout, err, store.ErrUnavailable)
	case errors.Is(err, rpctypes.ErrLeaderChanged):
		return fmt.Errorf("%s on etcd cluster %s: the leader changed during the request (%v); try again: %w",
			what, strings.Join(e.endpoints, ","), err, store.ErrUnavailable)
	case errors.Is(err, rpctypes.ErrTooManyOps):
		return fmt.Errorf("%s on etcd cluster %s: the transaction has more operations than the cluster's --max-txn-ops allows (%v): %w",
			what, strings.Join(e.endpoints, ","), err, store.ErrTooLarge)
	case errors.Is(err, rpctypes.ErrRequestTooLarge):
		return fmt.Errorf("%s on etcd cluster %s: the transaction is larger than the cluster's --max-request-bytes allows (%v): %w",
			what, strings.Join(e.endpoints, ","), err, store.ErrTooLarge)
	case errors.Is(err, rpctypes.ErrCompacted):
		return fmt.Errorf("%s on etcd cluster %s: %v: %w", what, strings.Join(e.endpoints, ","), err, store.ErrCompacted)
	}
	return fmt.Errorf("%s on etcd cluster %s: %w", what, strings.Join(e.endpoints, ","), err)
}

func (e *etcdEngine) Close() error {
	if e.pin != 0 {
		return nil // a view shares its store's client
	}
	return e.cli.Close()
}

// At is the engine pinned at revision rev: every snapshot reads there.
func (e *etcdEngine) At(rev uint64) store.Engine {
	past := *e
	past.pin = int64(rev)
	return &past
}

// Identity is the client and the prefix, which a view (At) shares.
func (e *etcdEngine) Identity() any { return etcdIdentity{e.cli, e.prefix} }

type etcdIdentity struct {
	cli    *clientv3.Client
	prefix string
}

// View runs fn on a snapshot: every read inside it is at the revision of
// its first read.
func (e *etcdEngine) View(fn func(store.KVTx) error) error {
	ctx, cancel := e.ctx()
	defer cancel()
	tx, err := e.begin(ctx)
	for i := 0; err != nil && errors.Is(err, store.ErrUnavailable) && i < 3 && ctx.Err() == nil; i++ {
		// fn has not run: trying the snapshot's first read again is
		// safe (a leader change fails it once).
		time.Sleep(200 * time.Millisecond)
		tx, err = e.begin(ctx)
	}
	if err != nil {
		return err
	}
	err = fn(tx)
	if tx.err != nil {
		return tx.err
	}
	return err
}

// maxConflicts bounds the retries of a write whose snapshot another
// writer changed before it committed.
const maxConflicts = 200

// Update runs fn on a snapshot with its writes buffered, then commits
// them in one Txn. A write that logs changes commits only if the log key
// still has the mod revision it had at the snapshot (every logged write
// rewrites it, so no write in between is lost), and only if the store's
// format is unchanged when it read it; one that logs none (SetTokens, a
// batch of the format upgrade) commits only if every key it read with
// Get is unchanged (keys read through a cursor are not tracked: the
// store's upgrade reads the heads it depends on with Get). On a conflict fn
// runs again on a new snapshot. It returns the write's
// revision, which is the sequence number of its changes.
func (e *etcdEngine) Update(fn func(store.KVTx) error) (uint64, error) {
	readRetries := 0
	for i := range maxConflicts {
		rev, ok, err := e.try(fn)
		var before *beforeCommit
		if errors.As(err, &before) && errors.Is(err, store.ErrUnavailable) && readRetries < 3 {
			// The snapshot's reads failed (a leader change): nothing was
			// sent to commit, so running the write again is safe.
			readRetries++
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if before != nil {
			err = before.err
		}
		if err != nil || ok {
			return rev, err
		}
		if i >= 2 { // many writers on one store: spread the retries
			time.Sleep(time.Duration(rand.IntN(1000*min(i, 20))) * time.Microsecond)
		}
	}
	return 0, fmt.Errorf("write on etcd cluster %s: gave up after %d conflicts with other writers: %w",
		strings.Join(e.endpoints, ","), maxConflicts, store.ErrUnavailable)
}

func (e *etcdEngine) try(fn func(store.KVTx) error) (uint64, bool, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	tx, err := e.begin(ctx)
	if err != nil {
		return 0, false, &beforeCommit{err}
	}
	tx.writing = true
	err = fn(tx)
	if tx.err != nil {
		return 0, false, &beforeCommit{tx.err}
	}
	if err != nil {
		return 0, false, err
	}
	ops, size := tx.ops()
	if len(ops) == 0 {
		return 0, true, nil
	}
	var cmps []clientv3.Cmp
	formatKey := e.prefix + store.FormatBucket + "/" + store.FormatKey
	if len(tx.changes) > 0 {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(e.logKey), "=", tx.logRev))
		// A put decides by the store's format whether it writes the
		// secondary keys: an upgrade committed since its snapshot makes
		// it run again, with them.
		if rev, ok := tx.reads[formatKey]; ok {
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(formatKey), "=", rev))
		}
	} else {
		for k, rev := range tx.reads {
			cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev))
		}
	}
	if n := max(len(ops), len(cmps)); e.o.MaxTxnOps > 0 && n > e.o.MaxTxnOps {
		return 0, false, fmt.Errorf("write on etcd cluster %s: it needs %d operations in one transaction, the cluster allows %d (etcd --max-txn-ops): nothing written; split the write or raise the limit: %w",
			strings.Join(e.endpoints, ","), n, e.o.MaxTxnOps, store.ErrTooLarge)
	}
	if e.o.MaxRequestBytes > 0 && size > e.o.MaxRequestBytes {
		return 0, false, fmt.Errorf("write on etcd cluster %s: it needs %d bytes in one transaction, the cluster allows %d (etcd --max-request-bytes): nothing written; split the write or raise the limit: %w",
			strings.Join(e.endpoints, ","), size, e.o.MaxRequestBytes, store.ErrTooLarge)
	}
	resp, err := e.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
	if err != nil {
		return 0, false, e.fail("write", err)
	}
	if !resp.Succeeded {
		return 0, false, nil
	}
	return uint64(resp.Header.Revision), true, nil
}

// beforeCommit marks a write's failure in its reads, before anything was
// sent to commit.
type beforeCommit struct{ err error }

func (b *beforeCommit) Error() string { return b.err.Error() }
func (b *beforeCommit) Unwrap() error { return b.err }

// begin starts a snapshot at the current revision, reading the log key's
// mod revision (the store's last sequence number) on the way.
func (e *etcdEngine) begin(ctx context.Context) (*etcdTx, error) {
	var opts []clientv3.OpOption
	if e.pin != 0 {
		opts = append(opts, clientv3.WithRev(e.pin))
	}
	resp, err := e.cli.Get(ctx, e.logKey, opts...)
	if err != nil {
		return nil, e.fail("read", err)
	}
	tx := &etcdTx{e: e, ctx: ctx, rev: resp.Header.Revision}
	if e.pin != 0 {
		tx.rev = e.pin
	}
	if len(resp.Kvs) == 1 {
		tx.logRev = resp.Kvs[0].ModRevision
		tx.logValue = resp.Kvs[0].Value
	}
	return tx, nil
}

// Backup refuses: the cluster's own snapshot backs an etcd store up.
func (e *etcdEngine) Backup(io.Writer) (int64, error) {
	return 0, fmt.Errorf("backup of %s: %w: an etcd store is backed up by the cluster's own snapshot (etcdctl snapshot save) or by lore export", e.url, store.ErrInvalid)
}

// UpgradeLimits keep a batch within the cluster's limits on one
// transaction (etcd's defaults where the options name none), with room
// for the format key and the compares.
func (e *etcdEngine) UpgradeLimits() (keys, size, heads int) {
	keys, size = 128, 3<<19 // etcd's defaults: --max-txn-ops, --max-request-bytes
	if e.o.MaxTxnOps > 0 {
		keys = e.o.MaxTxnOps
	}
	if e.o.MaxRequestBytes > 0 {
		size = e.o.MaxRequestBytes
	}
	return max(keys-2, 1), size / 2, 2048
}
