package lore

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/lorekeep/lore/store"
)

// An identity for a bbolt store that outlives one open of it.
//
// Packets keep work across requests under the store's identity and its
// sequence number (packet.Versioned: the names of a namespace, read once
// and kept). store.Store's identity is its open handle, so every open
// starts those caches again: a server that gives its store back to
// other processes and opens it again (server/hold.go) would read every
// namespace's names anew after each turn, even when nothing changed.
//
// So an open of a bbolt store in this process takes the identity the
// last open of the same file had, when nothing can have changed it in
// between: the file is the same (device and inode), with the size and
// modification time it had when that open closed, and the change log is
// at the sequence number it was then. Any commit in between, by any
// process, rewrites bbolt's meta page and so the modification time;
// records change only with the sequence number. A writable open commits
// as it opens (bbolt's check of its buckets), so only read-only opens
// find a match; the identity of a write's open is new.

// fileIdentity is the identity packets see (a pointer: comparable, and
// never equal to another store's).
type fileIdentity struct{ path string }

// keptIdentity is what the last open of a file left at its close.
type keptIdentity struct {
	id   *fileIdentity
	info os.FileInfo // the file after the close
	seq  uint64      // the change log's last sequence number then
}

var keptIdentities struct {
	sync.Mutex
	m map[string]keptIdentity // by the bbolt file's absolute path
}

// identityStore is a bbolt store as packets read it: every method of the
// store, with the identity of the file across opens.
type identityStore struct {
	*store.Store
	id *fileIdentity
}

// Identity is the store's identity across this process's opens of it.
func (s identityStore) Identity() any { return s.id }

// boltPath is the absolute path of dir's bbolt file ("" if unknown).
func boltPath(dir string) string {
	p, err := filepath.Abs(filepath.Join(dir, BoltFile))
	if err != nil {
		return ""
	}
	return p
}

// takeIdentity gives a bbolt open the identity of the last open of the
// same, unchanged file, or a new one.
func (l *Lore) takeIdentity() {
	path := boltPath(l.dir)
	l.ident = &fileIdentity{path: path}
	if path == "" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	seq, err := l.st.LastSeq()
	if err != nil {
		return
	}
	keptIdentities.Lock()
	defer keptIdentities.Unlock()
	k, ok := keptIdentities.m[path]
	if ok && k.seq == seq && os.SameFile(k.info, fi) && k.info.Size() == fi.Size() && k.info.ModTime().Equal(fi.ModTime()) {
		l.ident = k.id
	}
}

// keepIdentity leaves this open's identity for the next open of the
// file, with the file as it is after the close and the sequence number
// read just before it.
func (l *Lore) keepIdentity(seq uint64) {
	path := boltPath(l.dir)
	if l.ident == nil || path == "" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	keptIdentities.Lock()
	defer keptIdentities.Unlock()
	if keptIdentities.m == nil {
		keptIdentities.m = map[string]keptIdentity{}
	}
	keptIdentities.m[path] = keptIdentity{id: l.ident, info: fi, seq: seq}
}
