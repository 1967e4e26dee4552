// Command lore-bench measures Lore against bleve used alone, on a
// deterministic synthetic corpus, and prints the figures as a table (and
// as JSON with -json FILE) so runs can be compared.
//
//	go run ./cmd/lore-bench -n 100000
//	go run ./cmd/lore-bench -scale -json bench.json
//
// The corpus is a pure function of -seed and -n: records spread round
// robin over six namespaces (four with the novel profile's kinds, two with
// the agent profile's), English-like text drawn from a Zipf vocabulary
// (common English words at the head, then 16,000 words in the order the
// cl100k_base tokenizer learnt them, with made-up names for one word in
// 30: about 1.2 tokens a word and 4.4 bytes a token, like prose), sizes
// log-normal between about 50 and 2,000 tokens, about four links a record
// to earlier records of its namespace, summaries on a third of them. The
// novel namespaces get scenes (with a POV character), characters,
// timeline entries, a few open obligations...; the agent namespaces get
// memories, facts, preferences and six core memories each, three pinned.
//
// Each phase runs in its own sub-process of this binary, so each has its
// own peak RSS (VmHWM from /proc/self/status), CPU time and count of
// pages read from disk (major faults: the "disk reads" of the packets
// table), in this order, each engine's queries right after its own
// ingest so that both meet the page cache as their own writes left it:
//
//   - ingest-lore: lore.Init, then PutMany in batches of -batch records
//     (validation, token counting, bbolt, links, change log, index);
//   - packets: -queries seeded requests (a scene focus and two or three
//     words in novel namespaces, the words alone in agent ones), each built
//     and rendered at the scene (8,000) and chapter (20,000) budgets, warm,
//     through a read-only lore.Open like the CLI's;
//   - ingest-bleve: the baseline, bleve.New with bleve.NewIndexMapping()
//     indexing the same records in batches of the same size;
//   - search-bleve: the baseline search for the same queries (the words
//     as a match query on _all, within the namespace, top 50);
//   - ingest-fts5 and search-fts5, when built with -tags fts5 (fts5.go):
//     SQLite FTS5 storing the same records and searching the same words,
//     bm25 top 50 within the namespace;
//   - count: the o200k_base counter over the first -count-max records.
//
// Right after the packets, the parent times `lore packet` as a fresh
// process (-cold-runs, median), building the CLI once with go build;
// after the phases it measures the bytes on disk. Times exclude
// generating the corpus, which both ingests do 16 batches at a time; Lore
// first waits for its index to hold what it was given (Flush, timed), so
// no untimed generation runs beside Lore's index updates, which go on
// behind each PutMany. Nothing is asserted: the program reports, the
// reader compares with the goals of BENCHMARKS.md.
package main
