package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestProgressLine drives the progress line with a fake clock: no rate in
// a phase's first half second (the first frames say nothing true about
// its pace), then the rate and time left from what was done so far, and a
// closing line per phase with its real duration.
func TestProgressLine(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(&b, func() time.Time { return now })
	p.update("writing", "records", 64, 50_000)
	first := b.String()
	if !strings.Contains(first, "64/50,000 records") || strings.Contains(first, "/s") || strings.Contains(first, "left") {
		t.Errorf("first frame %q: want the count and no rate or time left", first)
	}
	now = now.Add(50 * time.Millisecond)
	p.update("writing", "records", 100, 50_000)
	if b.String() != first {
		t.Errorf("redrawn within 100ms: %q", b.String()[len(first):])
	}
	now = now.Add(1950 * time.Millisecond) // 2s in, 10,000 done: 5,000/s, 8s left
	p.update("writing", "records", 10_000, 50_000)
	if got := b.String()[len(first):]; !strings.Contains(got, " 20%  10,000/50,000 records  5,000 records/s  2.0s, 8.0s left") {
		t.Errorf("frame at 2s: %q; want 20%%, 5,000 records/s, 2.0s, 8.0s left", got)
	}
	now = now.Add(8 * time.Second)
	p.update("indexing", "changes", 0, 100)
	if got := b.String(); !strings.Contains(got, "writing: 10,000 records in 10.0s (1,000 records/s)\n") {
		t.Errorf("a new phase did not end the last one's line with its duration: %q", got)
	}
	now = now.Add(300 * time.Millisecond)
	p.update("indexing", "changes", 100, 100)
	p.end()
	if got := b.String(); !strings.HasSuffix(got, "\r\x1b[Kindexing: 100 changes in 0.3s\n") {
		t.Errorf("end: %q; want the indexing line closed, no rate under half a second", got[len(got)-60:])
	}
	var none *progress
	none.end() // no progress: nothing to end, no panic
}

func TestProgressBytesAndCommit(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(&b, func() time.Time { return now })
	slow := &slowReader{r: strings.NewReader(strings.Repeat("x", 3_000_000)), tick: func() { now = now.Add(time.Second) }}
	pr := &progressReader{r: slow, p: p, phase: "reading big.jsonl", total: 3_000_000}
	buf := make([]byte, 1_000_000)
	for range 3 {
		if _, err := pr.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	p.update("committing", "", 0, 1)
	now = now.Add(1500 * time.Millisecond)
	p.end()
	got := b.String()
	for _, want := range []string{"1.0/3.0 MB", "reading big.jsonl: 3.0 MB in 3.0s (1.0 MB/s)\n", "committing... 0.0s", "committing: done in 1.5s\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%q", want, got)
		}
	}
}

// slowReader takes a second of the fake clock per read.
type slowReader struct {
	r    io.Reader
	tick func()
}

func (s *slowReader) Read(b []byte) (int, error) {
	s.tick()
	return s.r.Read(b)
}
