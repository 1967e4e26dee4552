package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
	bolt "go.etcd.io/bbolt"
)

// A store made before the secondary keys (format 1, no idx bucket)
// answers read-only commands without a word of upgrading; the first
// writable command says on stderr that it upgrades it and how many
// records it reads, once; the packet then pulls the open obligation
// through the keys as before, and check is clean.
func TestOldStoreUpgradesOnce(t *testing.T) {
	dir := newStore(t)
	for _, args := range [][]string{
		{"put", "--kind", "obligation", "--meta", "due=3", "--meta", "status=open", "--title", "Owed", "--body", "the lamp is owed", "owed"},
		{"put", "--kind", "obligation", "--meta", "due=2", "--meta", "status=closed", "--body", "paid", "paid"},
		{"put", "--kind", "scene", "--order", "2", "--body", "the lamp at night", "scene-2"},
	} {
		if _, stderr, code := runCLI(t, "", append([]string{"--store", dir}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	db, err := bolt.Open(filepath.Join(dir, lore.BoltFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket([]byte("idx")); err != nil {
			return err
		}
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{1})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	packet := func() string {
		out, stderr, code := runCLI(t, "", "--store", dir, "packet", "--focus", "scene-2", "--budget", "2000", "--scope", "scene")
		if code != 0 && code != 2 {
			t.Fatalf("packet: exit %d: %s", code, stderr)
		}
		if strings.Contains(stderr, "upgrading") {
			t.Errorf("a read-only packet upgraded the store: %s", stderr)
		}
		return out
	}
	before := packet()
	if !strings.Contains(before, "obligation due by 3") || strings.Contains(before, "paid") {
		t.Fatalf("packet of the old store: want the open obligation, not the paid one:\n%s", before)
	}
	_, stderr, code := runCLI(t, "", "--store", dir, "put", "--body", "another", "note-1")
	if code != 0 {
		t.Fatalf("put: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "upgrading store format 1 to 4: writing the secondary keys of 3 records, once") {
		t.Errorf("first writable open: stderr %q; want it to say it upgrades format 1 to 4 and read 3 records", stderr)
	}
	if _, stderr, _ := runCLI(t, "", "--store", dir, "put", "--body", "more", "note-2"); strings.Contains(stderr, "upgrading") {
		t.Errorf("second writable open upgraded again: %s", stderr)
	}
	if after := packet(); after != before {
		t.Errorf("packet after the upgrade differs:\n%s\n---\n%s", after, before)
	}
	if out, stderr, code := runCLI(t, "", "--store", dir, "check"); code != 0 {
		t.Errorf("check after the upgrade: exit %d: %s%s", code, out, stderr)
	}
}

// TestStatsEtcdSays: on an etcd store, stats names the size it shows for
// what it is, the member's whole database, not the store's own bytes.
func TestStatsEtcdSays(t *testing.T) {
	t.Setenv(lore.EnvLocal, t.TempDir())
	url := etcdtest.URL(t)
	if _, stderr, code := runCLI(t, "", "--store", url, "init"); code != 0 {
		t.Fatalf("init %s: exit %d: %s", url, code, stderr)
	}
	out, stderr, code := runCLI(t, "", "--store", url, "stats")
	if code != 0 || !strings.Contains(out, "etcd bytes: ") || !strings.Contains(out, "whole database") || strings.Contains(out, "file bytes") {
		t.Errorf("stats on etcd: exit %d, %q, %s; want the etcd database size named as such", code, out, stderr)
	}
}

// TestIndexFormat1Upgrades: a store whose index an older lore wrote
// (format 1, terms not filed by namespace; testdata/index-format-1)
// answers read-only searches from that index as it is, within their
// namespace; the first writable open rebuilds the index, once, saying so
// on stderr; searches then find the same records, and check is clean.
func TestIndexFormat1Upgrades(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := os.CopyFS(dir, os.DirFS("testdata/index-format-1")); err != nil {
		t.Fatal(err)
	}
	search := func(ns string) string {
		out, stderr, code := runCLI(t, "", "--store", dir, "search", "--ns", ns, "lantern")
		if code != 0 || stderr != "" {
			t.Fatalf("search --ns %s: exit %d: %s", ns, code, stderr)
		}
		return out
	}
	before := []string{search("harbour"), search("moor")}
	if got := idsOf(before[0]) + "; " + idsOf(before[1]); got != "lantern; moor-lantern" {
		t.Fatalf("search for lantern in harbour, then moor, on the format 1 index: %q, want each namespace's own", got)
	}
	_, stderr, code := runCLI(t, "", "--store", dir, "put", "--ns", "moor", "--body", "a cairn", "cairn")
	if code != 0 {
		t.Fatalf("put: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "reindexing: rebuilding the search index from 4 records") {
		t.Errorf("first writable open: stderr %q; want it to say it rebuilds the index from 4 records", stderr)
	}
	if _, stderr, _ := runCLI(t, "", "--store", dir, "put", "--ns", "moor", "--body", "a stone", "stone"); strings.Contains(stderr, "reindexing") {
		t.Errorf("second writable open rebuilt the index again: %s", stderr)
	}
	for i, ns := range []string{"harbour", "moor"} {
		if after := search(ns); idsOf(after) != idsOf(before[i]) {
			t.Errorf("search --ns %s after the rebuild:\n%s\nbefore:\n%s", ns, after, before[i])
		}
	}
	if out, stderr, code := runCLI(t, "", "--store", dir, "check"); code != 0 {
		t.Errorf("check after the rebuild: exit %d: %s%s", code, out, stderr)
	}
}

// TestIndexFormat2Upgrades: an index of format 2 (irregular verbs filed
// as written; testdata/index-format-2) answers read-only searches with
// the analysis it was built with: "meet" finds the record that says
// "meet", not the one that says "met". The first writable open rebuilds
// it to the current format, whose search for "meet" finds both, as its
// search for "bought" finds "buy" too.
func TestIndexFormat2Upgrades(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := os.CopyFS(dir, os.DirFS("testdata/index-format-2")); err != nil {
		t.Fatal(err)
	}
	search := func(words string) string {
		out, stderr, code := runCLI(t, "", "--store", dir, "search", "--ns", "harbour", words)
		if code != 0 || stderr != "" {
			t.Fatalf("search %q: exit %d: %s", words, code, stderr)
		}
		return idsOf(out)
	}
	if got := search("meet"); got != "market" {
		t.Fatalf("search meet on the format 2 index: %q, want market alone (its terms are as written)", got)
	}
	_, stderr, code := runCLI(t, "", "--store", dir, "put", "--ns", "harbour", "--body", "a buoy", "buoy")
	if code != 0 {
		t.Fatalf("put: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "reindexing: rebuilding the search index from 3 records") {
		t.Errorf("first writable open: stderr %q; want it to say it rebuilds the index from 3 records", stderr)
	}
	if got := search("meet"); got != "market keeper" {
		t.Errorf("search meet after the rebuild: %q, want market and keeper (met is filed under meet)", got)
	}
	if got := search("bought"); got != "market keeper" && got != "keeper market" {
		t.Errorf("search bought after the rebuild: %q, want keeper and market (bought is filed under buy)", got)
	}
	if out, stderr, code := runCLI(t, "", "--store", dir, "check"); code != 0 {
		t.Errorf("check after the rebuild: exit %d: %s%s", code, out, stderr)
	}
}

// idsOf is the first column of search's lines after the score: the ids.
func idsOf(out string) string {
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Split(line, "\t"); len(f) > 1 {
			ids = append(ids, f[1])
		}
	}
	return strings.Join(ids, " ")
}
