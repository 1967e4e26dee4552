package packet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lorekeep/lore/internal/numfmt"
)

// Sentinel errors of the packet package; test them with errors.Is.
var (
	// ErrInvalidRequest reports a Request value that cannot be used (and,
	// through ErrInvalidConfig, a bad Config); the wrapping error quotes the value and says what would be
	// right.
	ErrInvalidRequest = errors.New("invalid packet request")
	// ErrInvalidConfig reports a Config value (lore.json's "packet"
	// section) that cannot be used; the wrapping error quotes the value
	// and says what would be right. Such errors match ErrInvalidRequest
	// too.
	ErrInvalidConfig = errors.New("invalid packet configuration")
	// ErrFocusNotFound reports a focus id that names no record in the
	// request's namespace.
	ErrFocusNotFound = errors.New("focus record not found")
	// ErrCannotFit reports that the budget cannot be met: protected or
	// pinned content (or content whose kind declares the overflow action
	// "fail") needs more than the budget. It is always wrapped in a
	// *SplitError; the CLI maps it to exit code 3 and writes nothing on
	// stdout.
	ErrCannotFit = errors.New("budget cannot be met")
	// ErrFormat reports an unknown output format.
	ErrFormat = errors.New("unknown packet format")
)

// invalidf builds an error wrapping ErrInvalidRequest.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// configError is a Config validation error: its message names the
// configuration, and it matches both ErrInvalidConfig and
// ErrInvalidRequest.
type configError struct{ msg string }

func (e *configError) Error() string   { return ErrInvalidConfig.Error() + ": " + e.msg }
func (e *configError) Unwrap() []error { return []error{ErrInvalidConfig, ErrInvalidRequest} }

// configf builds a configError.
func configf(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}

// Protected is one record the ladder may not trim, as listed by a SplitError.
type Protected struct {
	ID     string
	Kind   string
	Rank   int
	Why    string
	Form   string // "full", "summary" or "title": the smallest form the ladder reached
	Tokens int    // what it costs in that form
}

// SplitError is the error Build returns when the deferral ladder runs out
// of steps (step 5, "split"). It unwraps to ErrCannotFit.
type SplitError struct {
	NS     string
	Budget int
	// Frame is the rest of the packet: heading, request, and the notes of
	// what was deferred. Frame plus the Tokens of Protected is Need.
	Frame int
	// Protected lists what could not be trimmed, most important first.
	Protected []Protected
	// Need is Frame plus the tokens of Protected: the protected records
	// alone, rendered and counted whole (never under the estimate).
	Need int
	// Proposals are splits that would fit, most useful first: a line in
	// words, then (indented, one a line) the `lore packet` commands that
	// carry it out, using only flags the command has.
	Proposals []string
	// Cause is a more specific reason, for instance a kind whose overflow
	// action is "fail"; it may be nil.
	Cause error
}

// Error implements error on one line; Report gives the long form.
func (e *SplitError) Error() string {
	msg := fmt.Sprintf("packet for ns %q: %s: protected content needs %s tokens, budget is %s",
		e.NS, ErrCannotFit, numfmt.Thousands(e.Need), numfmt.Thousands(e.Budget))
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap lets errors.Is find ErrCannotFit and the cause.
func (e *SplitError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrCannotFit, e.Cause}
	}
	return []error{ErrCannotFit}
}

// Report is the text for stderr: the protected items with their token
// totals and the proposed split.
func (e *SplitError) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Cannot fit: protected content needs %s tokens, budget %s (frame %s).\n",
		numfmt.Thousands(e.Need), numfmt.Thousands(e.Budget), numfmt.Thousands(e.Frame))
	if e.Cause != nil {
		fmt.Fprintf(&b, "Cause: %v\n", e.Cause)
	}
	if len(e.Protected) > 0 {
		fmt.Fprintf(&b, "Protected: %s:\n", records(len(e.Protected)))
		for _, p := range e.Protected {
			fmt.Fprintf(&b, "%8s  %s  (rank %d, %s, %s)\n", numfmt.Thousands(p.Tokens), p.ID, p.Rank, p.Form, p.Why)
		}
	}
	if len(e.Proposals) > 0 {
		b.WriteString("Proposed split:\n")
		for _, p := range e.Proposals {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
	}
	return b.String()
}
