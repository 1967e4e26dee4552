package mention

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchNames makes records × 3 names: a two-word capitalised name, a
// "the X" alias and a lower-case key, from a fixed seed.
func benchNames(records int) []Name {
	rng := rand.New(rand.NewPCG(17, 17))
	syl := []string{"ka", "ro", "vel", "an", "mi", "dor", "sa", "lin", "tu", "wen", "es", "bra"}
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		return b.String()
	}
	title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
	out := make([]Name, 0, 3*records)
	for i := range records {
		id := fmt.Sprintf("rec-%05d", i)
		out = append(out,
			Name{Text: title(word(2)) + " " + title(word(3)), ID: id, Via: "alias"},
			Name{Text: "the " + title(word(3)), ID: id, Via: "alias"},
			Name{Text: word(3), ID: id, Via: "key"})
	}
	return out
}

// benchText is a 5,000-word scene: common words, with one name in fifty.
func benchText(names []Name) string {
	rng := rand.New(rand.NewPCG(5, 5))
	common := strings.Fields("the a of and to in she he it was at by on with her his light sea rock said stood under")
	var b strings.Builder
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i%50 == 0 {
			b.WriteString(names[rng.IntN(len(names))].Text)
			continue
		}
		b.WriteString(common[rng.IntN(len(common))])
	}
	return b.String()
}

// BenchmarkBuild builds the matcher of a namespace of 10,000 records with
// 3 names each.
func BenchmarkBuild(b *testing.B) {
	names := benchNames(10000)
	b.ReportAllocs()
	for b.Loop() {
		New(names)
	}
}

// BenchmarkBuildFor builds the matcher of that namespace for one
// 5,000-word scene: only the names whose words the scene holds.
func BenchmarkBuildFor(b *testing.B) {
	names := benchNames(10000)
	text := benchText(names)
	b.ReportAllocs()
	for b.Loop() {
		NewFor(names, text)
	}
}

// BenchmarkScan scans a 5,000-word scene with that matcher and reports
// the median scan as p50-ns.
func BenchmarkScan(b *testing.B) {
	names := benchNames(10000)
	m := New(names)
	text := benchText(names)
	if n := len(m.Scan(text)); n < 50 {
		b.Fatalf("only %d matches in the scene", n)
	}
	var times []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		m.Scan(text)
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
}
