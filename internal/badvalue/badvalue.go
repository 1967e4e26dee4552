// Package badvalue is the error that names the one value it is about (a
// flag value, a namespace, an id, a file), so that a caller can show the
// value apart from the message: cmd/lore's --json error body carries it
// as "value". Any error with a method BadValue() string counts; store
// and budget, which import nothing of Lore, have their own such type.
package badvalue

import (
	"errors"
	"fmt"
)

// Error is an error about Value, which its message quotes first.
type Error struct {
	Value string
	Err   error
}

// Errorf is fmt.Errorf(format, args...) about value, which the message
// should quote first (with %q).
func Errorf(value, format string, args ...any) error {
	return &Error{Value: value, Err: fmt.Errorf(format, args...)}
}

// Wrap makes err an error about value: its message, its sentinels.
func Wrap(value string, err error) error { return &Error{Value: value, Err: err} }

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// BadValue is the value the error is about.
func (e *Error) BadValue() string { return e.Value }

// Of is the value of the outermost error in err's tree that names one,
// and whether there is one.
func Of(err error) (string, bool) {
	var bv interface{ BadValue() string }
	if errors.As(err, &bv) {
		return bv.BadValue(), true
	}
	return "", false
}
