package packet

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
)

func TestNamespaceWall(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	// The query names novel-b's Mara by its unique word; the focus is
	// novel-a's scene with a record of the same id in novel-b.
	req := fxSceneRequest(100000)
	req.Query = "ZEBRA-B Brightwater Mara fire"
	for _, format := range validFormats {
		req.Format = format
		p, out := fxBuild(t, env, req)
		if bytes.Contains(out, []byte("Mara of the other novel")) || bytes.Contains(out, []byte("Brightwater scene")) {
			t.Errorf("%s packet in novel-a contains novel-b's record:\n%s", format, out)
		}
		if _, ok := findEntry(p, "mara"); !ok {
			t.Errorf("%s: novel-a's mara missing: %v", format, entryIDs(p))
		}
	}
	// The other way round: a packet in novel-b never shows novel-a.
	p, out := fxBuild(t, env, Request{NS: "novel-b", Focus: []string{"mara"}, Query: "Voss mill", Budget: 8000})
	if bytes.Contains(out, []byte("miller's daughter")) || len(p.Records) != 2 {
		t.Errorf("novel-b packet crossed the wall or lost its records: %v\n%s", entryIDs(p), out)
	}
}

// wallSource returns records of another namespace, as a broken adapter
// might; Build must still keep them out.
type wallSource struct{ Source }

func (w wallSource) List(o store.ListOptions) ([]store.Record, string, error) {
	recs, next, err := w.Source.List(o)
	return append(recs, store.Record{NS: "novel-b", ID: "intruder", Kind: o.Kind, Body: "INTRUDER"}), next, err
}

type wallSearcher struct{}

func (wallSearcher) Search(context.Context, index.Query) ([]index.Hit, error) {
	return []index.Hit{{NS: "novel-b", ID: "mara", Score: 9}}, nil
}

