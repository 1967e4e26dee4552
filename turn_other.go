//go:build windows || plan9 || solaris || aix || android

package lore

import "os"

// Where bbolt does not lock with flock, waits are not announced: a
// waiting open polls, and Contended is always false.

func flockShared(*os.File) bool { return false }

func flockTryExclusive(*os.File) bool { return true }
