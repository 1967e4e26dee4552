// Package index is Lore's full-text index: a bleve (scorch) index derived
// from the store, searched within one namespace at a time.
//
// # Derived, never authoritative
//
// The store (bbolt) holds every record; the index holds only what search
// needs: title, summary and body analysed as English text (bleve's "en"
// analyzer, with a tokenizer equal to its unicode one but faster on
// ASCII, see wordTokenizer, and its filters' term for each word kept in
// a cache, see termCache; from format 3 irregular verbs are filed under
// their verb, see irregular.go), and ns, kind
// and tags as exact keywords. Nothing is stored in the index (no field
// values, no doc values, no _all field), so a hit is a key (ns, id) and a
// score, and the caller reads the record from the store. Because the index
// is derived it can be deleted at any time: Rebuild (`lore reindex`) makes
// it again from the store alone.
//
// # Watermark
//
// Every store write appends (seq, op, ns, id) to the store's change log.
// Apply takes the records put and the keys deleted up to some seq and
// writes them, then the watermark seq (Batch.SetInternal): in the same
// bleve batch when the input is small, in a batch of its own after all of
// a large input's sub-batches have landed. So the index can lag behind the
// store but never get ahead of it: on open, the caller applies the log entries after
// Watermark() and the index is current again. Applying an entry twice is
// harmless (a put replaces the document; a delete of a missing document is
// a no-op).
//
// # Crash story
//
//   - Crash after the store commit, before Apply: the watermark is behind;
//     the catch-up on the next open applies the change. Nothing is lost.
//   - Crash during Apply: scorch persists a batch (documents and internal
//     keys) as one snapshot, or not at all. Apply waits for persistence
//     (scorch's safe mode; unsafe_batch is off) before it returns, so an
//     Apply that returned nil survives a crash. With large inputs some
//     sub-batches may survive without the others or the watermark: some
//     records are newer than the watermark, which only means the catch-up applies
//     them again. No ghost survives: a deleted record's delete is in the log
//     after the watermark until the batch that holds it is persisted.
//   - Crash during Rebuild: the new index is built in a temporary directory
//     beside the old and renamed into place; Rebuild leaves the old index,
//     or (between the two renames) none, never a half-built one. The next build
//     (Rebuild, or Open creating an index) removes leftover temporary
//     directories.
//   - A damaged or foreign directory fails Open with ErrCorrupt, whose
//     message says that `lore reindex` rebuilds it.
//
// # Scoring and order
//
// Scoring is BM25 (bleve's "bm25" scoring model), with field boosts title 3,
// summary 2, body 1. Lore hands bleve the BM25 statistics itself: the live
// document count and a fixed length pivot per field (title 8, summary 32,
// body 32 analysed tokens). Bleve's own pivot counts the terms of replaced
// and deleted documents until a background merge drops them, so its scores
// drift with the index's history and with the merger's timing; with these
// statistics a score depends on the current records alone, and an index
// built by Rebuild scores exactly like one built by years of Apply.
// The namespace is a required clause of weight 0 (it walks only that
// namespace's postings and adds nothing to a score); kind and tag filters
// go through bleve's boolean Filter, which does not score. Results sort by score descending, then document id
// ascending; the document id is ns + NUL + id, so ties come out by
// (ns, id). Term statistics are index-wide: records of other namespaces
// change score values, never which namespace is searched. (That is an
// index of format 1; from format 2 each term is filed by namespace, so
// its statistics are the namespace's own and no namespace clause is
// needed: see nsterms.go.)
//
// A words query (any of some words, with or without a kind and tag
// filter: what a packet asks) does not score every record that holds one
// of its words. prunedBest (maxscore.go) skips the records whose score
// cannot pass the lowest of the hits kept so far, and returns the hits
// and scores bleve's searchers would, bit for bit: at 1,000,000 records
// it scores a quarter of the matches.
//
// A question (Query.AnyTerm, a packet's query) then re-ranks the best
// pairWindow of those hits by its word pairs: two of its words found in
// a record as the question has them add their scores there again
// (pairs.go).
//
// # Locking
//
// Scorch keeps a bbolt file (root.bolt) open for the life of an Index: a
// writer holds it exclusively, read-only opens share it. Open waits up to
// Options.LockTimeout for it, then fails with ErrLocked.
package index
