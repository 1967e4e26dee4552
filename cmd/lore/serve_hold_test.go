package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
)

// --keep-open and --lease refuse values that mean nothing, naming them.
func TestServeHoldFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ flag, value string }{{"--keep-open", "-1s"}, {"--lease", "0s"}, {"--lease", "-2s"}} {
		_, stderr, code := runCLI(t, "", "--store", dir, "serve", "--http", "127.0.0.1:0", c.flag, c.value)
		if code == 0 || !strings.Contains(stderr, c.flag+" "+c.value) {
			t.Errorf("serve %s %s: exit %d, stderr %q; want an error naming the flag and its value", c.flag, c.value, code, stderr)
		}
	}
}