func TestNamespaceWallAgainstLeakySource(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(100000)
	req.Query = "mara"
	req.Counter = fxCounter(t)
	p, err := Build(context.Background(), wallSource{env.st}, wallSearcher{}, req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := p.Render("md")
	if bytes.Contains(out, []byte("INTRUDER")) || bytes.Contains(out, []byte("ZEBRA-B")) {
		t.Errorf("packet took records of another namespace:\n%s", out)
	}
}

func TestStoryTime(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	tests := []struct {
		asOf          int64
		secret, named bool // mara-secret (from 30) and old-name (until scene-11 = 11)
	}{
		{asOf: NoStoryTime, secret: true},
		{asOf: 0, secret: false}, // the focus's position: 12
		{asOf: 12, secret: false},
		{asOf: 30, secret: true},
		{asOf: 40, secret: true},
	}
	for _, tt := range tests {
		req := fxSceneRequest(100000)
		req.AsOf = tt.asOf
		p, out := fxBuild(t, env, req)
		_, got := findEntry(p, "mara-secret")
		if got != tt.secret {
			t.Errorf("as-of %d: mara-secret loaded %v; want %v", tt.asOf, got, tt.secret)
		}
		if !tt.secret {
			if bytes.Contains(out, []byte("set the fire herself")) {
				t.Errorf("as-of %d: the later fact leaked into the packet", tt.asOf)
			}
			i := slices.IndexFunc(p.Skipped, func(s Skip) bool { return s.ID == "mara-secret" })
			if i < 0 || !strings.Contains(p.Skipped[i].Reason, "story time") {
				t.Errorf("as-of %d: mara-secret not reported as skipped by story time: %+v", tt.asOf, p.Skipped)
			}
		}
	}
	// meta.until names a record: old-name holds until scene-11 (order 11),
	// inclusive.
	for _, tt := range []struct {
		asOf int64
		want bool
	}{{10, true}, {11, true}, {12, false}} {
		req := fxSceneRequest(100000)
		req.Hops, req.AsOf = 2, tt.asOf
		p, _ := fxBuild(t, env, req)
		if _, got := findEntry(p, "old-name"); got != tt.want {
			t.Errorf("as-of %d: old-name loaded %v; want %v", tt.asOf, got, tt.want)
		}
	}
}

func TestConditionFalseNotLoaded(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(100000)
	req.Task, req.When = "plan", nil
	p, out := fxBuild(t, env, req)
	for _, id := range []string{"fire-magic", "voice", "reader-ash", "theme-ash"} {
		if _, ok := findEntry(p, id); ok {
			t.Errorf("%s loaded although its condition is false", id)
		}
		if _, ok := findNote(p, id); ok {
			t.Errorf("%s has a deferral note; a false condition means not loaded at all", id)
		}
	}
	// theme-ash is linked to the scene, so it was a candidate: it is
	// counted as not loaded, with the condition that would load it.
	i := slices.IndexFunc(p.Skipped, func(s Skip) bool { return s.ID == "theme-ash" })
	if i < 0 || !strings.Contains(p.Skipped[i].Reason, "--when thematic") {
		t.Errorf("theme-ash not reported as skipped: %+v", p.Skipped)
	}
	if !strings.Contains(p.Report(), fmt.Sprintf("Not loaded: %s (", records(len(p.Skipped)))) || len(p.Skipped) != 2 {
		t.Errorf("report does not count the record not loaded:\n%s", p.Report())
	}
	if bytes.Contains(out, []byte("Style DNA")) {
		t.Error("style loaded for a plan task")
	}
}

func TestKindFilters(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	req := fxSceneRequest(100000)
	req.Kinds = []string{"character"}
	p, _ := fxBuild(t, env, req)
	if got, want := entryIDs(p), []string{"scene-12", "mara", "tomas"}; !slices.Equal(got, want) {
		t.Errorf("kinds character: records %v; want %v (focus always stays)", got, want)
	}
	req.Kinds, req.ExcludeKinds = nil, []string{"timeline", "theme"}
	p, _ = fxBuild(t, env, req)
	for _, e := range p.Records {
		if e.Kind == "timeline" || e.Kind == "theme" {
			t.Errorf("excluded kind %s loaded: %s", e.Kind, e.ID)
		}
	}
}

// TestDeterminism: the same request twice, and a store built from the
// same records and links inserted in another order, give identical bytes
// in every format.
func TestDeterminism(t *testing.T) {
	recs, links := fxCanon()
	env1 := fxOpen(t, recs, links, true)
	rrecs, rlinks := slices.Clone(recs), slices.Clone(links)
	slices.Reverse(rrecs)
	slices.Reverse(rlinks)
	env2 := fxOpen(t, rrecs, rlinks, true)
	for _, format := range validFormats {
		for _, b := range []int{100000, 2600, 2000, 1500, 700} {
			req := fxSceneRequest(b)
			req.Format, req.Query, req.Hops = format, "fire mill", 2
			a1, a2, c := buildOrErr(t, env1, req), buildOrErr(t, env1, req), buildOrErr(t, env2, req)
			if !bytes.Equal(a1, a2) {
				t.Errorf("%s at %d: same request twice differs", format, b)
			}
			if !bytes.Equal(a1, c) {
				t.Errorf("%s at %d: insertion order changes the packet:\n%s\n----\n%s", format, b, a1, c)
			}
		}
	}
}

func TestLazyTokenCounts(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, false) // no counter at write time
	if h, err := env.st.Head("novel-a", "tomas"); err != nil || len(h.Tokens) != 0 {
		t.Fatalf("head before: %+v %v; want no cached counts", h.Tokens, err)
	}
	p, _ := fxBuild(t, env, fxSceneRequest(100000))
	h, err := env.st.Head("novel-a", "tomas")
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := h.Tokens["o200k_base"]
	body, _ := env.st.Get("novel-a", "tomas")
	if want := fxCounter(t).Count(body.Body); !ok || tc.Body != want {
		t.Errorf("cached count after Build: %+v; want body %d", h.Tokens, want)
	}
	// The same packet as a store that counted at write time.
	counted := fxOpen(t, recs, links, true)
	q, _ := fxBuild(t, counted, fxSceneRequest(100000))
	a, _ := p.Render("md")
	b, _ := q.Render("md")
	if !bytes.Equal(a, b) {
		t.Error("lazily counted packet differs from the one counted at write time")
	}
}

