package budget

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore/budget/internal/gen"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// TestRankFilesUpToDate regenerates the rank files from the offline
// loader's assets into a temporary directory and compares them with the
// embedded ones: run `go generate ./budget/` when it fails.
func TestRankFilesUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := gen.Write(dir); err != nil {
		t.Fatal(err)
	}
	embedded := map[string]string{"cl100k_base": cl100kRanks, "o200k_base": o200kRanks}
	for _, name := range gen.Encodings {
		b, err := os.ReadFile(filepath.Join(dir, gen.FileName(name)))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != embedded[name] {
			t.Errorf("%s is stale: run go generate ./budget/", gen.FileName(name))
		}
		if _, err := os.Stat(gen.FileName(name)); err != nil {
			t.Errorf("checked-in %s: %v", gen.FileName(name), err)
		}
	}
}

// TestVocabMatchesLoader checks every token of the loaded tables against
// the library's own parse of the loader's files: same bytes for the same
// rank, and the hash table finds each token.
func TestVocabMatchesLoader(t *testing.T) {
	for _, enc := range []string{"cl100k_base", "o200k_base"} {
		v := mustCounter(t, enc).v
		ranks, err := offlineRanks(enc)
		if err != nil {
			t.Fatal(err)
		}
		if v.size() != len(ranks) {
			t.Fatalf("%s: %d tokens, loader has %d", enc, v.size(), len(ranks))
		}
		for tok, r := range ranks {
			if got := v.rank(tok); got != uint32(r) {
				t.Fatalf("%s: rank(%q) = %d, want %d", enc, tok, got, r)
			}
			if got, ok := v.token(r); !ok || got != tok {
				t.Fatalf("%s: token(%d) = %q, want %q", enc, r, got, tok)
			}
		}
		for _, s := range []string{"", "not a token at all, surely", "\xff\xfe\xfd"} {
			if _, ok := ranks[s]; !ok && v.rank(s) != noRank {
				t.Errorf("%s: rank(%q) = %d, want none", enc, s, v.rank(s))
			}
		}
	}
}

func TestLoadVocabRejectsBadFiles(t *testing.T) {
	good := cl100kRanks
	for name, file := range map[string]string{
		"empty":     "",
		"magic":     "NOTRANKS" + good[8:],
		"version":   good[:8] + "\x02" + good[9:],
		"truncated": good[:len(good)-1],
		"no count":  good[:9],
	} {
		if _, err := loadVocab(file); err == nil {
			t.Errorf("loadVocab(%s file) = nil error", name)
		}
	}
}

func BenchmarkLoadVocab(b *testing.B) {
	for _, e := range encodings {
		b.Run(e.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := loadVocab(*e.file); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// offlineRanks parses the loader's .tiktoken file as the library does.
func offlineRanks(enc string) (map[string]int, error) {
	return tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(enc + ".tiktoken")
}

// TestLoadTimeFreshProcess measures how long NewCounter takes for each
// encoding in a fresh process (a child running this test binary), best of
// five, beside the library's GetEncoding with the offline loader, and logs
// it (LORE_MEASURE_LOAD=1 go test -v; run.sh prints it). It asserts
// nothing about time, only that the child worked.
func TestLoadTimeFreshProcess(t *testing.T) {
	if name := os.Getenv("LORE_LOAD_CHILD"); name != "" {
		t0 := time.Now()
		if lib, ok := strings.CutPrefix(name, "tiktoken-go/"); ok {
			tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
			if _, err := tiktoken.GetEncoding(lib); err != nil {
				t.Fatal(err)
			}
		} else if _, err := NewCounter(name); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("load-ms %s %.3f\n", name, float64(time.Since(t0).Microseconds())/1000)
		return
	}
	if os.Getenv("LORE_MEASURE_LOAD") != "1" {
		t.Skip("measurement only: set LORE_MEASURE_LOAD=1 (run.sh does)")
	}
	for _, name := range []string{"cl100k_base", "o200k_base", "tiktoken-go/cl100k_base", "tiktoken-go/o200k_base"} {
		best := math.Inf(1)
		for range 5 {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLoadTimeFreshProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "LORE_LOAD_CHILD="+name)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child for %s: %v\n%s", name, err, out)
			}
			var got string
			var ms float64
			for l := range strings.Lines(string(out)) {
				if _, err := fmt.Sscanf(l, "load-ms %s %f", &got, &ms); err == nil && got == name {
					best = min(best, ms)
				}
			}
		}
		if math.IsInf(best, 1) {
			t.Fatalf("child for %s printed no load time", name)
		}
		t.Logf("%s: ready in a fresh process: %.2f ms (best of 5)", name, best)
	}
}
