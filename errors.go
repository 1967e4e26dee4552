package lore

import "errors"

// Errors of the root package. Store, index and packet errors pass through
// wrapped; test them with errors.Is against their own sentinels.
var (
	// ErrNoStore: no store was found (no --store, no LORE_STORE, no .lore
	// folder up the tree) or the named directory holds none.
	ErrNoStore = errors.New("no lore store")
	// ErrExists: `lore init` found a store already there.
	ErrExists = errors.New("a store already exists here")
	// ErrConfig: lore.json is not valid.
	ErrConfig = errors.New("invalid configuration")
)

// ErrNoIndex: the search index is missing or unreadable (read-only opens
// cannot rebuild it; `lore reindex` does).
var ErrNoIndex = errors.New("no search index")

// ErrIndexLags: a write was saved, but the index could not take it in
// (the error wraps why). The write stands; the next write or open brings
// the index up to it from the change log.
var ErrIndexLags = errors.New("the index lags the store")
