package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/packet"
)

// Exit codes, the same for every command (DESIGN.md, Exit codes).
const (
	exitOK       = 0 // done
	exitError    = 1 // usage, bad input, I/O, corrupt store
	exitDeferred = 2 // a packet was written but something was deferred
	exitNoFit    = 3 // the budget cannot be met: nothing on stdout
)

// exitStatus carries an exit code through cobra's error return. The
// message, if any, has already been printed when quiet is set.
type exitStatus struct {
	code  int
	err   error
	quiet bool
}

func (e *exitStatus) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitStatus) Unwrap() error { return e.err }

// errDeferred reports that output was written with something deferred;
// the report on stderr already says what, so no message is added.
var errDeferred = &exitStatus{code: exitDeferred, quiet: true}

// exitCodeOf maps an error to its exit code. This is the one place where
// errors become exit codes.
func exitCodeOf(err error) int {
	var st *exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return st.code
	case errors.Is(err, packet.ErrCannotFit), errors.Is(err, budget.ErrOverBudget):
		return exitNoFit
	default:
		return exitError
	}
}

// reportExit prints err (unless it is a quiet status) and returns its code.
func reportExit(stderr io.Writer, err error) int {
	code := exitCodeOf(err)
	var st *exitStatus
	if err != nil && !(errors.As(err, &st) && st.quiet) {
		fmt.Fprintf(stderr, "lore: %v\n", err)
	}
	return code
}
