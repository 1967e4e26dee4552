package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/packet"
)

// Exit codes, the same for every command (README, "Exit codes").
const (
	exitOK       = 0 // done
	exitError    = 1 // usage, bad input, I/O, corrupt store
	exitDeferred = 2 // a packet was written but something was deferred
	exitNoFit    = 3 // the budget cannot be met: nothing on stdout
	// 130 and 143: interrupted by SIGINT or SIGTERM (interrupted.code)
)

// exitStatus carries an exit code through cobra's error return. The
// message, if any, has already been printed when quiet is set.
type exitStatus struct {
	code  int
	err   error
	quiet bool
	// usage is the command's usage line, for an error in how it was
	// called: the text adds it on a line of its own, --json as a field.
	usage string
}

func (e *exitStatus) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	if e.usage != "" {
		return e.err.Error() + "\nusage: " + e.usage
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
		if hint := cliHint(err); hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", hint)
		}
	}
	return code
}

// interrupted is the cause of a context cancelled by SIGINT or SIGTERM.
type interrupted struct{ sig syscall.Signal }

func (e *interrupted) Error() string { return "interrupted by " + sigName(e.sig) }

// code is the shell's code for death by the signal: 130 or 143.
func (e *interrupted) code() int { return 128 + int(e.sig) }

// stopped is the message when the command did not stop within the grace.
func (e *interrupted) stopped() error {
	return fmt.Errorf("%v: stopped; any write not yet committed was not made (each write is all or nothing)", e)
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// withCause makes the outcome of a command that ran while a signal
// arrived say so: its error if it failed (with the signal as its exit
// code), or, if it finished, a note that its work was done.
func withCause(ctx context.Context, err error) error {
	var in *interrupted
	if !errors.As(context.Cause(ctx), &in) {
		return err
	}
	var st *exitStatus
	switch {
	case err == nil:
		// The command did all it set out to: a write was committed in
		// full. Exit 0, and say that the signal came too late to stop
		// it.
		return &exitStatus{code: 0, err: fmt.Errorf("note: %v after the work was done: all of it was written, exit 0", in)}
	case errors.As(err, &st) && st.quiet:
		return &exitStatus{code: in.code(), err: fmt.Errorf("%v", in)}
	case errors.As(err, &in):
		return &exitStatus{code: in.code(), err: err}
	default:
		return &exitStatus{code: in.code(), err: fmt.Errorf("%v: %w", in, err)}
	}
}
