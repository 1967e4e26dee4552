package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
)

// --lock-timeout 0 means "do not wait": the store is asked for the
// shortest wait there is, not its default (bbolt reads 0 as for ever).
func TestLockTimeoutZeroDoesNotWait(t *testing.T) {
	for _, tc := range []struct {
		flag time.Duration
		want time.Duration
	}{{0, time.Nanosecond}, {300 * time.Millisecond, 300 * time.Millisecond}} {
		a := &app{lockTimeout: tc.flag}
		if got := a.lockWait(); got != tc.want {
			t.Errorf("--lock-timeout %s: the store waits %s, want %s", tc.flag, got, tc.want)
		}
	}
	dir := newStore(t)
	holder, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	_, stderr, code := runCLI(t, "", "--store", dir, "--lock-timeout", "0", "put", "--body", "x", "r1")
	if code != exitError || !strings.Contains(stderr, "another process holds it") {
		t.Fatalf("put beside a writer with --lock-timeout 0: exit %d, stderr %q: want exit 1 naming the lock", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "--store", dir, "--lock-timeout", "-1s", "ls")
	if code != exitError || !strings.Contains(stderr, `--lock-timeout -1s`) || !strings.Contains(stderr, "0 (do not wait)") {
		t.Fatalf("--lock-timeout -1s: exit %d, stderr %q: want the value named and what is right", code, stderr)
	}
}

// --store naming a file says it is a file, not that it does not exist.
func TestStoreFlagNamingAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "--store", f, "ls")
	if code != exitError || !strings.Contains(stderr, "that is a file, not a store folder") || strings.Contains(stderr, "no such directory") {
		t.Fatalf("--store FILE: exit %d, stderr %q: want exit 1 saying it is a file", code, stderr)
	}
}
