package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// `lore check --contradictions` names the two records that disagree and
// what each says; --json gives the list; --ns without it is a usage error.
func TestCheckContradictions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if _, errs, code := runCLI(t, "", "--store", dir, "init"); code != exitOK {
		t.Fatalf("init: %s", errs)
	}
	for _, args := range [][]string{
		{"put", "--ns", "novel", "--kind", "character", "--meta", "eyes=green", "--body", "Mara.", "mara"},
		{"put", "--ns", "novel", "--kind", "canon", "--meta", "subject=mara", "--meta", "fact.eyes=grey", "--body", "Grey eyes.", "ch9-eyes"},
		{"put", "--ns", "novel", "--kind", "canon", "--meta", "subject=mara", "--meta", "fact.eyes=Green", "--body", "Green eyes.", "ch2-eyes"},
	} {
		if _, errs, code := runCLI(t, "", append([]string{"--store", dir}, args...)...); code != exitOK {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	out, errs, code := runCLI(t, "", "--store", dir, "check", "--contradictions")
	if code != exitOK || strings.Count(out, "\n") != 2 || !strings.Contains(out, `novel: mara eyes: ch2-eyes says "Green", ch9-eyes says "grey"`) {
		t.Errorf("check --contradictions: exit %d\n%s%s", code, out, errs)
	}
	out, _, code = runCLI(t, "", "--store", dir, "--json", "check", "--contradictions", "--ns", "novel")
	var doc struct {
		Contradictions []struct{ NS, Subject, Attribute, A, B string }
	}
	if code != exitOK || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Contradictions) != 2 || doc.Contradictions[1].A != "ch9-eyes" {
		t.Errorf("--json: exit %d %s", code, out)
	}
	if _, errs, code := runCLI(t, "", "--store", dir, "check", "--ns", "novel"); code != exitError || !strings.Contains(errs, "--contradictions") {
		t.Errorf("check --ns alone: exit %d %s", code, errs)
	}
	// Read from free text: a character who never saw the sea, and saw it.
	for _, args := range [][]string{
		{"put", "--ns", "story", "--kind", "scene", "--body", "Mara had never seen the sea. She dreamed of it.", "s1"},
		{"put", "--ns", "story", "--kind", "scene", "--body", "At dawn Mara saw the sea from the dunes.", "s7"},
	} {
		if _, errs, code := runCLI(t, "", append([]string{"--store", dir}, args...)...); code != exitOK {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	out, errs, code = runCLI(t, "", "--store", dir, "check", "--contradictions", "--ns", "story")
	if code != exitOK || out != "story: Mara never seen the sea: s1 says \"Mara had never seen the sea.\", s7 says \"At dawn Mara saw the sea from the dunes.\"\n" {
		t.Errorf("check --contradictions on free text: exit %d\n%q%s", code, out, errs)
	}
}
