package lore_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/demo"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// demoStore opens a temporary store holding the demo canon.
func demoStore(t testing.TB) *lore.Lore {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if _, err := demo.Load(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	return l
}

// outcome is what a packet request produces: the bytes a user sees on
// stdout and stderr and the exit code's meaning.
func outcome(l *lore.Lore, req packet.Request) (stdout, stderr string, exit int) {
	p, err := l.Packet(context.Background(), req)
	var split *packet.SplitError
	switch {
	case errors.As(err, &split):
		return "", split.Report(), 3
	case err != nil:
		return "", "error: " + err.Error() + "\n", 1
	}
	out, err := p.Render(req.Format)
	if err != nil {
		return "", "error: " + err.Error() + "\n", 1
	}
	return string(out), p.Report(), packet.ExitCode(p, nil)
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking the change):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %q\ngot:  %q", i+1, w, g)
		}
	}
	return "(no line differs)"
}

// Golden packets of the demo canon: the bytes a user sees, the report and
// the exit code, for the budgets and formats a user will try first.
func TestGoldenDemoPackets(t *testing.T) {
	l := demoStore(t)
	scene := []string{"scene-03"}
	cases := []struct {
		name string
		req  packet.Request
		exit int
	}{
		{"scene-03.scene.md", packet.Request{NS: "tidewater-lamp", Focus: scene, Budget: 8000, Scope: "scene", Task: "draft"}, -1},
		{"scene-03.scene.xml", packet.Request{NS: "tidewater-lamp", Focus: scene, Budget: 8000, Scope: "scene", Task: "draft", Format: "xml"}, -1},
		{"scene-03.scene.json", packet.Request{NS: "tidewater-lamp", Focus: scene, Budget: 8000, Scope: "scene", Task: "draft", Format: "json"}, -1},
		{"scene-03.3000.md", packet.Request{NS: "tidewater-lamp", Focus: scene, Budget: 3000, Task: "draft", Query: "second light"}, 2},
		{"scene-03.2000.md", packet.Request{NS: "tidewater-lamp", Focus: scene, Budget: 2000, Task: "draft"}, -1},
		// The protected scene, its POV, canon, obligations and timeline need
		// more than 500: a split (exit 3), never a frame without them.
		{"scene-03.500.md", packet.Request{NS: "tidewater-lamp", Focus: scene, Budget: 500}, 3},
		{"scene-06.power.md", packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-06"}, Budget: 6000, When: []string{"power", "info-control", "thematic"}, Task: "revise", Hops: 2}, -1},
		// Below the frame and the obligations the novel profile protects:
		// refused, nothing on stdout (never a packet over its budget).
		{"query-only.frame.md", packet.Request{NS: "tidewater-lamp", Query: "lamp memory", Budget: 60}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, exit := outcome(l, tc.req)
			if tc.exit >= 0 && exit != tc.exit {
				t.Errorf("exit %d, want %d; stderr:\n%s", exit, tc.exit, stderr)
			}
			if exit == 3 && stdout != "" {
				t.Errorf("exit 3 with %d bytes on stdout: want nothing", len(stdout))
			}
			checkGolden(t, "packet/"+tc.name, fmt.Sprintf("exit %d\n-- stderr --\n%s-- stdout --\n%s", exit, stderr, stdout))
		})
	}
}

