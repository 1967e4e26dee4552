package lore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// A store named by a URL (store.IsURL), etcd://host:port,host:port/prefix,
// is kept by the engine that package store has registered for the URL's
// scheme: package store/etcdstore registers etcd://, and a program that
// opens such stores imports it (cmd/lore does). Nothing here imports an
// engine, so a program that keeps its records in one bbolt file links
// none of a cluster's client. What the engine's servers hold is the
// truth; the index (derived) and lore.json are in a local folder.

// EnvLocal names the local folder a store URL's index and lore.json live
// in (Options.LocalDir).
const EnvLocal = "LORE_LOCAL"

// LocalDirFor is the default local folder of a store URL: the user's
// cache folder, lore/<scheme>-<hash of the URL> (for etcd://,
// lore/etcd-<hash>). Every process on one host shares it; each host has
// its own.
func LocalDirFor(url string) (string, error) {
	if env := os.Getenv(EnvLocal); env != "" {
		return env, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	scheme, _, _ := strings.Cut(url, "://")
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(base, "lore", scheme+"-"+hex.EncodeToString(sum[:8])), nil
}

// openURL opens the store at a store URL, with the engine registered for
// its scheme; without one, the error names the package to import
// (store.ErrNoEngine). The index is kept writable even on a read-only
// open, since any process may bring a derived index up to date; if
// another process on this host holds the local index, this one builds
// its own beside it and removes it on Close. The engine's notice of
// other processes' writes (store.Store.Notify: etcd's watch) keeps it
// current.
func openURL(url string, opts *Options, create bool) (*Lore, error) {
	driver, err := store.DriverFor(url)
	if err != nil {
		return nil, err
	}
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
	cfg, counter, err := loadStoreConfig(local)
	if err != nil {
		return nil, err
	}
	so := &store.Options{ReadOnly: opts.ReadOnly && !create, MustExist: !create, HistoryCap: cfg.HistoryCap, Counters: []store.Counter{counter}, Now: opts.Now, Progress: opts.Progress}
	settings, err := cfg.Etcd.settings(driver, opts.Engine, filepath.Join(local, ConfigFile))
	if err != nil {
		return nil, err
	}
	st, err := driver.Open(url, so, settings)
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
	ctx, cancel := context.WithCancel(context.Background())
	if ch := st.Notify(ctx); ch != nil {
		l.stopWatch = cancel
		l.watchDone = make(chan struct{})
		go func() {
			defer close(l.watchDone)
			for range ch {
				l.catchUp() // an error here is met again, and reported, by the next read
			}
		}()
	} else {
		cancel()
	}
	return l, nil
}

// source is what a packet reads: on a store URL (etcd), the store pinned
// at its last write's sequence number (store.Store.At), so every read of
// one packet sees one revision while other hosts write (the index was
// caught up to at least that revision just before); on bbolt, the store
// itself, with its identity across opens (identity.go).
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

// settings are the engine's settings for a store URL: given (the
// program's, Options.Engine) with the login and TLS files of lore.json's
// etcd section at path applied over them by the engine's driver.
func (e *EtcdConfig) settings(driver store.Driver, given any, path string) (any, error) {
	var access store.Access
	if e != nil {
		if e.Username != "" {
			pw, ok := os.LookupEnv(e.PasswordEnv)
			if !ok {
				return nil, fmt.Errorf("%s: etcd.password_env names %s, which is not set: %w", path, e.PasswordEnv, ErrConfig)
			}
			access.Username, access.Password = e.Username, pw
		}
		access.CAFile, access.CertFile, access.KeyFile = e.CAFile, e.CertFile, e.KeyFile
	}
	settings, err := driver.Settings(given, access)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", path, err, ErrConfig)
	}
	return settings, nil
}

// storeURLOf returns the store URL a store folder's lore.json names (its
// etcd section's url), or "" when it names none (or cannot be read: the
// bbolt path reports that).
func storeURLOf(dir string) string {
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile))
	if err != nil || cfg.Etcd == nil {
		return ""
	}
	return cfg.Etcd.URL
}
