package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the store returns for one of these reasons
// wraps the sentinel with the bad value or the file named, so callers test
// with errors.Is and users read the message. An error that quotes the
// value it is about (a namespace, an id, a store file) also gives it by
// a method BadValue() string: find it with errors.As on an
// interface{ BadValue() string }.
var (
	// ErrNotFound: the record, version, link or store file does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the input breaks a rule (namespace, id, UTF-8, size,
	// options); the message quotes the value and states the rule.
	ErrInvalid = errors.New("invalid input")
	// ErrLocked: another process holds the store file and did not let go
	// within Options.LockTimeout.
	ErrLocked = errors.New("store is locked")
	// ErrReadOnly: a write was attempted on a store opened read-only.
	ErrReadOnly = errors.New("store is read-only")
	// ErrCorrupt: stored bytes could not be decoded, or the file is not a
	// Lore store of a format this version understands.
	ErrCorrupt = errors.New("store is corrupt")
	// ErrUnavailable: the store's engine did not answer (an etcd cluster
	// without quorum, or none of its endpoints reachable); nothing was
	// written by the call that failed, unless the message says it may
	// have been.
	ErrUnavailable = errors.New("store is unavailable")
	// ErrCompacted: the change log no longer reaches back to the asked
	// sequence number (etcd compacted its history past it); a derived
	// index must be rebuilt from the records.
	ErrCompacted = errors.New("change log compacted")
	// ErrTooLarge: one write needs a bigger transaction than the engine
	// allows (etcd's --max-txn-ops or --max-request-bytes); the message
	// names the limit. Nothing was written.
	ErrTooLarge = errors.New("write too large for one transaction")
	// ErrNoEngine: a store URL names an engine this program does not
	// link (OpenURL); the message names the package to import.
	ErrNoEngine = errors.New("store engine not linked")
)

// valueError is an error about one value (a namespace, an id, a store
// file), which its message quotes first; BadValue gives the value apart
// from the message, for cmd/lore's --json error body.
type valueError struct {
	value string
	err   error
}

func (e *valueError) Error() string { return e.err.Error() }
func (e *valueError) Unwrap() error { return e.err }

// BadValue is the value the error is about.
func (e *valueError) BadValue() string { return e.value }

// valuef is fmt.Errorf about value, which the message quotes first.
func valuef(value, format string, args ...any) error {
	return &valueError{value: value, err: fmt.Errorf(format, args...)}
}
