package lore

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvStore is the environment variable that names a store directory.
const EnvStore = "LORE_STORE"

// Discover finds the store directory as git finds .git: flag if given,
// else $LORE_STORE, else the nearest .lore folder walking up from wd.
func Discover(flag, wd string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv(EnvStore); env != "" {
		return env, nil
	}
	dir, err := filepath.Abs(wd)
	if err != nil {
		return "", err
	}
	for {
		cand := filepath.Join(dir, DirName)
		if fi, err := os.Stat(filepath.Join(cand, BoltFile)); err == nil && !fi.IsDir() {
			return cand, nil
		}
		if storeURLOf(cand) != "" { // a .lore/ whose store is on etcd
			return cand, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s folder in %s or any parent, no store named, and %s unset: %w", DirName, wd, EnvStore, ErrNoStore)
		}
		dir = parent
	}
}