// The whole rendered packet, counted again with the real tokenizer, never
// exceeds the budget, whatever the budget and focus.
func TestPacketNeverExceedsBudget(t *testing.T) {
	l := demoStore(t)
	rng := rand.New(rand.NewPCG(7, 11))
	scenes := []string{"scene-01", "scene-02", "scene-03", "scene-04", "scene-05", "scene-06", "scene-07", "scene-08"}
	formats := []string{"md", "xml", "json"}
	n := 60
	if testing.Short() {
		n = 15
	}
	fitted := 0
	for range n {
		req := packet.Request{
			NS:     "tidewater-lamp",
			Focus:  []string{scenes[rng.IntN(len(scenes))]},
			Budget: 200 + rng.IntN(12000),
			Format: formats[rng.IntN(len(formats))],
			Hops:   1 + rng.IntN(2),
		}
		if rng.IntN(2) == 0 {
			req.Query = "lamp oil storm"
		}
		p, err := l.Packet(context.Background(), req)
		if errors.Is(err, packet.ErrCannotFit) {
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		out, err := p.Render(req.Format)
		if err != nil {
			t.Fatal(err)
		}
		got := l.Counter().Count(string(out))
		if p.FrameOnly {
			// Rule 7: below the frame, only the frame is written (and
			// everything is deferred); it alone may exceed the budget.
			if len(p.Records) != 0 {
				t.Errorf("focus %v budget %d: frame-only packet includes %d records", req.Focus, req.Budget, len(p.Records))
			}
			continue
		}
		if got > req.Budget {
			t.Errorf("focus %v query %q hops %d budget %d format %s: rendered packet counts %d tokens (states %d)", req.Focus, req.Query, req.Hops, req.Budget, req.Format, got, p.Tokens)
		}
		fitted++
	}
	if fitted < n/3 {
		t.Errorf("only %d of %d random requests fitted: the property was barely exercised", fitted, n)
	}
}

// A packet in one novel never contains the other novel's same-named
// character, even when the query names it.
func TestPacketNamespaceWall(t *testing.T) {
	l := demoStore(t)
	other, err := l.Get("glass-orchard", "oren")
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []packet.Request{
		{NS: "tidewater-lamp", Query: "Oren Hale glassblower Caddow kiln", Budget: 20000},
		{NS: "tidewater-lamp", Focus: []string{"oren"}, Query: "glassblower", Budget: 20000, Hops: 2},
	} {
		stdout, stderr, exit := outcome(l, req)
		if exit == 1 || exit == 3 {
			t.Fatalf("%+v: exit %d: %s", req, exit, stderr)
		}
		// The query is echoed in the packet's heading: look for words of
		// the other novel's record that the query does not contain.
		for _, leak := range []string{"journeyman", "apple-growing", "whistling", other.Summary[:40]} {
			if strings.Contains(stdout, leak) {
				t.Errorf("packet in tidewater-lamp for %q contains %q from glass-orchard", req.Query, leak)
			}
		}
	}
}

// Story time: a fact true only from a later position is not leaked into a
// packet as of an earlier one.
func TestPacketAsOf(t *testing.T) {
	l := demoStore(t)
	later, err := l.Get("tidewater-lamp", "canon-lamp-bound-mara")
	if err != nil {
		t.Fatal(err)
	}
	if later.Meta["from"] == "" {
		t.Fatalf("demo canon: canon-lamp-bound-mara has no meta.from; the test needs a fact that starts later")
	}
	req := packet.Request{NS: "tidewater-lamp", Focus: []string{"mara"}, Budget: 20000, Hops: 2}
	req.AsOf = 2
	early, _, _ := outcome(l, req)
	named := func(packet string) bool {
		return strings.Contains(packet, "[canon-lamp-bound-mara ") || strings.Contains(packet, "`canon-lamp-bound-mara`")
	}
	if named(early) {
		t.Errorf("packet as of 2 contains canon-lamp-bound-mara (valid from %s)", later.Meta["from"])
	}
	req.AsOf = 8
	late, _, _ := outcome(l, req)
	if !named(late) {
		t.Errorf("packet as of 8 lacks canon-lamp-bound-mara (valid from %s): the test cannot tell story time from absence", later.Meta["from"])
	}
}

// The same request twice, and against a store built by importing the same
// records in another order, gives identical bytes.
func TestPacketDeterminism(t *testing.T) {
	a := demoStore(t)
	var recs []store.Record
	var links []store.Link
	for _, ns := range []string{"glass-orchard", "tidewater-lamp"} {
		if err := a.Store().ForEach(ns, func(r store.Record) error { recs = append(recs, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := a.Store().ForEachLink(ns, func(lk store.Link) error { links = append(links, lk); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	slices.Reverse(recs)
	slices.Reverse(links)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	b, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, r := range recs { // one at a time, in the shuffled order
		if _, err := b.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.PutMany(context.Background(), nil, links); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"md", "xml", "json"} {
		req := packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-06"}, Query: "saltlight memory", Budget: 7000, Format: format, Hops: 2, When: []string{"power"}}
		first, _, _ := outcome(a, req)
		again, _, _ := outcome(a, req)
		other, _, _ := outcome(b, req)
		if first == "" || first != again {
			t.Errorf("%s: the same request twice gave different bytes (or none)", format)
		}
		if !bytes.Equal([]byte(first), []byte(other)) {
			t.Errorf("%s: a store imported in another order gave different bytes:\n%s", format, firstDiff(first, other))
		}
	}
}

// Story time for ordered records: drafting scene 3, the later scenes are
// not shown (scene-06 shows what canon-lamp-bound-mara withholds); a plan
// sees ahead; --as-of -1 turns story time off.
func TestPacketStoryTimeHidesLaterScenes(t *testing.T) {
	l := demoStore(t)
	req := packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-03"}, Query: "second light binding", Budget: 20000, Hops: 2}
	shown := func(r packet.Request) map[string]bool {
		p, err := l.Packet(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, e := range p.Records {
			ids[e.ID] = true
		}
		for _, s := range p.Skipped {
			if s.ID == "scene-06" && !strings.Contains(s.Reason, "later in the story (order") {
				t.Errorf("scene-06 skipped as %q; want the story-time reason", s.Reason)
			}
		}
		return ids
	}
	for _, task := range []string{"", "draft", "revise"} {
		req.Task = task
		got := shown(req)
		if got["scene-06"] || got["scene-08"] {
			t.Errorf("task %q: the draft packet of scene-03 shows a later scene (scene-06 %v, scene-08 %v)", task, got["scene-06"], got["scene-08"])
		}
		if !got["scene-03"] || !got["timeline-03-oil-cut"] {
			t.Errorf("task %q: the focus or the timeline entry after it is missing: %v", task, got)
		}
	}
	for _, r := range []packet.Request{{Task: "plan"}, {Task: "audit"}, {AsOf: packet.NoStoryTime}} {
		q := req
		q.Task, q.AsOf = r.Task, r.AsOf
		if got := shown(q); !got["scene-06"] || !got["scene-08"] {
			t.Errorf("task %q as-of %d: later scenes missing (scene-06 %v, scene-08 %v)", r.Task, r.AsOf, got["scene-06"], got["scene-08"])
		}
	}
}
