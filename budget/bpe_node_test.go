package budget

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDifferentialNode compares counts with OpenAI's own tokenizer (npm
// tiktoken 1.0.22, WASM) on random texts. It needs node and `npm ci` in
// testdata/tokens/bench, so it runs only when LORE_NODE_TIKTOKEN=1.
func TestDifferentialNode(t *testing.T) {
	if os.Getenv("LORE_NODE_TIKTOKEN") != "1" {
		t.Skip("set LORE_NODE_TIKTOKEN=1 (needs node and npm ci in testdata/tokens/bench)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "tokens", "bench"))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 5))
	var texts []string
	var in bytes.Buffer
	for k := range 23000 {
		// Mostly short texts, some long ones, and long pieces of a few
		// letters, spaces or symbols (the heap merge's ground).
		var s string
		switch {
		case k < 20000:
			s = randomText(r, 40)
		case k < 22000:
			s = randomText(r, 1500)
		default:
			s = longPiece(r, 100+r.IntN(5000))
		}
		texts = append(texts, s)
		b, _ := json.Marshal(map[string]string{"text": s})
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", "count.mjs")
	cmd.Dir = dir
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node count.mjs: %v", err)
	}
	cl, o := mustCounter(t, "cl100k_base"), mustCounter(t, "o200k_base")
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for ; sc.Scan(); i++ {
		var want struct{ CL100K, O200K int }
		var raw map[string]int
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		want.CL100K, want.O200K = raw["cl100k_base"], raw["o200k_base"]
		if got := cl.Count(texts[i]); got != want.CL100K {
			t.Errorf("cl100k_base Count(%q) = %d, node says %d", texts[i], got, want.CL100K)
		}
		if got := o.Count(texts[i]); got != want.O200K {
			t.Errorf("o200k_base Count(%q) = %d, node says %d", texts[i], got, want.O200K)
		}
	}
	if i != len(texts) {
		t.Fatalf("node gave %d counts for %d texts", i, len(texts))
	}
}

// longPiece returns n bytes drawn from one small alphabet: DNA letters,
// two letters, spaces and tabs, '=' and '-', Han, or emoji.
func longPiece(r *rand.Rand, n int) string {
	sets := [][]string{{"A", "C", "G", "T"}, {"a", "b"}, {"a", "b", "c", "d", "e"}, {" ", "\t"}, {"=", "-"}, {"中", "文", "字"}, {"😀", "👍"}, {"x", "X"}}
	set := sets[r.IntN(len(sets))]
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(set[r.IntN(len(set))])
	}
	return b.String()
}
