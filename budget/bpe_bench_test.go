package budget

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/lorekeep/lore/internal/rusage"
)

// The benchmark corpus is built from files that the pinned modules ship
// (so it is the same on every machine with the module cache filled) and
// from the golden vectors. BENCHMARKS.md explains how to compare it with
// npm tiktoken: TestWriteBenchCorpus writes the same texts to files.

var (
	corpusOut    = flag.String("corpus", "", "TestWriteBenchCorpus writes the benchmark texts into this directory")
	corpusCounts = flag.String("corpus-counts", "", "TestWriteBenchCorpus writes the texts' token counts into this JSONL file")
)

// nodeRunBytes is how much of a run-* text bench.mjs counts (its
// --max-run-bytes): the reference is quadratic on runs.
const nodeRunBytes = 32768

// benchKinds are the texts of the benchmark, in table order.
var benchKinds = []string{"prose", "code", "cjk", "json", "golden", "mixed", "run-a", "run-space", "run-equals", "run-emoji"}

var (
	corpusOnce sync.Once
	corpus     map[string]string
	corpusErr  error
)

const corpusSize = 1 << 20

// benchCorpus returns the benchmark texts, or skips when the module
// cache lacks the source files.
func benchCorpus(tb testing.TB) map[string]string {
	tb.Helper()
	corpusOnce.Do(func() { corpus, corpusErr = buildCorpus() })
	if corpusErr != nil {
		tb.Skipf("benchmark corpus: %v", corpusErr)
	}
	return corpus
}

func buildCorpus() (map[string]string, error) {
	root := os.Getenv("GOMODCACHE")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), "go", "pkg", "mod")
		if gp := os.Getenv("GOPATH"); gp != "" {
			root = filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod")
		}
	}
	read := func(patterns ...string) (string, error) {
		var b strings.Builder
		for _, p := range patterns {
			files, err := filepath.Glob(filepath.Join(root, p))
			if err != nil || len(files) == 0 {
				return "", os.ErrNotExist
			}
			slices.Sort(files)
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					return "", err
				}
				b.Write(data)
				b.WriteString("\n")
			}
		}
		return b.String(), nil
	}
	prose, err := read("github.com/spf13/cobra@v1.10.2/site/content/*.md",
		"github.com/blevesearch/bleve/v2@v2.6.3/docs/*.md",
		"github.com/spf13/pflag@v1.0.10/README.md",
		"github.com/dlclark/regexp2@v1.10.0/README.md")
	if err != nil {
		return nil, err
	}
	code, err := read("go.etcd.io/bbolt@v1.5.0/*.go")
	if err != nil {
		return nil, err
	}
	zh, err := read("github.com/pkoukk/tiktoken-go@v0.1.8/README_zh-hans.md")
	if err != nil {
		return nil, err
	}
	// CJK: the lines of the Chinese README that are mostly Han.
	var cjk strings.Builder
	for l := range strings.Lines(zh) {
		han := 0
		for _, r := range l {
			if unicode.Is(unicode.Han, r) {
				han++
			}
		}
		if han*3 >= len([]rune(l)) && han > 0 {
			cjk.WriteString(l)
		}
	}
	golden, err := os.ReadFile(filepath.Join("..", "testdata", "tokens", "golden.jsonl"))
	if err != nil {
		return nil, err
	}
	c := map[string]string{
		"prose":      repeatTo(prose, corpusSize),
		"code":       repeatTo(code, corpusSize),
		"cjk":        repeatTo(cjk.String(), corpusSize),
		"json":       repeatTo(jsonRecords(prose), corpusSize),
		"golden":     repeatTo(string(golden), corpusSize),
		"run-a":      strings.Repeat("a", corpusSize),
		"run-space":  strings.Repeat(" ", corpusSize),
		"run-equals": strings.Repeat("=", corpusSize),
		"run-emoji":  strings.Repeat("😀", corpusSize/4),
	}
	c["mixed"] = c["prose"] + c["code"] + c["cjk"] + c["json"]
	return c, nil
}

