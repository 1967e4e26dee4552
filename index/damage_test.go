package index

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestDamagedFilesNeverPanic: bytes scribbled over a segment, or a
// root.bolt cut short, make bleve read out of bounds or bbolt assert.
// Every call of the index then fails with ErrCorrupt naming the index
// and the repair; none panics.
func TestDamagedFilesNeverPanic(t *testing.T) {
	scribble := func(seed uint64, b []byte) func(t *testing.T, store string) {
		return func(t *testing.T, store string) {
			if b == nil {
				r := rand.New(rand.NewPCG(seed, 1))
				b = make([]byte, 2000)
				for i := range b {
					b[i] = byte(r.Uint32())
				}
			}
			f, err := os.OpenFile(largestFile(t, store, "*.zap"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(b, 1000); err != nil {
				t.Fatal(err)
			}
		}
	}
	damages := map[string]func(t *testing.T, store string){
		"segment scribbled with 0xff": scribble(0, bytes.Repeat([]byte{0xff}, 2000)),
		"segment scribbled, seed 1":   scribble(1, nil),
		"segment scribbled, seed 2":   scribble(2, nil),
		"segment scribbled, seed 3":   scribble(3, nil),
		"root.bolt cut": func(t *testing.T, store string) {
			if err := os.Truncate(filepath.Join(store, "root.bolt"), 20000); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			ix, dir := openTemp(t)
			mustApply(t, ix, genRecords("n", 300), nil, 1)
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
			damage(t, filepath.Join(dir, "store"))
			ix, err := Open(dir, nil)
			if err != nil {
				wantCorrupt(t, "Open", err, dir)
				return
			}
			defer ix.Close()
			_, err = ix.Search(context.Background(), Query{NS: "n", Text: "lamp harbour river", Limit: 50})
			wantCorrupt(t, "Search", err, dir)
			err = ix.ForEachKey(func(Key) error { return nil })
			wantCorrupt(t, "ForEachKey", err, dir)
		})
	}
}

func wantCorrupt(t *testing.T, call string, err error, dir string) {
	t.Helper()
	if !errors.Is(err, ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(dir)) || !bytes.Contains([]byte(err.Error()), []byte("lore reindex")) {
		t.Errorf("%s on a damaged index: %v; want ErrCorrupt naming %s and lore reindex", call, err, dir)
	}
}

// largestFile is the largest file in dir matching pattern.
func largestFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	var largest string
	var size int64 = -1
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			largest, size = f, fi.Size()
		}
	}
	if largest == "" {
		t.Fatalf("no %s in %s", pattern, dir)
	}
	return largest
}
