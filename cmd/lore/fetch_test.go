package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var fetchHandle = regexp.MustCompile(`"fetch": ?"(lore get [^"]*)"`)

// A record whose id starts with "-" gets a fetch handle that a shell runs
// as it stands: the handle ends the flags with "--", so `lore get` prints
// the record instead of taking the id for an unknown flag.
func TestFetchHandleForDashID(t *testing.T) {
	bin := loreBinary(t)
	dir := newStore(t)
	body := strings.Repeat("The lamp keeper rings the bell at slack water. ", 400)
	for _, id := range []string{"-draft", "--twice", "plain"} {
		if _, errs, code := runCLI(t, body, "--store", dir, "put", "--ns", "nv", "--kind", "scene", "--", id); code != 0 {
			t.Fatalf("put %s: exit %d: %s", id, code, errs)
		}
	}
	out, errs, code := runCLI(t, "", "--store", dir, "packet", "--ns", "nv", "lamp", "--budget", "3000", "--json")
	if code != 0 && code != 2 {
		t.Fatalf("packet: exit %d: %s", code, errs)
	}
	handles := fetchHandle.FindAllStringSubmatch(out, -1)
	seen := map[string]bool{}
	for _, h := range handles {
		cmd := exec.Command("sh", "-c", h[1])
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "LORE_STORE="+dir)
		got, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("handle %q: %v\n%s", h[1], err, got)
			continue
		}
		if !strings.Contains(string(got), "The lamp keeper rings the bell") {
			t.Errorf("handle %q printed %q; want the record's body", h[1], got)
		}
		for _, id := range []string{"-draft", "--twice"} {
			if strings.HasSuffix(h[1], " -- "+id) {
				seen[id] = true
			}
		}
	}
	if !seen["-draft"] || !seen["--twice"] {
		t.Fatalf("packet lists handles %q; want one ending in \"-- -draft\" and one in \"-- --twice\"\n%s", handles, out)
	}
}
