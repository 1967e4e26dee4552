package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/rusage"
	"github.com/lorekeep/lore/packet"
)

// recallConfig is the command line of `lore-bench recall`.
type recallConfig struct {
	data       string
	budgets    []int
	categories []int
	profile    string
	format     string
	jsonFile   string
	outFile    string
	convert    string
	limit      int
	cpuProfile string
	memProfile string
	config     string
	// recordVectors and queryVectors name the vector files of a user's
	// own model (recall_vectors.go); queryVecs holds the second, read.
	recordVectors, queryVectors string
	queryVecs                   map[string][]float32
}

func parseRecallFlags(args []string, stderr io.Writer) (recallConfig, error) {
	c := recallConfig{}
	fs := flag.NewFlagSet("lore-bench recall", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.data, "data", "", "folder with records.jsonl and queries.jsonl in the shared evidence-recall format (required)")
	budgets := fs.String("budgets", "500,1000,2000,4000,8000", "comma-separated token budgets")
	cats := fs.String("categories", "1,2,3,4", "question categories scored (the headline is their mean)")
	fs.StringVar(&c.profile, "profile", "agent", "packet profile")
	fs.StringVar(&c.format, "format", "md", "packet format: md, xml or json")
	fs.StringVar(&c.jsonFile, "json", "", "write the figures as JSON to this file")
	fs.StringVar(&c.outFile, "out", "", "write one JSON line per question and budget (ids kept, recall, answer recall; lore: each record's form and the scorer's verdicts) to this file")
	fs.StringVar(&c.convert, "convert", "", "write the records as `lore import` JSONL to this file and exit (for the shared scorer's -setup)")
	fs.IntVar(&c.limit, "limit", 0, "score only the first N questions (0: all)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the scoring loop to this file")
	fs.StringVar(&c.memProfile, "memprofile", "", "write an allocation profile to this file when the scoring ends (pprof -sample_index=alloc_space -focus=scoreQuestions)")
	fs.StringVar(&c.recordVectors, "record-vectors", "", "JSONL of {namespace, id, vector}: the records' embeddings from your model (see recall_vectors.go)")
	fs.StringVar(&c.queryVectors, "query-vectors", "", "JSONL of {qid, vector}: the questions' embeddings from the same model; the packets are then asked with them")
	fs.StringVar(&c.config, "config", "", "a lore.json for the store the packets are built from (default: {\"encoding\": \"cl100k_base\"}, the scorer's encoding)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lore-bench recall -data DIR [flags]\n\nScores evidence recall of Lore's packets beside BM25 baselines, in one process.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (all input is flags): %w", fs.Arg(0), errUsage)
	}
	if c.data == "" {
		return c, fmt.Errorf("-data is required: the folder holding records.jsonl and queries.jsonl: %w", errUsage)
	}
	var err error
	if c.budgets, err = parseIntList("-budgets", *budgets); err != nil {
		return c, err
	}
	slices.Sort(c.budgets)
	if c.categories, err = parseIntList("-categories", *cats); err != nil {
		return c, err
	}
	return c, nil
}

func parseIntList(flagName, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive integer: %w", flagName, f, errUsage)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s %q: give at least one number: %w", flagName, s, errUsage)
	}
	return out, nil
}

// methods scored by the recall benchmark, in table order.
const (
	methodBM25   = "bm25"
	methodBM25NB = "bm25+nb"
	methodLore   = "lore"
)

var recallMethods = []string{methodBM25, methodBM25NB, methodLore}

// recallRow is one question at one budget for one method.
type recallRow struct {
	QID       string   `json:"qid"`
	Category  int      `json:"category"`
	Method    string   `json:"method"`
	Budget    int      `json:"budget"`
	Recall    float64  `json:"recall"`
	AnsRecall *float64 `json:"answer_recall,omitempty"` // extractive questions: 1 if the kept text holds the answer
	IDs       []string `json:"ids"`
	Tokens    int      `json:"tokens"`             // the packet's own count (lore), or the scorer's cost
	Overhead  int      `json:"overhead,omitempty"` // lore: tokens that are not record content
	Micros    int64    `json:"micros,omitempty"`
	// CPUMicros is the process's CPU time while the packet was built:
	// the work of Lore's goroutines and the collector, beside the wait
	// (Micros).
	CPUMicros int64 `json:"cpu_micros,omitempty"`
	// lore only, as the scorer reads the text shown: the form of each
	// kept record, their cost, the kept ids that earn no credit, and why.
	Forms      []string `json:"forms,omitempty"`
	Whys       []string `json:"whys,omitempty"`
	Cost       int      `json:"cost,omitempty"`
	Uncredited []string `json:"uncredited,omitempty"`
	Cut        bool     `json:"cut_at_budget,omitempty"`
	Unknown    int      `json:"unknown_ids,omitempty"`
	Foreign    int      `json:"foreign_text,omitempty"`
	Citations  int      `json:"citations,omitempty"`
	Short      int      `json:"short_excerpts,omitempty"`
	// RoomLeft: the packet's own count leaves room for a record it
	// deferred, whole, by the note's own price (issue 36: no room left
	// unused while a candidate that fits is deferred).
	RoomLeft bool `json:"room_left,omitempty"`
	// Contradiction flags in the packet (lore): records carrying one, and
	// whether some flag joins two evidence records (Flagged) among
	// packets that hold two evidence records or more (BothEvidence).
	Flags        int  `json:"flags,omitempty"`
	FlagEvidence bool `json:"flag_evidence,omitempty"`
	BothEvidence bool `json:"both_evidence,omitempty"`
}