// jsonRecords renders the paragraphs of prose as indented JSON records,
// the shape of an API response or an export of a store.
func jsonRecords(prose string) string {
	type record struct {
		ID     string            `json:"id"`
		Kind   string            `json:"kind"`
		Title  string            `json:"title"`
		Tags   []string          `json:"tags"`
		Meta   map[string]string `json:"meta"`
		Order  int               `json:"order"`
		Pinned bool              `json:"pinned"`
		Tokens int               `json:"tokens"`
		Body   string            `json:"body"`
	}
	var recs []record
	for i, para := range strings.Split(prose, "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		words := strings.Fields(para)
		recs = append(recs, record{
			ID:     fmt.Sprintf("doc-%05d", i),
			Kind:   []string{"note", "scene", "fact", "file"}[i%4],
			Title:  strings.Join(words[:min(6, len(words))], " "),
			Tags:   []string{"docs", []string{"alpha", "beta", "gamma"}[i%3]},
			Meta:   map[string]string{"chapter": strconv.Itoa(i % 40), "source": "module cache"},
			Order:  i,
			Pinned: i%7 == 0,
			Tokens: len(words) * 4 / 3,
			Body:   para,
		})
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// repeatTo repeats whole lines of s until the result has about n bytes.
func repeatTo(s string, n int) string {
	if len(s) == 0 {
		return s
	}
	var b strings.Builder
	for b.Len()+len(s) <= n {
		b.WriteString(s)
	}
	for l := range strings.Lines(s) {
		if b.Len()+len(l) > n {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// TestWriteBenchCorpus writes the benchmark texts as KIND.txt files when
// run with -corpus DIR (see testdata/tokens/bench/run.sh).
func TestWriteBenchCorpus(t *testing.T) {
	if *corpusOut == "" {
		t.Skip("run with -corpus DIR to write the benchmark texts")
	}
	texts := benchCorpus(t)
	var counts strings.Builder
	for _, kind := range benchKinds {
		text := texts[kind]
		if err := os.WriteFile(filepath.Join(*corpusOut, kind+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, enc := range []string{"cl100k_base", "o200k_base"} {
			c := mustCounter(t, enc)
			fmt.Fprintf(&counts, `{"file":%q,"encoding":%q,"tokens":%d,"prefixTokens":%d}`+"\n",
				kind, enc, c.Count(text), c.Count(text[:min(len(text), nodeRunBytes)]))
		}
	}
	if *corpusCounts != "" {
		if err := os.WriteFile(*corpusCounts, []byte(counts.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkCount counts each text on one goroutine (Count without the
// parallel path), the figure to compare with npm tiktoken.
func BenchmarkCount(b *testing.B) {
	texts := benchCorpus(b)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(b, enc)
		for _, kind := range benchKinds {
			s := texts[kind]
			b.Run(enc+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(s)))
				cpu := rusage.CPU()
				for b.Loop() {
					c.count(sanitize(s))
				}
				reportCPU(b, cpu, len(s))
			})
		}
	}
}

// reportCPU adds the cpu-MB/s metric: bytes counted per second of CPU time
// used by the process since start (see rusage.CPU).
func reportCPU(b *testing.B, start time.Duration, size int) {
	if used := rusage.CPU() - start; start > 0 && used > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/used.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkCountParallel counts with Count, which splits texts of 1 MB
// or more across all cores where it can.
func BenchmarkCountParallel(b *testing.B) {
	texts := benchCorpus(b)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(b, enc)
		for _, kind := range []string{"prose", "code", "json", "golden", "mixed"} {
			s := texts[kind]
			b.Run(enc+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					c.Count(s)
				}
			})
		}
	}
}

// BenchmarkEncode measures Encode (token ids, for truncation).
func BenchmarkEncode(b *testing.B) {
	texts := benchCorpus(b)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(b, enc)
		s := texts["mixed"]
		b.Run(enc+"/mixed", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				c.Encode(s)
			}
		})
	}
}

// BenchmarkLibrary measures pkoukk/tiktoken-go's EncodeOrdinary on the
// texts where it finishes (not the runs: it is quadratic there).
func BenchmarkLibrary(b *testing.B) {
	texts := benchCorpus(b)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		lib := library(b, enc)
		for _, kind := range []string{"prose", "code", "cjk", "json", "golden", "mixed"} {
			s := texts[kind]
			b.Run(enc+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(s)))
				cpu := rusage.CPU()
				for b.Loop() {
					lib.EncodeOrdinary(s)
				}
				reportCPU(b, cpu, len(s))
			})
		}
	}
}

// BenchmarkSplit measures the splitters alone (no merging).
func BenchmarkSplit(b *testing.B) {
	texts := benchCorpus(b)
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		c := mustCounter(b, enc)
		s := texts["mixed"]
		b.Run(enc+"/mixed", func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				for i := 0; i < len(s); i = c.split(s, i) {
				}
			}
		})
	}
}
