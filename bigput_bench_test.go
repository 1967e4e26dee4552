package lore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store"
)

// BenchmarkPutLargeBody puts one 60 MB body through the library (store
// write and index update) in a fresh store each time; B/op is the memory
// it allocates. The index takes only the first index.MaxIndexedBodyBytes.
//
//	go test -run '^$' -bench PutLargeBody -benchtime 3x -benchmem .
func BenchmarkPutLargeBody(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 60_000_000; i++ {
		fmt.Fprintf(&sb, "The keeper rings bell %d at slack water, then writes it in the log.\n", i)
	}
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), ".lore")
		if err := lore.Init(dir); err != nil {
			b.Fatal(err)
		}
		l, err := lore.Open(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := l.Put(context.Background(), store.Record{NS: "big", ID: "novel", Kind: "scene", Body: body}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := l.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
