//go:build !windows && !plan9 && !solaris && !aix && !android

package lore

import (
	"os"
	"syscall"
)

// flockShared takes a shared flock on f without waiting; it reports
// whether it holds it.
func flockShared(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil
}

// flockTryExclusive reports whether f's exclusive flock could be taken
// at once (no one holds a shared one), and lets go of it again.
func flockTryExclusive(f *os.File) bool {
	fd := int(f.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	syscall.Flock(fd, syscall.LOCK_UN)
	return true
}
