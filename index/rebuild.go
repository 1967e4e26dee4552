package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/lorekeep/lore/store"
)

// Rebuild replaces the index in dir with a fresh one holding every record
// src yields, with watermark seq. src calls fn once per record (as
// store.ForEach does) and stops at the first error fn returns.
//
// The new index is built in a temporary directory beside dir, persisted,
// and renamed into place; the old one is removed after. A crash during the
// build leaves the old index untouched; a crash between the two renames
// leaves no index at dir (Open then creates an empty one at watermark 0),
// never a half-built one.
//
// The caller must hold the store's write lock (so seq stays the store's
// last sequence) and must have closed every Index open on dir.
func Rebuild(dir string, src func(fn func(store.Record) error) error, seq uint64) error {
	if src == nil {
		return fmt.Errorf("rebuild index %s: no record source: %w", dir, ErrInvalid)
	}
	return buildAndSwap(dir, func(ix *Index) error {
		w := ix.newWriter(-1)
		err := src(func(r store.Record) error {
			if err := checkKey(r.NS, r.ID); err != nil {
				return err
			}
			return w.put(&r)
		})
		if err != nil {
			w.wait()
			return err
		}
		return w.finish(nil)
	}, seq)
}

// tmpPrefix names the temporary directories of buildAndSwap, beside the
// index: ".<base>.build-*".
func tmpPrefix(dir string) string { return "." + filepath.Base(dir) + ".build-" }

// buildAndSwap creates an index in a temporary directory next to dir, lets
// fill write into it, writes the format and watermark in a last batch, then
// swaps it in with a rename.
func buildAndSwap(dir string, fill func(*Index) error, seq uint64) (err error) {
	if dir == "" {
		return fmt.Errorf("index directory is empty (want a path such as .lore/index): %w", ErrInvalid)
	}
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("build index %s: %w", dir, err)
	}
	removeStale(dir)

	tmp, err := os.MkdirTemp(parent, tmpPrefix(dir))
	if err != nil {
		return fmt.Errorf("build index %s: %w", dir, err)
	}
	defer func() {
		if rmErr := os.RemoveAll(tmp); rmErr != nil && err == nil {
			err = fmt.Errorf("build index %s: remove temporary %s: %w", dir, tmp, rmErr)
		}
	}()

	newDir := filepath.Join(tmp, "index")
	if err := build(newDir, fill, seq); err != nil {
		return fmt.Errorf("build index %s: %w", dir, err)
	}
	if err := syncTree(newDir); err != nil {
		return fmt.Errorf("build index %s: sync: %w", dir, err)
	}

	// Move the old index aside (into tmp, removed with it), then the new
	// one in. Both are renames within one directory: atomic on POSIX.
	switch _, statErr := os.Lstat(dir); {
	case statErr == nil:
		if err := os.Rename(dir, filepath.Join(tmp, "old")); err != nil {
			return fmt.Errorf("build index %s: move the old index aside: %w", dir, err)
		}
	case !errors.Is(statErr, fs.ErrNotExist):
		return fmt.Errorf("build index %s: %w", dir, statErr)
	}
	if err := os.Rename(newDir, dir); err != nil {
		return fmt.Errorf("build index %s: move the new index in: %w", dir, err)
	}
	return syncDir(parent)
}

// build writes a complete index into newDir, which must not exist.
func build(newDir string, fill func(*Index) error, seq uint64) error {
	bi, err := bleve.NewUsing(newDir, newMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return err
	}
	b, err := newBuilder(bi.Mapping(), formatVersion)
	if err != nil {
		bi.Close()
		return err
	}
	ix := &Index{dir: newDir, b: b, bi: bi}
	if err := fill(ix); err != nil {
		bi.Close()
		return err
	}
	// The format key goes last with the watermark: an index without it
	// never passed this point and is refused by Open.
	batch := bi.NewBatch()
	batch.SetInternal(keyWatermark, encodeWatermark(seq))
	batch.SetInternal(keyFormat, []byte(formatVersion))
	if err := bi.Batch(batch); err != nil {
		bi.Close()
		return err
	}
	return bi.Close()
}

// removeStale deletes temporary build directories a crashed build left
// beside dir. Failures are ignored: they cost only disk space.
func removeStale(dir string) {
	matches, _ := buildDirs(dir)
	for _, m := range matches {
		_ = os.RemoveAll(m)
	}
}

// Leftovers lists the temporary directories a build of the index at dir
// left beside it (a reindex killed before its rename, or one running
// now), each with the bytes it holds. The next build removes them.
func Leftovers(dir string) ([]Leftover, error) {
	matches, err := buildDirs(filepath.Clean(dir))
	if err != nil {
		return nil, err
	}
	out := make([]Leftover, 0, len(matches))
	for _, m := range matches {
		var size int64
		_ = filepath.WalkDir(m, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					size += fi.Size()
				}
			}
			return nil
		})
		out = append(out, Leftover{Path: m, Bytes: size})
	}
	return out, nil
}

// Leftover is a temporary directory of an index build (Leftovers).
type Leftover struct {
	Path  string
	Bytes int64
}

// buildDirs lists the temporary build directories beside the index at
// dir (tmpPrefix).
func buildDirs(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(filepath.Dir(dir), globEscape(tmpPrefix(dir))+"*"))
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// syncTree fsyncs every file and directory under root, so the renamed
// index is whole on disk even if bleve left a file (index_meta.json)
// unsynced.
func syncTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return syncDir(path)
		}
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return d.Close()
}
