package store

import (
	"fmt"
	"strings"
	"sync"
)

// A store kept elsewhere than in one file is named by a URL, whose
// scheme names its engine: etcd://host:port,host:port/prefix for an etcd
// cluster. OpenURL opens it with the Driver its engine's package
// registered for the scheme, as database/sql opens a data source with
// the driver registered under its name. A program links an engine by
// importing its package, for the side effect if it names nothing in it:
//
//	import _ "github.com/lorekeep/lore/store/etcdstore"
//
// A program that imports none links none of an engine's dependencies (a
// cluster's client, gRPC), and OpenURL of its scheme says which package
// to import.

// Driver opens the stores of one URL scheme: an engine's package
// registers one from its init (Register). It is for engine implementers;
// a program opens a URL with OpenURL, or DriverFor where it must first
// check the URL or apply a configuration's access.
type Driver interface {
	// Open opens the store at url, creating it unless opts.ReadOnly or
	// opts.MustExist is set (NewStore). settings are the engine's own,
	// of the type its package documents; nil means its defaults.
	Open(url string, opts *Options, settings any) (*Store, error)
	// CheckURL reports whether url is well formed for the engine,
	// without reaching the store; the error matches ErrInvalid.
	CheckURL(url string) error
	// Settings returns settings (nil, or the engine's own type) with
	// access applied over them: a login where access names a user, TLS
	// where it names files, which it reads now. It fails only on access
	// it cannot apply (a TLS file it cannot read); settings of another
	// type are returned as they are, for Open to refuse.
	Settings(settings any, access Access) (any, error)
}

// Access is how to reach a store that an engine keeps on other machines,
// as a program's configuration gives it (lore.json's etcd section): a
// login, and PEM files for TLS. Driver.Settings applies it.
type Access struct {
	// Username and Password log in to servers that ask for a login;
	// an empty Username leaves the settings' login as it is.
	Username, Password string
	// CAFile, CertFile and KeyFile are PEM files: the CA that signed the
	// servers' certificates, and a client certificate and its key where
	// the servers ask for one. With none named, the settings' TLS stays.
	CAFile, CertFile, KeyFile string
}

// engines are the Lore engines a store URL may name, by scheme, with the
// package that registers each: what a program that has not imported it
// is told to import.
var engines = map[string]string{
	"etcd": "github.com/lorekeep/lore/store/etcdstore",
}

var drivers struct {
	sync.RWMutex
	m map[string]Driver
}

// Register makes d the Driver of store URLs whose scheme is scheme (the
// part before "://"). An engine's package calls it from its init. It
// panics if scheme is registered twice, or d is nil, as database/sql's
// Register does.
func Register(scheme string, d Driver) {
	drivers.Lock()
	defer drivers.Unlock()
	if d == nil {
		panic("store: Register of a nil driver for " + scheme + "://")
	}
	if _, dup := drivers.m[scheme]; dup {
		panic("store: Register called twice for " + scheme + "://")
	}
	if drivers.m == nil {
		drivers.m = map[string]Driver{}
	}
	drivers.m[scheme] = d
}

// scheme is the part of s before "://", if s has one.
func scheme(s string) (string, bool) {
	sch, _, ok := strings.Cut(s, "://")
	return sch, ok && sch != "" && !strings.ContainsAny(sch, `/\`)
}

// IsURL reports whether s names a store by URL rather than a folder or
// file: its scheme is one a Lore engine has, or one a linked engine
// registered.
func IsURL(s string) bool {
	sch, ok := scheme(s)
	if !ok {
		return false
	}
	if _, known := engines[sch]; known {
		return true
	}
	drivers.RLock()
	defer drivers.RUnlock()
	_, ok = drivers.m[sch]
	return ok
}

// DriverFor returns the Driver registered for url's scheme. When none
// is, the error names the URL and the package to import, and matches
// ErrNoEngine for a scheme of a Lore engine (ErrInvalid for another).
func DriverFor(url string) (Driver, error) {
	sch, ok := scheme(url)
	if ok {
		drivers.RLock()
		d := drivers.m[sch]
		drivers.RUnlock()
		if d != nil {
			return d, nil
		}
		if pkg, known := engines[sch]; known {
			return nil, valuef(url, "store URL %q: the %s engine is not linked into this program (import _ %q): %w", url, sch, pkg, ErrNoEngine)
		}
	}
	return nil, valuef(url, "%w: store URL %q: its scheme names no store engine this program links", ErrInvalid, url)
}

// OpenURL opens the store at a URL with the Driver registered for its
// scheme (see Register), creating it unless opts.ReadOnly or
// opts.MustExist is set. settings are the engine's own, of the type its
// package documents (*etcdstore.Options for etcd://); nil means its
// defaults.
func OpenURL(url string, opts *Options, settings any) (*Store, error) {
	d, err := DriverFor(url)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return d.Open(url, opts, settings)
}