func TestFormats(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	for _, format := range validFormats {
		req := fxSceneRequest(2600)
		req.Format = format
		p, out := fxBuild(t, env, req)
		if len(p.Deferred) == 0 || len(p.Records) == 0 {
			t.Fatalf("%s: want a packet with records and notes at 1500: %s", format, describe(p))
		}
		switch format {
		case "json":
			var v struct {
				Total struct {
					Hash   string `json:"hash"`
					Budget int    `json:"budget"`
					Tokens int    `json:"tokens"`
				} `json:"total"`
				Records  []Entry `json:"records"`
				Deferred []Note  `json:"deferred"`
				More     []struct {
					Count int `json:"count"`
				} `json:"deferred_more"`
			}
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("json packet does not parse: %v", err)
			}
			notes := len(v.Deferred)
			for _, g := range v.More {
				notes += g.Count
			}
			if v.Total.Hash != p.Hash || v.Total.Tokens != p.Tokens || fxCounter(t).Count(string(out)) > v.Total.Tokens || len(v.Records) != len(p.Records) || notes != len(p.Deferred) {
				t.Errorf("json packet hash %s tokens %d records %d notes %d; packet %s %d %d %d", v.Total.Hash, v.Total.Tokens, len(v.Records), notes, p.Hash, p.Tokens, len(p.Records), len(p.Deferred))
			}
		case "xml":
			var v struct {
				XMLName xml.Name `xml:"packet"`
				Records []struct {
					ID string `xml:"id,attr"`
				} `xml:"section>record"`
				Deferred struct {
					Notes []struct {
						ID    string `xml:"id,attr"`
						Fetch string `xml:"fetch,attr"`
					} `xml:"note"`
					More []struct {
						Count int    `xml:"count,attr"`
						Fetch string `xml:"fetch,attr"` // the handle of the group
					} `xml:"more"`
				} `xml:"deferred"`
			}
			if err := xml.Unmarshal(out, &v); err != nil {
				t.Fatalf("xml packet does not parse: %v\n%s", err, out)
			}
			d := v.Deferred
			notes, fetch := len(d.Notes), true
			for _, n := range d.Notes {
				fetch = fetch && n.Fetch != ""
			}
			for _, g := range d.More {
				notes += g.Count
				fetch = fetch && strings.Contains(g.Fetch, "--deferred ")
			}
			if len(v.Records) != len(p.Records) || notes != len(p.Deferred) || !fetch {
				t.Errorf("xml packet: %d records, %d notes; want %d and %d", len(v.Records), notes, len(p.Records), len(p.Deferred))
			}
		case "md":
			s := string(out)
			iContents, iRecords, iDeferred := strings.Index(s, "\nInside: "), strings.Index(s, "\n## Rank 1\n"), strings.Index(s, "\n## Deferred: ")
			if !strings.HasPrefix(s, "# Context Packet: novel-a\n") || iContents < 0 || iContents > iRecords || iRecords > iDeferred {
				t.Fatalf("markdown sections out of order:\n%s", s)
			}
			if !strings.Contains(s[iDeferred:], "`lore get --ns novel-a ") && !strings.Contains(s[iDeferred:], explainHint) {
				t.Errorf("markdown notes lack a fetch handle:\n%s", s[iDeferred:])
			}
		}
	}
}

var reportLine = regexp.MustCompile(`^ {0,7}[0-9][0-9,]*  \S+  \(rank [0-9]+, (dropped: |replaced by summary: saves |collapsed to )`)

func TestReportForm(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	p, _ := fxBuild(t, env, fxSceneRequest(2000))
	lines := strings.Split(strings.TrimRight(p.Report(), "\n"), "\n")
	head := regexp.MustCompile(`^Packed: [0-9]+ records?, [0-9,]+ tokens \([0-9]+% of budget 2,000\)$`)
	if !head.MatchString(lines[0]) {
		t.Errorf("first report line %q", lines[0])
	}
	if !regexp.MustCompile(`^Deferred: [0-9]+ records?, [0-9,]+ tokens freed:$`).MatchString(lines[1]) {
		t.Errorf("second report line %q", lines[1])
	}
	for _, l := range lines[2 : 2+len(p.Deferred)] {
		if !reportLine.MatchString(l) || len(strings.SplitN(l, "  ", 2)[0]) != 8 && !strings.HasPrefix(l, " ") {
			t.Errorf("deferred line %q not in the report form", l)
		}
	}
	freed := 0
	for _, n := range p.Deferred {
		freed += n.freed()
	}
	if !strings.Contains(lines[1], numfmt.Thousands(freed)+" tokens freed") {
		t.Errorf("freed total: %q; want %s", lines[1], numfmt.Thousands(freed))
	}
	ex := p.Explain()
	for _, e := range p.Records {
		if !strings.Contains(ex, e.ID) || !strings.Contains(ex, e.Why) {
			t.Errorf("explain lacks %s (%s):\n%s", e.ID, e.Why, ex)
		}
	}
}

