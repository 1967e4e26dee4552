package pack

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/lorekeep/lore/internal/badvalue"
)

// fileEntry is one file met by the walk, packable or not.
type fileEntry struct {
	path    string // slash-separated, relative to the walk root
	content string // empty unless packable
	bytes   int64
	// notPacked says why the file is listed but not packed ("" = packable).
	notPacked string
}

// Reasons a file is listed but not packed.
const (
	fileReasonBinary   = "binary"
	fileReasonTooLarge = "too large"
	fileReasonSymlink  = "symlink out of the directory"
	fileReasonLinkDir  = "symlink to a directory, not followed"
	fileReasonBroken   = "broken symlink"
	fileReasonNoRead   = "unreadable"
	fileReasonPipe     = "named pipe, not read"
	fileReasonSpecial  = "not a regular file (device or socket), not read"
)

// specialReason says why a FIFO, device or socket is listed and not read:
// opening a FIFO would wait for a writer for ever.
func specialReason(t fs.FileMode) string {
	if t&fs.ModeNamedPipe != 0 {
		return fileReasonPipe
	}
	return fileReasonSpecial
}

// fileWalk lists the files under root in a deterministic order (each
// directory's entries sorted by name, depth first), honouring .gitignore
// files at every level and skipping .git and .lore. When root lies inside
// a git work tree, the .gitignore files above it (up to the work tree's
// top) and .git/info/exclude apply too, as they do for git. Symbolic links
// are followed only to regular files inside root.
func fileWalk(ctx context.Context, root string, maxBytes int64, exclude []string) ([]fileEntry, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, badvalue.Errorf(root, "pack %q: %w", root, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, badvalue.Errorf(root, "pack %q: %w", root, err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return nil, badvalue.Errorf(root, "pack %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, badvalue.Errorf(root, "pack %q: not a directory (give the directory to pack): %w", root, ErrInvalid)
	}
	w := fileWalker{ctx: ctx, root: resolved, maxBytes: maxBytes, exclude: fileExcludes(abs, resolved, exclude)}
	w.ancestors()
	if err := w.dir(""); err != nil {
		return nil, err
	}
	return w.out, nil
}

// fileExcludes turns the paths to skip (relative to the root as given, or
// absolute) into walk paths; paths outside the root are left out.
func fileExcludes(abs, resolved string, paths []string) map[string]bool {
	out := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(abs, p)
		}
		p = filepath.Clean(p)
		// The file may not exist yet (the first run writes it): resolve
		// the deepest existing parent, as the walk sees the resolved root.
		tail := ""
		for d := p; ; {
			if r, err := filepath.EvalSymlinks(d); err == nil {
				p = filepath.Join(r, tail)
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			tail = filepath.Join(filepath.Base(d), tail)
			d = parent
		}
		r, err := filepath.Rel(resolved, p)
		if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			continue
		}
		out[filepath.ToSlash(r)] = true
	}
	return out
}

// ancestors loads the ignore rules that apply to the root from above it:
// the .gitignore files from the top of the enclosing work tree down to the
// root's parent, and the work tree's .git/info/exclude. Outside a work
// tree there are none.
func (w *fileWalker) ancestors() {
	var chain []string // from the root's parent upwards
	top := ""
	for d := w.root; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return // no work tree above: only the root's own files count
		}
		chain = append(chain, parent)
		d = parent
	}
	// prefix turns a walk path into a path relative to dir.
	prefix := func(dir string) string {
		rel, err := filepath.Rel(dir, w.root)
		if err != nil || rel == "." {
			return ""
		}
		return filepath.ToSlash(rel) + "/"
	}
	if data, err := os.ReadFile(filepath.Join(top, ".git", "info", "exclude")); err == nil {
		w.ignore.addAbove(prefix(top), string(data))
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if data, err := os.ReadFile(filepath.Join(chain[i], ".gitignore")); err == nil {
			w.ignore.addAbove(prefix(chain[i]), string(data))
		}
	}
}

