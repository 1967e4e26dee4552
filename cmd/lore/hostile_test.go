package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// hostileStore builds, through the library, a store made to break the
// budget: a scene "hub" with 1,000 characters appearing in it, a scene of
// 10,000 short lines, and records of every rank.
func hostileStore(t *testing.T) string {
	t.Helper()
	dir := newStore(t)
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ns := "hostile"
	recs := []store.Record{{NS: ns, ID: "hub", Kind: "scene", Order: 5, Body: strings.Repeat("The harbour at night, stone and salt. ", 30)}}
	var links []store.Link
	for i := range 1000 {
		id := fmt.Sprintf("c-%04d", i)
		recs = append(recs, store.Record{NS: ns, ID: id, Kind: "character", Title: "Character " + id,
			Body: strings.Repeat(fmt.Sprintf("Character %d watches the harbour. ", i), 1+i%6)})
		links = append(links, store.Link{NS: ns, From: id, Rel: "appears_in", To: "hub"})
	}
	lines := make([]string, 10_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	recs = append(recs, store.Record{NS: ns, ID: "lines", Kind: "scene", Order: 6, Body: strings.Join(lines, "\n")})
	for i, kind := range []string{"style", "power", "theme", "relationship", "obligation", "timeline", "fact"} {
		for j := range 15 {
			recs = append(recs, store.Record{NS: ns, ID: fmt.Sprintf("%s-%02d", kind, j), Kind: kind, Order: int64(10 + j),
				Body: strings.Repeat(fmt.Sprintf("A %s about stone harbour night, number %d. ", kind, i*100+j), 2+j%5), Meta: map[string]string{"due": "7"}})
		}
	}
	if _, err := l.PutMany(context.Background(), recs, links); err != nil {
		t.Fatal(err)
	}
	return dir
}

var hostileNeed = regexp.MustCompile(`needs ([0-9,]+) tokens`)

// TestPacketHostileStoreCLI runs `lore packet` on the hostile store at
// budgets from 1 to 8k (1, 300, 2,000, 8,000), in every format: stdout
// holds a packet within its budget (exit 0 or 2), or nothing, with exit 3
// and a report on stderr that names the protected records (or the frame)
// and proposes a split; the budget it says is needed then works.
func TestPacketHostileStoreCLI(t *testing.T) {
	dir := hostileStore(t)
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	requests := [][]string{
		{"--focus", "hub", "--task", "draft", "--when", "power,thematic"},
		{"--focus", "lines"},
		{"--profile", "agent", "stone harbour night"},
	}
	refused, built := 0, 0
	for _, req := range requests {
		for _, format := range []string{"md", "xml", "json"} {
			for _, b := range []int{1, 300, 2000, 8000} {
				args := append([]string{"--store", dir, "packet", "--ns", "hostile", "--format", format, "--budget", strconv.Itoa(b)}, req...)
				name := fmt.Sprintf("%v %s at %d", req, format, b)
				stdout, stderr, code := runCLI(t, "", args...)
				switch code {
				case exitOK, exitDeferred:
					built++
					if n := counter.Count(stdout); n > b || n == 0 {
						t.Errorf("%s: exit %d with a packet of %d tokens", name, code, n)
					}
				case exitNoFit:
					refused++
					hostileCheckRefusal(t, name, stdout, stderr, req)
					if format != "md" {
						continue // the need is checked once a request and budget
					}
					m := hostileNeed.FindStringSubmatch(stderr)
					if m == nil {
						t.Errorf("%s: no need stated in %q", name, stderr)
						continue
					}
					need := strings.ReplaceAll(m[1], ",", "")
					args[len(args)-len(req)-1] = need
					out, errs, code := runCLI(t, "", args...)
					if n, _ := strconv.Atoi(need); (code != exitOK && code != exitDeferred) || counter.Count(out) > n {
						t.Errorf("%s: at the stated need %s: exit %d, %d tokens: %s", name, need, code, counter.Count(out), errs)
					}
				default:
					t.Errorf("%s: exit %d: %s", name, code, stderr)
				}
			}
		}
	}
	if refused == 0 || built == 0 {
		t.Errorf("%d refused, %d built: want both kinds of answer", refused, built)
	}
	t.Logf("%d packets built, %d refused", built, refused)
}

// hostileCheckRefusal checks an exit 3: nothing on stdout, and a report
// naming the protected records (the focus among them) or the frame, and
// a proposed split.
func hostileCheckRefusal(t *testing.T, name, stdout, stderr string, req []string) {
	t.Helper()
	if stdout != "" {
		t.Errorf("%s: exit 3 with %d bytes on stdout", name, len(stdout))
	}
	if !strings.Contains(stderr, "Cannot fit:") || !strings.Contains(stderr, "Proposed split:") {
		t.Errorf("%s: exit 3 without the report: %q", name, stderr)
	}
	if strings.Contains(stderr, "Protected: ") {
		if req[0] == "--focus" && !strings.Contains(stderr, "  "+req[1]+"  (rank 1") {
			t.Errorf("%s: the protected set does not name the focus %s:\n%s", name, req[1], stderr)
		}
	} else if !strings.Contains(stderr, "frame") {
		t.Errorf("%s: exit 3 names neither protected records nor the frame:\n%s", name, stderr)
	}
}