func TestRenderOtherFormatRespectsBudget(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	p, _ := fxBuild(t, env, fxSceneRequest(2000))
	out, err := p.Render("json")
	if err == nil && fxCounter(t).Count(string(out)) > 2000 {
		t.Errorf("json rendering of an md packet exceeds the budget without an error")
	}
	if err != nil && !errors.Is(err, ErrCannotFit) {
		t.Errorf("Render(json): %v; want nil or ErrCannotFit", err)
	}
	if _, err := p.Render("yaml"); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `"yaml"`) {
		t.Errorf("Render(yaml): %v; want ErrFormat quoting yaml", err)
	}
}

func TestRequestValidation(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	base := fxSceneRequest(8000)
	tests := []struct {
		name  string
		edit  func(*Request)
		quote string
		is    error
	}{
		{"bad ns", func(r *Request) { r.NS = "Bad NS" }, `"Bad NS"`, ErrInvalidRequest},
		{"negative budget", func(r *Request) { r.Budget = -5 }, "-5", ErrInvalidRequest},
		{"zero budget", func(r *Request) { r.Budget = 0 }, "budget 0", ErrInvalidRequest},
		{"task", func(r *Request) { r.Task = "write" }, `"write"`, ErrInvalidRequest},
		{"when", func(r *Request) { r.When = []string{"power,magic"} }, `"magic"`, ErrInvalidRequest},
		{"hops", func(r *Request) { r.Hops = 3 }, "hops 3", ErrInvalidRequest},
		{"as-of", func(r *Request) { r.AsOf = -2 }, "-2", ErrInvalidRequest},
		{"profile", func(r *Request) { r.Profile = "poem" }, `"poem"`, ErrInvalidRequest},
		{"format", func(r *Request) { r.Format = "html" }, `"html"`, ErrInvalidRequest},
		{"encoding", func(r *Request) { r.Counter, r.Encoding = nil, "p50k" }, `"p50k"`, ErrInvalidRequest},
		{"focus id", func(r *Request) { r.Focus = []string{"bad\x01id"} }, `"bad\x01id"`, ErrInvalidRequest},
		{"missing focus", func(r *Request) { r.Focus = []string{"scene-99"} }, `"scene-99"`, ErrFocusNotFound},
		{"query without index", func(r *Request) { r.Query = "fire" }, `"fire"`, ErrInvalidRequest},
		{"config", func(r *Request) {
			r.Config = &Config{Overflow: map[string]budget.Action{"scene": "shrink"}}
		}, `"shrink"`, ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			req.Counter = fxCounter(t)
			tt.edit(&req)
			var srch Searcher = env.ix
			if tt.name == "query without index" {
				srch = nil
			}
			p, err := Build(context.Background(), env.st, srch, req)
			if !errors.Is(err, tt.is) {
				t.Fatalf("Build: %v; want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.quote) {
				t.Errorf("error %q does not quote %s", err, tt.quote)
			}
			if ExitCode(p, err) != 1 {
				t.Errorf("ExitCode = %d; want 1", ExitCode(p, err))
			}
		})
	}
}

// buildOrErr is the rendered packet, or the error's report when Build
// fails, so failures can be compared too.
func buildOrErr(t *testing.T, env fxEnv, req Request) []byte {
	t.Helper()
	req.Counter = fxCounter(t)
	p, err := Build(context.Background(), env.st, env.ix, req)
	var split *SplitError
	if errors.As(err, &split) {
		return []byte("-- exit 3 --\n" + split.Report())
	}
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	out, err := p.Render(req.Format)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return []byte("-- stdout --\n" + string(out) + "-- stderr --\n" + p.Report())
}

func TestXMLCarriesAnyBody(t *testing.T) {
	recs := []store.Record{{NS: "n", ID: "odd", Kind: "note", Title: `<"&'>`, Body: "bell\x07 and form\x0c feed, ]]> & <tag>"}}
	env := fxOpen(t, recs, nil, true)
	_, out := fxBuild(t, env, Request{NS: "n", Focus: []string{"odd"}, Budget: 1000, Format: "xml"})
	var v struct {
		Records []struct {
			Title string `xml:"title,attr"`
			Text  string `xml:",chardata"`
		} `xml:"section>record"`
	}
	if err := xml.Unmarshal(out, &v); err != nil {
		t.Fatalf("xml packet does not parse: %v\n%s", err, out)
	}
	if len(v.Records) != 1 || v.Records[0].Title != `<"&'>` || !strings.Contains(v.Records[0].Text, "]]> & <tag>") {
		t.Errorf("xml round trip: %+v", v.Records)
	}
}