type fileWalker struct {
	ctx      context.Context
	root     string
	maxBytes int64
	ignore   gitignoreMatcher
	exclude  map[string]bool // walk paths Options.Exclude names
	out      []fileEntry
	// readFile reads a file's content; nil means os.ReadFile. Tests set
	// it to make a read fail where file modes cannot (running as root).
	readFile func(string) ([]byte, error)
}

func (w *fileWalker) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

func (w *fileWalker) dir(rel string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	dir := w.abs(rel)
	if data, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
		w.ignore.add(rel, string(data))
	}
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return badvalue.Errorf(dir, "pack: read directory %q: %w", dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || name == ".lore" {
			continue
		}
		p := name
		if rel != "" {
			p = rel + "/" + name
		}
		if w.exclude[p] {
			continue
		}
		switch t := e.Type(); {
		case t.IsDir():
			if w.ignore.ignored(p, true) {
				continue
			}
			if err := w.dir(p); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			if w.ignore.ignored(p, false) {
				continue
			}
			if err := w.symlink(p); err != nil {
				return err
			}
		case t.IsRegular():
			if w.ignore.ignored(p, false) {
				continue
			}
			if err := w.file(p, w.abs(p)); err != nil {
				return err
			}
		default:
			// Pipes, devices and sockets are listed, never opened.
			if !w.ignore.ignored(p, false) {
				w.out = append(w.out, fileEntry{path: p, notPacked: specialReason(t)})
			}
		}
	}
	return nil
}

// symlink packs a link to a regular file inside the root under the link's
// own path; anything else is listed with the reason it was not followed.
func (w *fileWalker) symlink(p string) error {
	target, err := filepath.EvalSymlinks(w.abs(p))
	if err != nil {
		w.out = append(w.out, fileEntry{path: p, notPacked: fileReasonBroken})
		return nil
	}
	r, err := filepath.Rel(w.root, target)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		w.out = append(w.out, fileEntry{path: p, notPacked: fileReasonSymlink})
		return nil
	}
	fi, err := os.Stat(target)
	if err != nil {
		w.out = append(w.out, fileEntry{path: p, notPacked: fileReasonBroken})
		return nil
	}
	if fi.IsDir() {
		// Following it would pack the same files twice (or loop).
		w.out = append(w.out, fileEntry{path: p, notPacked: fileReasonLinkDir})
		return nil
	}
	if !fi.Mode().IsRegular() {
		w.out = append(w.out, fileEntry{path: p, notPacked: specialReason(fi.Mode().Type())})
		return nil
	}
	if w.exclude[filepath.ToSlash(r)] {
		return nil // a link to an excluded file
	}
	// A link into .git or .lore would smuggle in what the walk skips.
	for _, seg := range strings.Split(filepath.ToSlash(r), "/") {
		if seg == ".git" || seg == ".lore" {
			return nil
		}
	}
	return w.file(p, target)
}

func (w *fileWalker) file(p, abs string) error {
	fi, err := os.Stat(abs)
	if err != nil {
		w.out = append(w.out, fileEntry{path: p, notPacked: fileReasonNoRead})
		return nil
	}
	e := fileEntry{path: p, bytes: fi.Size()}
	if w.maxBytes > 0 && fi.Size() > w.maxBytes {
		e.notPacked = fileReasonTooLarge
		w.out = append(w.out, e)
		return nil
	}
	read := w.readFile
	if read == nil {
		read = os.ReadFile
	}
	data, err := read(abs)
	if err != nil {
		// One file the user cannot read should not sink the whole pack;
		// it is listed, like a binary file.
		e.notPacked = fileReasonNoRead
		w.out = append(w.out, e)
		return nil
	}
	e.bytes = int64(len(data))
	if fileIsBinary(data) {
		e.notPacked = fileReasonBinary
	} else {
		e.content = string(data)
	}
	w.out = append(w.out, e)
	return nil
}

// fileIsBinary reports whether data cannot be packed as text: it holds a
// NUL byte or is not valid UTF-8 (the design: such files are binary,
// kept as a record without a body).
func fileIsBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// fileDir returns the slash-separated directory of a walk path ("" for
// the root).
func fileDir(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}
