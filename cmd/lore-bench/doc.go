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
// (real English words at the head, made-up words in the tail), sizes
// log-normal between about 50 and 2,000 tokens, about four links a record
// to earlier records of its namespace, summaries on a third of them.
//
// Each phase runs in its own sub-process of this binary, so each has its
// own peak RSS (VmHWM from /proc/self/status) and CPU time:
//
//   - ingest-lore: lore.Init, then PutMany in batches of -batch records
//     (validation, token counting, bbolt, links, change log, index);
//   - ingest-bleve: the baseline, bleve.New with bleve.NewIndexMapping()
//     indexing the same records in batches of the same size;
//   - packets: -queries seeded requests (a scene focus and two or three
//     words in novel namespaces, the words alone in agent ones), each built
//     and rendered at the scene (8,000) and chapter (20,000) budgets, warm,
//     through a read-only lore.Open like the CLI's;
//   - search-bleve: the baseline search for the same queries (the words
//     as a match query on _all, within the namespace, top 50);
//   - count: the o200k_base counter over the first -count-max records.
//
// Between them the parent times `lore packet` as a fresh process
// (-cold-runs, median), building the CLI once with go build, and measures
// the bytes on disk. Times exclude generating the corpus. Nothing is
// asserted: the program reports, the reader compares with the goals of
// BENCHMARKS.md.
package main