// runRecall scores Lore's packets and the BM25 baselines on the eval
// set, or with -convert writes its records as lore import JSONL.
func runRecall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseRecallFlags(args, stderr)
	if err != nil {
		return err
	}
	recs, err := readEvalJSONL[evalRecord](filepath.Join(c.data, "records.jsonl"))
	if err != nil {
		return err
	}
	if c.convert != "" {
		return convertRecords(c.convert, recs)
	}
	queries, err := readQueries(c)
	if err != nil {
		return err
	}
	cl100k, err := budget.NewCounter("cl100k_base")
	if err != nil {
		return err
	}
	nss := loadNamespaces(recs, cl100k)
	for _, ns := range nss {
		if err := ns.buildBM25(); err != nil {
			return err
		}
	}
	markExtractive(nss, queries)
	work, err := os.MkdirTemp("", "lore-recall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	var recVecs map[[2]string][]float32
	if c.recordVectors != "" {
		if recVecs, err = readRecordVectors(c.recordVectors, recs); err != nil {
			return err
		}
	}
	if c.queryVectors != "" {
		if c.queryVecs, err = readQueryVectors(c.queryVectors); err != nil {
			return err
		}
	}
	l, err := loadLore(ctx, work, c.config, recs, recVecs)
	if err != nil {
		return err
	}
	defer l.Close()

	stop, err := startCPUProfile(c.cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	rows, err := scoreQuestions(ctx, l, nss, queries, c, cl100k, stderr)
	if err != nil {
		return err
	}
	if err := writeMemProfile(c.memProfile); err != nil {
		return err
	}
	rep := summarizeRecall(rows, c.budgets, c.categories)
	rep.Questions = len(queries)
	rep.print(stdout)
	if c.outFile != "" {
		if err := writeRows(c.outFile, rows); err != nil {
			return err
		}
	}
	if c.jsonFile != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(c.jsonFile, append(b, '\n'), 0o644)
	}
	return nil
}

