package store

import (
	"errors"
	"strings"
	"testing"
)

// withoutDriver runs fn as in a program that has not linked the engine
// of scheme (this test binary links etcd's, through etcdtest).
func withoutDriver(t *testing.T, scheme string, fn func()) {
	drivers.Lock()
	d, had := drivers.m[scheme]
	delete(drivers.m, scheme)
	drivers.Unlock()
	defer func() {
		drivers.Lock()
		if had {
			drivers.m[scheme] = d
		}
		drivers.Unlock()
	}()
	fn()
}

// An etcd:// URL in a program without the etcd engine is refused with
// an error that names the URL and the package to import.
func TestOpenURLWithoutEngineSaysWhatToImport(t *testing.T) {
	const url = "etcd://127.0.0.1:2379/lore"
	withoutDriver(t, "etcd", func() {
		if !IsURL(url) {
			t.Errorf("IsURL(%q) = false without the engine; want true (it is a store URL all the same)", url)
		}
		_, err := OpenURL(url, nil, nil)
		if !errors.Is(err, ErrNoEngine) || !strings.Contains(err.Error(), url) ||
			!strings.Contains(err.Error(), `import _ "github.com/lorekeep/lore/store/etcdstore"`) {
			t.Errorf("OpenURL without the etcd engine: %v; want ErrNoEngine naming the URL and the package", err)
		}
		var bv interface{ BadValue() string }
		if !errors.As(err, &bv) || bv.BadValue() != url {
			t.Errorf("OpenURL without the etcd engine: the error names no bad value %q", url)
		}
	})
}

type nopDriver struct{}

func (nopDriver) Open(string, *Options, any) (*Store, error) { return nil, errors.New("nop") }
func (nopDriver) CheckURL(string) error                      { return nil }
func (nopDriver) Settings(s any, _ Access) (any, error)      { return s, nil }

// A registered scheme names a store URL and reaches its driver; others
// are folders to IsURL and ErrInvalid to DriverFor; a scheme registered
// twice panics.
func TestRegister(t *testing.T) {
	Register("lore-test", nopDriver{})
	defer withoutDriver(t, "lore-test", func() {})
	for s, want := range map[string]bool{
		"lore-test://a/b": true,
		"etcd://h:1/p":    true,
		"other://h:1/p":   false,
		"/var/lore/.lore": false,
		".lore":           false,
		"C:\\lore":        false,
		"a/b://c":         false,
	} {
		if got := IsURL(s); got != want {
			t.Errorf("IsURL(%q) = %v; want %v", s, got, want)
		}
	}
	if d, err := DriverFor("lore-test://a/b"); err != nil || d != (nopDriver{}) {
		t.Errorf("DriverFor a registered scheme: %v, %v", d, err)
	}
	if _, err := DriverFor("other://h:1/p"); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrNoEngine) {
		t.Errorf("DriverFor an unknown scheme: %v; want ErrInvalid", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Register twice did not panic")
		}
	}()
	Register("lore-test", nopDriver{})
}

// MustExist refuses to create a store that is not there, on bbolt as on
// an engine of a URL, and opens one that is.
func TestOpenMustExist(t *testing.T) {
	path := t.TempDir() + "/lore.bolt"
	if _, err := Open(path, &Options{MustExist: true}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), path) {
		t.Fatalf("open a missing file with MustExist: %v; want ErrNotFound naming it", err)
	}
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path, &Options{MustExist: true})
	if err != nil {
		t.Fatalf("open an existing file with MustExist: %v", err)
	}
	s.Close()
}
