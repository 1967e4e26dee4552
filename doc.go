// Package lore is an embedded, persistent context store with budgeted
// retrieval: the library behind the `lore` command and its MCP and HTTP
// servers.
//
// A program keeps its records (canon facts, memories, scenes, files) in a
// store directory and links them into a graph. Records and links live in
// one bbolt file, the single source of truth (package store); a bleve
// full-text index is derived from it (package index) and can be rebuilt at
// any time. Asked a question, Lore builds a Context Packet (package packet):
// the records that matter for one decision, ranked by decision relevance,
// fitted into a token budget counted with the real tokenizer (package
// budget), with a note for everything it left out.
//
// Open returns a *Lore, safe for concurrent use by many goroutines. Every
// write goes to bbolt first, with an entry in the store's change log in the
// same transaction; the index then applies the log and records the last
// entry it holds. A crash between the two loses nothing: the next writable
// Open applies what the index lacks, and read-only opens check every hit
// against the store, so no deleted record comes back.
//
// One process at a time may hold a store for writing (bbolt's file lock,
// waited for up to Options.LockTimeout); read-only opens share the lock.
// Long-running servers therefore open the store per request (see Server).
//
// Import takes records and links read from any source; format/jsonl and
// format/markdown read JSONL and markdown folders, and Export writes
// JSONL. Package demo fills a store with the bundled demo canon.
package lore
