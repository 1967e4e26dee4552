package budget

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// goldenVector is one line of testdata/tokens/golden.jsonl.
type goldenVector struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Text     string `json:"text"`
	TextB64  string `json:"text_b64"`
	CL100K   *int   `json:"cl100k_base"`
	O200K    *int   `json:"o200k_base"`
}

func (g goldenVector) input(t *testing.T) string {
	if g.TextB64 == "" {
		return g.Text
	}
	b, err := base64.StdEncoding.DecodeString(g.TextB64)
	if err != nil {
		t.Fatalf("%s: bad text_b64 %q: %v", g.ID, g.TextB64, err)
	}
	return string(b)
}

func readGolden(t *testing.T) []goldenVector {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "tokens", "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goldenVector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var g goldenVector
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("golden line %d: %v", len(out)+1, err)
		}
		if g.CL100K == nil || g.O200K == nil {
			t.Fatalf("golden line %d (%s): missing fields", len(out)+1, g.ID)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustCounter(t testing.TB, name string) *bpeCounter {
	t.Helper()
	c, err := NewCounter(name)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*bpeCounter)
}

func TestGolden(t *testing.T) {
	vecs := readGolden(t)
	if len(vecs) < 200 {
		t.Fatalf("golden.jsonl has %d vectors, want at least 200", len(vecs))
	}
	b64 := 0
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(t, enc)
		for _, g := range vecs {
			want := *g.CL100K
			if enc == "o200k_base" {
				want = *g.O200K
			}
			in := g.input(t)
			if got := c.Count(in); got != want {
				t.Errorf("%s %s (%s) Count(%q) = %d, want %d", enc, g.ID, g.Category, in, got, want)
			}
			if got := len(c.Encode(in)); got != want {
				t.Errorf("%s %s (%s) len(Encode(%q)) = %d, want %d", enc, g.ID, g.Category, in, got, want)
			}
			if g.TextB64 != "" {
				b64++
			} else if got := c.Decode(c.Encode(in)); got != in {
				t.Errorf("%s %s: Decode(Encode(%q)) = %q", enc, g.ID, in, got)
			}
		}
	}
	if b64 == 0 {
		t.Error("no text_b64 vector was checked")
	}
}

func TestNewCounterNames(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		exact      bool
	}{
		{"", "o200k_base", true},
		{"o200k_base", "o200k_base", true},
		{"cl100k_base", "cl100k_base", true},
		{"estimate", "estimate", false},
	} {
		c, err := NewCounter(tc.name)
		if err != nil {
			t.Fatalf("NewCounter(%q): %v", tc.name, err)
		}
		if c.Name() != tc.want || Exact(c) != tc.exact {
			t.Errorf("NewCounter(%q): Name %q Exact %v, want %q %v", tc.name, c.Name(), Exact(c), tc.want, tc.exact)
		}
		if _, ok := c.(Tokenizer); ok != tc.exact {
			t.Errorf("NewCounter(%q) implements Tokenizer: %v, want %v", tc.name, ok, tc.exact)
		}
	}
}

func TestNewCounterUnknown(t *testing.T) {
	for _, name := range []string{"gpt-4o", "O200K_BASE", "p50k_base", " o200k_base"} {
		c, err := NewCounter(name)
		if err == nil {
			t.Fatalf("NewCounter(%q) = %v, want an error", name, c.Name())
		}
		if !errors.Is(err, ErrUnknownEncoding) || !errors.Is(err, ErrInvalid) {
			t.Errorf("NewCounter(%q) error %v does not match ErrUnknownEncoding and ErrInvalid", name, err)
		}
		msg := err.Error()
		for _, want := range append(Encodings(), `"`+name+`"`) {
			if !strings.Contains(msg, want) {
				t.Errorf("NewCounter(%q) error %q does not mention %q", name, msg, want)
			}
		}
	}
}

// exactCounter has an Exact method, like a counter from another package.
type exactCounter struct{ estimator }

func (exactCounter) Exact() bool { return true }

type plainCounter struct{}

func (plainCounter) Name() string     { return "words" }
func (plainCounter) Count(string) int { return 0 }

func TestExact(t *testing.T) {
	if !Exact(exactCounter{}) {
		t.Error("Exact(counter with Exact() true) = false")
	}
	if Exact(plainCounter{}) {
		t.Error("Exact(counter without Exact method) = true, want false")
	}
}

func TestSpecialTokenTextIsOrdinary(t *testing.T) {
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(t, enc)
		for _, s := range []string{"<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>", "a<|endoftext|>b<|endoftext|>"} {
			ids := c.Encode(s)
			if c.Count(s) != len(ids) || len(ids) < 2 {
				t.Errorf("%s: Count(%q) = %d, Encode gives %d ids: want the same count, more than one token", enc, s, c.Count(s), len(ids))
			}
			if got := c.Decode(ids); got != s {
				t.Errorf("%s: Decode(Encode(%q)) = %q", enc, s, got)
			}
		}
		if got := c.Count("<|endoftext|>"); got != 7 {
			t.Errorf("%s: Count(<|endoftext|>) = %d, want 7", enc, got)
		}
	}
}

func TestDecodeSkipsUnknownIDs(t *testing.T) {
	c := mustCounter(t, "cl100k_base")
	ids := c.Encode("hello world")
	in := append([]int{-1, 100257, 1 << 30}, ids...)
	if got := c.Decode(in); got != "hello world" {
		t.Errorf("Decode(%v) = %q, want %q", in, got, "hello world")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	// Many goroutines ask for both encodings at once: each loads once and
	// all of them count the same.
	var wg sync.WaitGroup
	got := make([]int, 16)
	for i := range got {
		wg.Go(func() {
			c, err := NewCounter([]string{"cl100k_base", "o200k_base"}[i%2])
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = c.Count("The quick brown fox jumps over the lazy dog. 1234567")
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[i%2] || got[i] == 0 {
			t.Fatalf("concurrent counts differ or are zero: %v", got)
		}
	}
	// A fresh encoding (the package's own may be loaded by now), loaded
	// by many goroutines at once: all get the same table (-race checks
	// the rest).
	for _, e := range encodings {
		fresh := &encoding{name: e.name, file: e.file, split: e.split}
		vs := make([]*vocab, 8)
		var wg sync.WaitGroup
		for i := range vs {
			wg.Go(func() { vs[i], _ = fresh.load() })
		}
		wg.Wait()
		for i := range vs {
			if vs[i] == nil || vs[i] != vs[0] {
				t.Fatalf("%s: concurrent first loads gave different tables", e.name)
			}
		}
	}
}
