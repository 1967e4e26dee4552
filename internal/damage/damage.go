// Package damage harms files on purpose, for the tests that prove Lore
// reports a damaged index or store with an error, never a panic. Nothing
// outside tests imports it.
package damage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Largest is the largest file in dir whose name matches pattern.
func Largest(dir, pattern string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return "", err
	}
	var largest string
	var size int64 = -1
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			largest, size = f, fi.Size()
		}
	}
	if largest == "" {
		return "", fmt.Errorf("no file matching %s in %s", pattern, dir)
	}
	return largest, nil
}

// Noise is n pseudo-random bytes, the same for the same seed.
func Noise(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Scribble writes b over the file at path from offset off.
func Scribble(path string, off int64, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(b, off); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// CutHalf truncates the file at path to half its size.
func CutHalf(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.Truncate(path, fi.Size()/2)
}
