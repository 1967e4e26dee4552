package index

import "errors"

// Sentinel errors. Callers test them with errors.Is; the returned errors wrap
// them with the directory or value at fault.
var (
	// ErrNotFound: a read-only Open found no index at the directory. The
	// index is derived, so the remedy is `lore reindex`.
	ErrNotFound = errors.New("index not found")

	// ErrCorrupt: the directory holds something that cannot be opened as a
	// Lore index (damaged files, another program's index, an older format).
	// `lore reindex` rebuilds it from the store.
	ErrCorrupt = errors.New("index unreadable")

	// ErrLocked: another process holds the index open for writing (or, for a
	// writer, any process holds it open) and the lock timeout passed.
	ErrLocked = errors.New("index locked by another process")

	// ErrReadOnly: a write (Apply) on an index opened with ReadOnly.
	ErrReadOnly = errors.New("index opened read-only")

	// ErrInvalid: bad input (an empty namespace, a negative limit, a record
	// key the index cannot encode, a watermark that would move backwards).
	ErrInvalid = errors.New("invalid index input")

	// ErrClosed: a call on an Index after Close.
	ErrClosed = errors.New("index closed")
)
