package lore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lorekeep/lore/store"
)

// Salvage copies what is still readable of the (damaged) store in dir
// into a new store in newDir (`lore check --salvage NEWDIR`): every record
// whose head and body can be read and every link, with counts of what was
// lost (see store.Salvage). newDir must not hold a store; lore.json is
// copied, and the new store's index is built. The damaged store is only
// read.
func Salvage(dir, newDir string) (store.SalvageReport, error) {
	var rep store.SalvageReport
	if _, err := os.Stat(filepath.Join(newDir, BoltFile)); err == nil {
		return rep, fmt.Errorf("salvage into %s: it already holds a store; name a new folder: %w", newDir, ErrExists)
	}
	src := filepath.Join(dir, BoltFile)
	if from, to := resolvedAbs(dir), resolvedAbs(newDir); from != "" && to != "" {
		if to == from {
			return rep, fmt.Errorf("salvage into %s: that is the damaged store itself; name a new folder: %w", newDir, ErrExists)
		}
		// A store inside the damaged one would be written among the
		// files it is rescued from (and its index among the old one's).
		if rel, err := filepath.Rel(from, to); err == nil && filepath.IsLocal(rel) {
			return rep, fmt.Errorf("salvage into %s: that is inside the damaged store %s; name a folder outside it: %w", newDir, dir, ErrExists)
		}
	}
	cfgPath := filepath.Join(dir, ConfigFile)
	cfg, counter, err := loadStoreConfig(dir)
	if err != nil {
		return rep, err
	}
	if err := os.MkdirAll(newDir, 0o755); err != nil {
		return rep, fmt.Errorf("salvage: %w", err)
	}
	if b, err := os.ReadFile(cfgPath); err == nil {
		if err := os.WriteFile(filepath.Join(newDir, ConfigFile), b, 0o600); err != nil {
			return rep, fmt.Errorf("salvage: %w", err)
		}
	}
	rep, err = store.Salvage(src, filepath.Join(newDir, BoltFile), &store.Options{
		HistoryCap: cfg.HistoryCap,
		Counters:   []store.Counter{counter},
	})
	if err != nil {
		return rep, err
	}
	l, err := Open(newDir, nil) // builds the new store's index
	if err != nil {
		return rep, err
	}
	return rep, l.Close()
}

// resolvedAbs is path made absolute, through symlinks as far as it
// exists (a folder to be made is resolved by its nearest existing
// parent); "" when it cannot be made absolute.
func resolvedAbs(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	rest := ""
	for d := abs; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(d) == d {
			return abs
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}
