package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/packet"
)

// TestRecallFixture runs the recall benchmark on a conversation written
// for these tests (testdata/recall: questions whose answer is the reply
// after the turn their words are in). It guards the benchmark's own
// arithmetic and the agent packet at a budget that holds the whole
// conversation: every answer found, no packet over its budget. (At 300
// the frame costs the packet a reply BM25 alone keeps: on a conversation
// this short the frame is most of the budget.)
func TestRecallFixture(t *testing.T) {
	out := filepath.Join(t.TempDir(), "recall.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"recall", "-data", "testdata/recall", "-budgets", "300,450,600", "-json", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("recall: %v\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep recallReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 4 {
		t.Fatalf("%d questions scored; want 4", rep.Questions)
	}
	// The agent profile is monotone: a bigger budget holds every record
	// a smaller one does.
	for step, n := range rep.NotMonotone {
		if n != 0 {
			t.Errorf("budgets %s: %d questions whose bigger packet lacks a record of the smaller", step, n)
		}
	}
	if len(rep.NotMonotone) != 2 {
		t.Errorf("monotonicity checked for %d budget steps; want 2", len(rep.NotMonotone))
	}
	// ... and shows each of them in the same or a fuller form.
	for step, n := range rep.ShorterForms {
		if n != 0 {
			t.Errorf("budgets %s: %d questions whose bigger packet shows a record of the smaller in a shorter form", step, n)
		}
	}
	if len(rep.ShorterForms) != 2 {
		t.Errorf("forms checked for %d budget steps; want 2", len(rep.ShorterForms))
	}
	for _, budget := range []int{300, 450, 600} {
		lore := rep.Cells[methodLore][budget]["all"]
		if lore.Over != 0 || lore.N != 4 {
			t.Errorf("budget %d: %d of %d packets over budget", budget, lore.Over, lore.N)
		}
		if lore.Overhead <= 0 || lore.Records == 0 {
			t.Errorf("budget %d: overhead %.0f, %.1f records: want both measured", budget, lore.Overhead, lore.Records)
		}
		// Build time, and the CPU it took where the system counts it
		// (rusage is 0 without getrusage).
		if l := rep.LatencyMs[budget]; l[0] <= 0 || l[1] < l[0] {
			t.Errorf("budget %d: build p50 / p99 %v ms; want p99 >= p50 > 0", budget, l)
		}
		if c := rep.CPUMs[budget]; c[1] < c[0] || rusage.CPU() > 0 && c[1] <= 0 {
			t.Errorf("budget %d: build CPU p50 / p99 %v ms; want p99 >= p50 and some CPU", budget, c)
		}
	}
	if !strings.Contains(stdout.String(), "| build CPU p50 / p99 ms") {
		t.Errorf("no build CPU row:\n%s", stdout.String())
	}
	if lore := rep.Cells[methodLore][600]["all"]; lore.Recall < 0.99 {
		t.Errorf("budget 600: lore recall %.3f; want every answer (the whole conversation nearly fits)\n%s", lore.Recall, stdout.String())
	}
	// Every gold answer is in its reply, word for word: all four are
	// extractive, and a packet that keeps the reply holds the answer.
	for _, m := range recallMethods {
		if c := rep.Cells[m][600]["all"]; c.Extractive != 4 || c.AnsRecall < 0.99 {
			t.Errorf("budget 600, %s: answer recall %.3f over %d extractive questions; want 1 over 4", m, c.AnsRecall, c.Extractive)
		}
	}
	if !strings.Contains(stdout.String(), "Answer recall (4 extractive questions") {
		t.Errorf("no answer recall table:\n%s", stdout.String())
	}
	// Lore shows these short turns whole: nothing kept without credit.
	for _, budget := range []int{300, 450, 600} {
		if c := rep.Cells[methodLore][budget]["all"]; c.Foreign+c.Citations+c.Short+c.Unknown != 0 {
			t.Errorf("budget %d: foreign %d, citations %d, short %d, unknown %d; want none", budget, c.Foreign, c.Citations, c.Short, c.Unknown)
		}
	}
}

// TestRoomLeft: a packet has room left when its own count leaves room
// for a deferred record at its note's price, and none when every note
// costs more than the room (or names no price).
func TestRoomLeft(t *testing.T) {
	p := &packet.Packet{Budget: 500, Tokens: 460, Deferred: []packet.Note{{ID: "a", Tokens: 41}, {ID: "b", Tokens: 0}}}
	if roomLeft(p) {
		t.Errorf("40 tokens left, notes of 41 and 0: want no room left")
	}
	p.Deferred = append(p.Deferred, packet.Note{ID: "c", Tokens: 40})
	if !roomLeft(p) {
		t.Errorf("40 tokens left, a note of 40: want room left")
	}
}

// TestSummarizeCountsShorterForms: the report counts a question whose
// larger packet shows a record of the smaller one in a shorter form,
// apart from one that lacks a record, and a fuller form not at all.
func TestSummarizeCountsShorterForms(t *testing.T) {
	row := func(qid string, budget int, ids, forms []string) recallRow {
		return recallRow{QID: qid, Category: 1, Method: methodLore, Budget: budget, IDs: ids, Forms: forms}
	}
	rows := []recallRow{
		// q1: a excerpt -> full (fuller), then full -> excerpt (shorter).
		row("q1", 500, []string{"a"}, []string{"excerpt"}),
		row("q1", 1000, []string{"a", "b"}, []string{"full", "full"}),
		row("q1", 2000, []string{"a", "b"}, []string{"excerpt", "full"}),
		// q2: b lost at 2000, a kept whole throughout.
		row("q2", 500, []string{"a"}, []string{"full"}),
		row("q2", 1000, []string{"a", "b"}, []string{"full", "title"}),
		row("q2", 2000, []string{"a"}, []string{"full"}),
	}
	rep := summarizeRecall(rows, []int{500, 1000, 2000}, []int{1})
	for key, want := range map[string]int{"500->1000": 0, "1000->2000": 1} {
		if got := rep.ShorterForms[key]; got != want {
			t.Errorf("ShorterForms[%s] = %d, want %d", key, got, want)
		}
	}
	for key, want := range map[string]int{"500->1000": 0, "1000->2000": 1} {
		if got := rep.NotMonotone[key]; got != want {
			t.Errorf("NotMonotone[%s] = %d, want %d", key, got, want)
		}
	}
}
