package index

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lorekeep/lore/internal/damage"
)

// TestDamagedFilesNeverPanic: bytes scribbled over a segment, or a
// root.bolt cut short, make bleve read out of bounds or bbolt assert.
// Every call of the index then fails with ErrCorrupt naming the index
// and the repair; none panics.
func TestDamagedFilesNeverPanic(t *testing.T) {
	scribble := func(seed uint64, b []byte) func(t *testing.T, store string) {
		return func(t *testing.T, store string) {
			if b == nil {
				b = damage.Noise(seed, 2000)
			}
			seg, err := damage.Largest(store, "*.zap")
			if err == nil {
				err = damage.Scribble(seg, 1000, b)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	damages := map[string]func(t *testing.T, store string){
		"segment scribbled with 0xff": scribble(0, bytes.Repeat([]byte{0xff}, 2000)),
		"segment scribbled, seed 1":   scribble(1, nil),
		"segment scribbled, seed 2":   scribble(2, nil),
		"segment scribbled, seed 3":   scribble(3, nil),
		// bbolt maps pages past the end of the file and faults on them.
		"root.bolt cut to its meta pages": func(t *testing.T, store string) {
			if err := os.Truncate(filepath.Join(store, "root.bolt"), 2*4096); err != nil {
				t.Fatal(err)
			}
		},
		"root.bolt cut": func(t *testing.T, store string) {
			if err := os.Truncate(filepath.Join(store, "root.bolt"), 20000); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			ix, dir := openTemp(t)
			// One batch, so one segment for the damage to land in.
			mustApply(t, ix, genRecords("n", parallelMinDocs-1), nil, 1)
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
	if !errors.Is(err, ErrCorrupt) || !bytes.Contains([]byte(err.Error()), []byte(dir)) || !bytes.Contains([]byte(err.Error()), []byte("rebuilt from it")) {
		t.Errorf("%s on a damaged index: %v; want ErrCorrupt naming %s and that it can be rebuilt", call, err, dir)
	}
}
