package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// `lore why` on the demo canon: a record a condition keeps out is named
// with the condition, and the line it prints, run as it is, writes a
// packet that holds the record; --json gives the same verdict.
func TestWhyCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if _, errs, code := runCLI(t, "", "demo", "--dir", dir); code != exitOK && code != exitDeferred {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	req := []string{"--store", dir, "why", "--ns", "tidewater-lamp", "--focus", "scene-03", "--task", "draft", "--budget", "3000"}
	out, errs, code := runCLI(t, "", append(req, "power-binding", "second light")...)
	if code != exitOK {
		t.Fatalf("why: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "condition false: needs --when power") || !strings.Contains(out, "comes in with --when power") {
		t.Errorf("why power-binding:\n%s", out)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "lore packet ") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no lore packet line in:\n%s", out)
	}
	args := append([]string{"--store", dir}, shellWords(t, line)[1:]...)
	packetOut, errs, code := runCLI(t, "", args...)
	if code != exitOK && code != exitDeferred {
		t.Fatalf("%s: exit %d: %s", line, code, errs)
	}
	if !strings.Contains(packetOut, "power-binding") {
		t.Errorf("%s: the packet does not hold power-binding:\n%s", line, packetOut)
	}

	out, errs, code = runCLI(t, "", append(append([]string{"--json"}, req...), "scene-03")...)
	var v struct {
		Status, Form, Rule string
		Rank               int
	}
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("why --json: exit %d, %s %s", code, out, errs)
	}
	if v.Status != "in" || v.Rule != "focus" || v.Rank != 1 || v.Form != "full" {
		t.Errorf("why --json scene-03: %+v", v)
	}

	_, errs, code = runCLI(t, "", append(req, "--hops", "3", "scene-03")...)
	if code != exitError || !strings.Contains(errs, "--hops 3") {
		t.Errorf("why --hops 3: exit %d, %s", code, errs)
	}
}
