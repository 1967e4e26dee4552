package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore/store"
)

// Ids, titles and relations with quotes, backslashes, pipes and angle
// brackets stay inside their quoted labels in both formats.
func TestGraphTextEscapes(t *testing.T) {
	nbs := []neighborOut{
		{ID: `say "hi"`, Hops: 1, Title: `a \ title`, Via: store.Link{From: `x|y`, Rel: "quotes", To: `say "hi"`}},
		{ID: "gone", Hops: 1, Missing: true, Via: store.Link{From: `x|y`, Rel: "a|b<c>", To: "gone"}},
	}
	dot := graphText("dot", "ns", `x|y`, "Root <1>", nbs)
	for _, want := range []string{`"say \"hi\"" [label="say \"hi\"\na \\ title"];`, `"gone" [label="gone", style=dashed];`, `"x|y" -> "gone" [label="a|b<c>"];`} {
		if !strings.Contains(dot, want) {
			t.Errorf("dot lacks %s:\n%s", want, dot)
		}
	}
	mm := graphText("mermaid", "ns", `x|y`, "Root <1>", nbs)
	for _, want := range []string{`n0["x#124;y<br/>Root #lt;1#gt;"]`, `n1["say #quot;hi#quot;<br/>a \ title"]`, `n2(["gone"])`, `n0 -->|"a#124;b#lt;c#gt;"| n2`} {
		if !strings.Contains(mm, want) {
			t.Errorf("mermaid lacks %s:\n%s", want, mm)
		}
	}
}

// On the demo canon, the DOT graph of a scene's two hops is one Graphviz
// reads: where Graphviz's dot is installed (.ci/run installs it and sets
// LORE_NEED_DOT), it renders.
func TestNeighborsDot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if _, errs, code := runCLI(t, "", "demo", "--dir", dir); code != exitOK && code != exitDeferred {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	out, errs, code := runCLI(t, "", "--store", dir, "neighbors", "--ns", "tidewater-lamp", "--hops", "2", "--format", "dot", "scene-03")
	if code != exitOK || !strings.HasPrefix(out, `digraph "tidewater-lamp scene-03" {`) || !strings.Contains(out, `"sefa" -> "scene-03" [label="appears_in"];`) {
		t.Fatalf("neighbors --format dot: exit %d %s\n%s", code, errs, out)
	}
	mm, _, code := runCLI(t, "", "--store", dir, "neighbors", "--ns", "tidewater-lamp", "--format", "mermaid", "scene-03")
	if code != exitOK || !strings.HasPrefix(mm, "graph LR\n") || strings.Count(mm, "-->") < 5 {
		t.Errorf("neighbors --format mermaid: exit %d\n%s", code, mm)
	}
	dotBin, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("LORE_NEED_DOT") != "" {
			t.Fatal("LORE_NEED_DOT is set (.ci/run installs Graphviz), but dot is not on PATH")
		}
		t.Log("Graphviz's dot is not installed: the DOT text was not rendered")
		return
	}
	cmd := exec.Command(dotBin, "-Tsvg")
	cmd.Stdin = strings.NewReader(out)
	svg, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("dot -Tsvg: %v\n%s", err, svg)
	}
}
