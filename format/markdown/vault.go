package markdown

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// regularFile refuses what an import must not read: a named pipe (reading
// it would wait for ever), a device or socket, and a symbolic link that
// leaves the folder (an untrusted vault could pull in any file of the
// user's). A link to a regular file inside the folder is read.
func regularFile(fsys fs.FS, p string, d fs.DirEntry) error {
	t := d.Type()
	if t&fs.ModeSymlink != 0 {
		target, err := fs.ReadLink(fsys, p)
		if err == nil && (path.IsAbs(target) || !fs.ValidPath(path.Join(path.Dir(p), target))) {
			return fmt.Errorf("a symbolic link to %s, outside the folder: refused (copy the file in to import it)", target)
		}
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			return fmt.Errorf("a symbolic link that is broken or leaves the folder: refused (%v)", err)
		}
		t = fi.Mode().Type()
	}
	switch {
	case t.IsRegular():
		return nil
	case t&fs.ModeNamedPipe != 0:
		return errors.New("a named pipe (FIFO), not a regular file: skipped")
	case t&fs.ModeSocket != 0:
		return errors.New("a socket, not a regular file: skipped")
	case t&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return errors.New("a device, not a regular file: skipped")
	default:
		return fmt.Errorf("not a regular file (%v): skipped", t)
	}
}
