package lore

import (
	"errors"
	"fmt"
)

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

// NoStoreError is Open's error for a folder that holds no store: Dir as
// it was named, why it is none, and Inside, the store folder within it
// (its .lore) where there is one, the folder that was likely meant. It
// matches ErrNoStore.
type NoStoreError struct {
	Dir, Why, Inside string
}

func (e *NoStoreError) Error() string {
	inside := ""
	if e.Inside != "" {
		inside = " (the store is in " + e.Inside + ")"
	}
	return fmt.Sprintf("open store %q: %s%s: %v", e.Dir, e.Why, inside, ErrNoStore)
}

// Unwrap makes a NoStoreError match ErrNoStore.
func (e *NoStoreError) Unwrap() error { return ErrNoStore }

// BadValue is the folder the error is about (the --json error's value).
func (e *NoStoreError) BadValue() string { return e.Dir }

// ErrNoIndex: the search index is missing or unreadable (read-only opens
// cannot rebuild it; `lore reindex` does).
var ErrNoIndex = errors.New("no search index")

// ErrIndexLags: a write was saved, but the index could not take it in
// (the error wraps why). The write stands; the next write or open brings
// the index up to it from the change log.
var ErrIndexLags = errors.New("the index lags the store")
