package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store"
)

// writeFileAtomic writes what write produces to dst, for the -o of any
// command (cmd names it in errors). It refuses a dst inside a store
// directory (storeDir, if the command has one, or any folder above dst
// that holds a lore.bolt) or one that is a store's own file: replacing a
// live lore.bolt loses the store, and a writer waiting on the old file's
// lock would write to an unlinked file. It writes a temporary file in
// dst's folder and renames it into place only once complete and synced,
// so a crash or an error leaves the old dst or the new one, never half.
func writeFileAtomic(cmd, dst, storeDir string, write func(io.Writer) error) error {
	if err := refuseInsideStore(cmd, dst, storeDir); err != nil {
		return err
	}
	if fi, err := os.Stat(dst); err == nil && !fi.Mode().IsRegular() {
		// A device or a pipe (-o /dev/stdout): write to it as it is.
		f, err := os.OpenFile(dst, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s to %s: %w", cmd, dst, err)
		}
		return errors.Join(write(f), f.Close())
	}
	if real, err := filepath.EvalSymlinks(dst); err == nil {
		dst = real // replace the file a symlink points at, not the link
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".lore-"+cmd+"-*")
	if err != nil {
		return fmt.Errorf("%s to %s: %w", cmd, dst, err)
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(outputMode(cmd, storeDir))
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s to %s: %w (the old file, if any, is unchanged)", cmd, dst, err)
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("%s to %s: %w", cmd, dst, err)
	}
	return nil
}

// outputMode is the mode of a file cmd writes: a copy of the store's
// content (backup, export) takes the mode of the store's file, 0600 as
// Lore makes it, so that a copy is no easier to read than the store; a
// pack of a directory's files is 0644, as files written by hand are.
func outputMode(cmd, storeDir string) os.FileMode {
	if cmd == "pack" {
		return 0o644
	}
	if fi, err := os.Stat(filepath.Join(storeDir, lore.BoltFile)); err == nil {
		return fi.Mode().Perm()
	}
	return 0o600
}

// refuseInsideStore says why dst must not be written, if it is inside a
// store directory or is a store file itself.
func refuseInsideStore(cmd, dst, storeDir string) error {
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	// A symlink is judged by what it points at, as that is what the
	// write replaces (writeFileAtomic): a link to another store's
	// lore.bolt is that store's file.
	if real, err := filepath.EvalSymlinks(absDst); err == nil {
		absDst = real
	}
	// Resolve the folder through symlinks; dst itself may not exist yet.
	dir := filepath.Dir(absDst)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var stores []string
	if storeDir != "" {
		if abs, err := filepath.Abs(storeDir); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			stores = append(stores, abs)
		}
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, lore.BoltFile)); err == nil {
			stores = append(stores, d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, st := range stores {
		if rel, err := filepath.Rel(st, dir); err == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("%s to %s: that is inside the store %s; write it somewhere else", cmd, dst, st)
		}
	}
	if fi, err := os.Stat(dst); err == nil {
		for _, st := range stores {
			if live, err := os.Stat(filepath.Join(st, lore.BoltFile)); err == nil && os.SameFile(fi, live) {
				return fmt.Errorf("%s to %s: that is the store's own file; write it somewhere else", cmd, dst)
			}
		}
		if hardLinkedBolt(absDst, fi) {
			return fmt.Errorf("%s to %s: that is another name (a hard link) of a bbolt file, which may be a store's own; write it somewhere else", cmd, dst)
		}
	}
	return nil
}

// hardLinkedBolt reports whether path (fi) is a bbolt file with more than
// one name: a hard link to some store's lore.bolt, wherever that store
// is. (A backup written earlier has one name, and -o may replace it.)
func hardLinkedBolt(path string, fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink < 2 || !fi.Mode().IsRegular() {
		return false
	}
	return store.IsBoltFile(path)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
