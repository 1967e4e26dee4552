// Package etcdstore keeps a Lore store in an etcd cluster, for users who
// outgrow one machine: the same records, links, versions and change log
// as the bbolt file of package store, under a key prefix of the cluster,
// with every write one etcd transaction. It is package store's Engine
// for store URLs etcd://host:port,host:port/prefix.
//
// It registers itself with package store for the scheme etcd:// (as a
// database/sql driver does), so a program that imports it, if only for
// the side effect, opens etcd stores by URL through store.OpenURL and
// lore.Open:
//
//	import _ "github.com/lorekeep/lore/store/etcdstore"
//
//	l, err := lore.Open("etcd://10.0.0.5:2379,10.0.0.6:2379/lore", nil)
//
// Settings (timeouts, the cluster's limits, login, TLS) are an *Options,
// given to Open, to store.OpenURL, or to the facade as
// lore.Options.Engine. A program that does not import this package links
// none of etcd's client or gRPC, and opening an etcd:// URL there fails
// with store.ErrNoEngine, naming this package.
//
// # Layout
//
// Bucket b's key k is prefix+b+"/"+k under the store URL's prefix: the
// layout of package store's doc. Each write is one etcd Txn whose
// buffered writes commit only if the log key (prefix+"log") still has
// the mod revision read at the write's snapshot; on a conflict the write
// runs again. The log key's value is the write's change entries, so its
// history is the change log and a change's sequence number is the
// revision of its write: it only grows, with gaps, and the entries of one
// write share it. A write that would pass the cluster's --max-txn-ops or
// --max-request-bytes is refused whole (store.ErrTooLarge). There is no
// file lock; ReadOnly only refuses writes. Backup refuses: the cluster's
// own snapshot (etcdctl snapshot save) or lore export backs a store up.
//
// The engine's files: engine.go (opening, snapshots, writes and their
// compares), tx.go (a snapshot as a store.KVTx: buffered writes,
// cursors, the reads ahead of store.BatchReader, the change log of
// store.ChangeLogTx), log.go (the change log's history, the watch behind
// Notify, the database size).
package etcdstore

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Options configure an etcd store (Open). Zero fields mean the defaults
// stated on them.
type Options struct {
	// DialTimeout bounds the first connection; default 5s.
	DialTimeout time.Duration
	// RequestTimeout bounds each read and each write transaction; a
	// cluster without quorum fails a write after it. Default 5s.
	RequestTimeout time.Duration
	// MaxTxnOps and MaxRequestBytes, when set, are the cluster's limits
	// on one transaction (etcd's --max-txn-ops, default 128, and
	// --max-request-bytes, default 1.5 MiB): a write that needs more is
	// refused before it is sent. Unset, the cluster refuses it. Either
	// way nothing is written and the error (store.ErrTooLarge) names the
	// limit.
	MaxTxnOps       int
	MaxRequestBytes int
	// Username and Password log in to a cluster with auth enabled.
	Username, Password string
	// TLS, when set, is used to reach the members (https endpoints).
	TLS *tls.Config
}

// DefaultTimeout is the default of Options' timeouts.
const DefaultTimeout = 5 * time.Second

// scheme is the store URL scheme this engine registers.
const scheme = "etcd"

func init() { store.Register(scheme, driver{}) }

