package lore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"go.etcd.io/etcd/client/pkg/v3/transport"
)

// EnvLocal names the local folder an etcd store's index and lore.json
// live in (Options.LocalDir).
const EnvLocal = "LORE_LOCAL"

// LocalDirFor is the default local folder of an etcd store: the user's
// cache folder, lore/etcd-<hash of the URL>. Every process on one host
// shares it; each host has its own.
func LocalDirFor(url string) (string, error) {
	if env := os.Getenv(EnvLocal); env != "" {
		return env, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(base, "lore", "etcd-"+hex.EncodeToString(sum[:8])), nil
}

// openEtcd opens the store at an etcd store URL. The truth is on the
// cluster; the index (derived) and lore.json are in a local folder. The
// index is kept writable even on a read-only open, since any process may
// bring a derived index up to date; if another process on this host holds
// the local index, this one builds its own beside it and removes it on
// Close. A watch keeps it current with other processes' writes.
func openEtcd(url string, opts *Options, create bool) (*Lore, error) {
	local := opts.LocalDir
	if local == "" {
		var err error
		if local, err = LocalDirFor(url); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(local, 0o755); err != nil {
		return nil, fmt.Errorf("open store %s: local folder: %w", url, err)
	}
	cfg, err := LoadConfig(filepath.Join(local, ConfigFile))
	if err != nil {
		return nil, err
	}
	counter, err := budget.NewCounter(cfg.Encoding)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding: %w", filepath.Join(local, ConfigFile), err)
	}
	so := &store.Options{ReadOnly: opts.ReadOnly && !create, HistoryCap: cfg.HistoryCap, Counters: []store.Counter{counter}, Now: opts.Now, Progress: opts.Progress}
	var eo store.EtcdOptions
	if opts.Etcd != nil {
		eo = *opts.Etcd
	}
	if err := cfg.Etcd.apply(&eo, filepath.Join(local, ConfigFile)); err != nil {
		return nil, err
	}
	eo.MustExist = !create
	st, err := store.OpenEtcd(url, so, &eo)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", err, ErrNoStore)
	}
	if err != nil {
		return nil, err
	}
	l := &Lore{dir: local, name: url, cfg: cfg, st: st, counter: counter, lockTimeout: opts.LockTimeout, shared: true, now: opts.Now}
	err = l.openIndex(false, opts.Progress)
	if errors.Is(err, index.ErrLocked) {
		l.dir, err = os.MkdirTemp(filepath.Dir(local), filepath.Base(local)+"-own-")
		if err == nil {
			l.ownDir = l.dir
			err = l.openIndex(false, opts.Progress)
		}
	}
	if err != nil {
		if l.ix != nil {
			l.ix.Close()
		}
		st.Close()
		return nil, err
	}
	{
		ctx, cancel := context.WithCancel(context.Background())
		l.stopWatch = cancel
		ch := st.Notify(ctx)
		l.watchDone = make(chan struct{})
		go func() {
			defer close(l.watchDone)
			for range ch {
				l.catchUp() // an error here is met again, and reported, by the next read
			}
		}()
	}
	return l, nil
}

// source is what a packet reads: on etcd, the store pinned at its last
// write's revision, so every read of one packet sees one revision while
// other hosts write (the index was caught up to at least that revision
// just before); on bbolt, the store itself, with its identity across
// opens (identity.go).
func (l *Lore) source() packet.Source {
	st, ok := l.st.(*store.Store)
	if !l.shared && ok && l.ident != nil {
		return identityStore{Store: st, id: l.ident}
	}
	if !l.shared || !ok {
		return l.st
	}
	seq, err := st.LastSeq()
	if err != nil {
		return l.st // the packet's first read meets the same error
	}
	return st.At(seq)
}

// apply sets the TLS and auth of eo from lore.json's etcd section.
func (e *EtcdConfig) apply(eo *store.EtcdOptions, path string) error {
	if e == nil {
		return nil
	}
	if e.Username != "" {
		pw, ok := os.LookupEnv(e.PasswordEnv)
		if !ok {
			return fmt.Errorf("%s: etcd.password_env names %s, which is not set: %w", path, e.PasswordEnv, ErrConfig)
		}
		eo.Username, eo.Password = e.Username, pw
	}
	if e.CAFile != "" || e.CertFile != "" {
		info := transport.TLSInfo{TrustedCAFile: e.CAFile, CertFile: e.CertFile, KeyFile: e.KeyFile}
		tc, err := info.ClientConfig()
		if err != nil {
			return fmt.Errorf("%s: etcd TLS files: %v: %w", path, err, ErrConfig)
		}
		eo.TLS = tc
	}
	return nil
}

// etcdURLOf returns the etcd store URL a store folder's lore.json names,
// or "" when it names none (or cannot be read: the bbolt path reports
// that).
func etcdURLOf(dir string) string {
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile))
	if err != nil || cfg.Etcd == nil {
		return ""
	}
	return cfg.Etcd.URL
}
