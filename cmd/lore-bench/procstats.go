package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What a phase's process measures of itself: peak and anonymous memory
// from /proc, and the bytes a store takes on disk.

// vmHWM returns this process's peak resident set size in bytes, from
// /proc/self/status (0 where there is no /proc).
func vmHWM() int64 { return procStatus()["VmHWM"] }

// procStatus returns the sizes (in bytes) that /proc/self/status gives in
// kB, by name: VmHWM, VmRSS, RssAnon, RssFile... Empty without /proc.
func procStatus() map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			continue
		}
		if kb, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[name] = kb << 10
		}
	}
	return out
}

// dirBytes sums the sizes of the regular files under dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}

// sampleAnon polls RssAnon until stop is closed, then sends the largest
// value seen.
func sampleAnon(stop <-chan struct{}, peak chan<- int64) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	high := procStatus()["RssAnon"]
	for {
		select {
		case <-stop:
			peak <- max(high, procStatus()["RssAnon"])
			return
		case <-tick.C:
			high = max(high, procStatus()["RssAnon"])
		}
	}
}