// convertRecords writes recs to path as lore import JSONL.
func convertRecords(path string, recs []evalRecord) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeImportJSONL(f, recs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readQueries reads the questions of the chosen categories, the first
// -limit of them when it is set.
func readQueries(c recallConfig) ([]evalQuery, error) {
	queries, err := readEvalJSONL[evalQuery](filepath.Join(c.data, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	queries = slices.DeleteFunc(queries, func(q evalQuery) bool { return !slices.Contains(c.categories, q.Category) })
	if c.limit > 0 && len(queries) > c.limit {
		queries = queries[:c.limit]
	}
	return queries, nil
}

// startCPUProfile starts a CPU profile into file, if one is named; stop
// ends it and closes the file.
func startCPUProfile(file string) (stop func(), err error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := os.Create(file)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeMemProfile writes the allocations made since the process began;
// -focus=scoreQuestions keeps those of the packets and baselines.
func writeMemProfile(file string) error {
	if file == "" {
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// scoreQuestions scores every question in order, noting progress every
// 200.
func scoreQuestions(ctx context.Context, l *lore.Lore, nss map[string]*evalNS, queries []evalQuery, c recallConfig, cl100k budget.Counter, stderr io.Writer) ([]recallRow, error) {
	var rows []recallRow
	for i, q := range queries {
		ns := nss[q.Namespace]
		if ns == nil {
			return nil, fmt.Errorf("queries.jsonl: question %s names namespace %q, which records.jsonl lacks", q.QID, q.Namespace)
		}
		qrows, err := scoreQuestion(ctx, l, ns, q, c, cl100k)
		if err != nil {
			return nil, err
		}
		rows = append(rows, qrows...)
		if (i+1)%200 == 0 {
			fmt.Fprintf(stderr, "recall: %d of %d questions\n", i+1, len(queries))
		}
	}
	return rows, nil
}

// loadLore makes a real store in dir, with the lore.json at config when
// one is given, and imports the records into it, as `lore import` of the
// converted JSONL would.
func loadLore(ctx context.Context, dir, config string, recs []evalRecord, vecs map[[2]string][]float32) (*lore.Lore, error) {
	if err := lore.Init(dir); err != nil {
		return nil, err
	}
	// The scorer counts cl100k_base, and so do the packets: a store kept
	// for such packets counts its records in it as they are written, as
	// it does its own encoding (else each question's first packet counts
	// every candidate, and its build time is that count's).
	b := []byte(`{"encoding": "cl100k_base"}`)
	if config != "" {
		var err error
		if b, err = os.ReadFile(config); err != nil {
			return nil, fmt.Errorf("-config: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, lore.ConfigFile), b, 0o644); err != nil {
		return nil, err
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		return nil, err
	}
	srecs, links := toStore(recs)
	withVectors(srecs, vecs)
	if _, err := l.Import(ctx, srecs, links); err != nil {
		l.Close()
		return nil, fmt.Errorf("import the recall records: %w", err)
	}
	return l, nil
}

// scoreQuestion builds the Lore packet and the baselines for q at every
// budget and scores each with the scorer's cut: the baselines' records
// whole, Lore's by the text its packet shows.
func scoreQuestion(ctx context.Context, l *lore.Lore, ns *evalNS, q evalQuery, c recallConfig, cl100k budget.Counter) ([]recallRow, error) {
	var rows []recallRow
	for _, b := range c.budgets {
		for _, m := range []string{methodBM25, methodBM25NB} {
			ids, err := ns.bm25Pack(q.Question, b, m == methodBM25NB)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", m, q.QID, err)
			}
			kept, used := ns.cut(ids, b)
			rows = append(rows, recallRow{QID: q.QID, Category: q.Category, Method: m, Budget: b,
				Recall: recall(kept, q.Evidence), AnsRecall: answerRecall(q, ns.answerInWhole(kept, q)),
				IDs: kept, Tokens: used})
		}
		t0, cpu0 := time.Now(), rusage.CPU()
		p, err := l.Packet(ctx, packet.Request{NS: q.Namespace, Query: q.Question, QueryVector: c.queryVecs[q.QID], Budget: b,
			Profile: c.profile, Format: c.format, Encoding: "cl100k_base", Counter: cl100k})
		micros, cpu := time.Since(t0).Microseconds(), (rusage.CPU() - cpu0).Microseconds()
		row := recallRow{QID: q.QID, Category: q.Category, Method: methodLore, Budget: b, Micros: micros, CPUMicros: cpu,
			AnsRecall: answerRecall(q, false)}
		if err == nil {
			content := 0
			for _, e := range p.Records {
				content += cl100k.Count(e.Title + "\n" + e.Text)
			}
			sc := ns.cutShown(p.Records, b, q)
			row.IDs, row.Tokens, row.Overhead = sc.kept, p.Tokens, p.Tokens-content
			row.Recall, row.AnsRecall = recall(sc.credited, q.Evidence), answerRecall(q, sc.answer)
			row.Forms, row.Cost, row.Uncredited, row.Cut = sc.forms, sc.used, sc.uncredited, sc.cut
			row.Whys = sc.whys
			row.Unknown, row.Foreign, row.Citations, row.Short = sc.unknown, sc.foreign, sc.citations, sc.short
			row.Flags, row.FlagEvidence, row.BothEvidence = contradictionFlags(p.Records, q.Evidence)
			row.RoomLeft = roomLeft(p)
		} else if !errors.Is(err, packet.ErrCannotFit) {
			return nil, fmt.Errorf("lore packet %s at %d: %w", q.QID, b, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func writeRows(path string, rows []recallRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// contradictionFlags counts the records of a packet that carry a
// contradiction flag, and says whether a flag joins two evidence records
// and whether the packet holds two evidence records or more. A flag
// reads "OTHER-ID on WHAT".
func contradictionFlags(recs []packet.Entry, evidence []string) (flags int, onEvidence, both bool) {
	held := 0
	for _, e := range recs {
		if len(e.Contradicts) > 0 {
			flags++
		}
		if !slices.Contains(evidence, e.ID) {
			continue
		}
		held++
		for _, c := range e.Contradicts {
			other, _, _ := strings.Cut(c, " ")
			onEvidence = onEvidence || slices.Contains(evidence, other)
		}
	}
	return flags, onEvidence, held >= 2
}

// roomLeft reports whether p's own count leaves room for one of the
// records it deferred, whole, at the price its note gives.
func roomLeft(p *packet.Packet) bool {
	room := p.Budget - p.Tokens
	for _, n := range p.Deferred {
		if n.Tokens > 0 && n.Tokens <= room {
			return true
		}
	}
	return false
}