// ParseURL splits a store URL etcd://host:port,host:port/prefix into
// endpoints and key prefix (which ends in "/"; "/" alone when the URL has
// no path).
func ParseURL(u string) (endpoints []string, prefix string, err error) {
	rest, ok := strings.CutPrefix(u, scheme+"://")
	if !ok {
		return nil, "", badvalue.Errorf(u, "%w: store URL %q does not start with etcd://", store.ErrInvalid, u)
	}
	hosts, path, _ := strings.Cut(rest, "/")
	for _, h := range strings.Split(hosts, ",") {
		if _, port, err := net.SplitHostPort(h); err != nil || port == "" {
			return nil, "", badvalue.Errorf(u, "%w: store URL %q: endpoint %q is not host:port (want etcd://host:port,host:port/prefix)", store.ErrInvalid, u, h)
		}
		endpoints = append(endpoints, h)
	}
	path = strings.Trim(path, "/")
	for _, seg := range strings.Split(path, "/") {
		if path != "" && (seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\x00 ")) {
			return nil, "", badvalue.Errorf(u, "%w: store URL %q: key prefix %q has an empty, dot or space segment", store.ErrInvalid, u, path)
		}
	}
	prefix = "/" + path + "/"
	if path == "" {
		prefix = "/"
	}
	return endpoints, prefix, nil
}

// IsURL reports whether s names an etcd store rather than a folder.
func IsURL(s string) bool { return strings.HasPrefix(s, scheme+"://") }

// Open opens the store at an etcd store URL
// (etcd://host:port,host:port/prefix), creating its format key on first
// use unless opts.ReadOnly or opts.MustExist is set (then a prefix that
// holds no store is store.ErrNotFound). There is no file lock: etcd
// serialises writers, so any number of processes on any hosts may open
// one store. opts.LockTimeout does not apply.
func Open(url string, opts *store.Options, eo *Options) (*store.Store, error) {
	return store.NewStore(url, opts, func(o store.Options) (store.Engine, error) {
		endpoints, prefix, err := ParseURL(url)
		if err != nil {
			return nil, err
		}
		var e Options
		if eo != nil {
			e = *eo
		}
		if e.DialTimeout <= 0 {
			e.DialTimeout = DefaultTimeout
		}
		if e.RequestTimeout <= 0 {
			e.RequestTimeout = DefaultTimeout
		}
		cli, err := clientv3.New(clientv3.Config{
			Endpoints:          endpoints,
			DialTimeout:        e.DialTimeout,
			Username:           e.Username,
			TLS:                e.TLS,
			Password:           e.Password,
			Logger:             zap.NewNop(),
			MaxCallSendMsgSize: maxSendBytes,
		})
		if err != nil {
			return nil, fmt.Errorf("open store %s: %w", url, err)
		}
		eng := &etcdEngine{cli: cli, url: url, endpoints: endpoints, prefix: prefix, logKey: prefix + "log", o: e}
		if err := eng.init(o.ReadOnly || o.MustExist); err != nil {
			cli.Close()
			return nil, err
		}
		return eng, nil
	})
}

// driver is the store.Driver of etcd:// URLs.
type driver struct{}

// Open opens with settings nil or an *Options.
func (driver) Open(url string, opts *store.Options, settings any) (*store.Store, error) {
	switch eo := settings.(type) {
	case nil:
		return Open(url, opts, nil)
	case *Options:
		return Open(url, opts, eo)
	default:
		return nil, fmt.Errorf("open store %s: %w: the etcd engine's settings are an *etcdstore.Options, not a %T", url, store.ErrInvalid, settings)
	}
}

func (driver) CheckURL(url string) error {
	_, _, err := ParseURL(url)
	return err
}

// Settings applies a configuration's login and TLS files over settings:
// the login where access names a user, TLS (read through etcd's
// transport package, as etcd's own tools read it) where it names a CA
// file or a client certificate.
func (driver) Settings(settings any, access store.Access) (any, error) {
	var eo Options
	switch s := settings.(type) {
	case nil:
	case *Options:
		if s != nil {
			eo = *s
		}
	default:
		return settings, nil // Open refuses it
	}
	if access.Username != "" {
		eo.Username, eo.Password = access.Username, access.Password
	}
	if access.CAFile != "" || access.CertFile != "" {
		info := transport.TLSInfo{TrustedCAFile: access.CAFile, CertFile: access.CertFile, KeyFile: access.KeyFile}
		tc, err := info.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("etcd TLS files: %v", err)
		}
		eo.TLS = tc
	}
	return &eo, nil
}
