package packet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/numfmt"
)

// Sentinel errors of the packet package; test them with errors.Is. An
// error that quotes the value it is about (a namespace, an id, a profile
// name) also gives it by a method BadValue() string: find it with
// errors.As on an interface{ BadValue() string }.
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

// invalidValuef is invalidf about value, which the message quotes first:
// the error gives it by its method BadValue (package internal/badvalue).
func invalidValuef(value, format string, args ...any) error {
	return badvalue.Wrap(value, invalidf(format, args...))
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

// configValuef is configf about value, which the message quotes first.
func configValuef(value, format string, args ...any) error {
	return badvalue.Wrap(value, configf(format, args...))
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
// of steps (step 5, "split"): even the floor packet (every protected and
// pinned record in the shortest form a ladder step may give it, the rest
// deferred; or, when a kind whose overflow action is fail overflowed,
// that content and what the walk could not drop before it, whole),
// rendered and counted whole, is over the budget. It unwraps to
// ErrCannotFit.
type SplitError struct {
	NS     string
	Budget int
	// Frame is the rest of the packet at Need: heading, request, the
	// notes of what was deferred, and the records kept beside the
	// protected ones. Frame plus the Tokens of Protected is Need.
	Frame int
	// Protected lists what could not be trimmed, most important first.
	Protected []Protected
	// Need is the least budget above Budget at which Build, given the
	// same request, writes the packet: found by building it (a packet is
	// written at Need and refused at Need-1), so it is the builder's own
	// answer, not an estimate. Where no budget is found (none up to
	// budget.MaxBudget, or the search's builds ran out) it is the floor
	// packet's count at Budget, and no larger budget is proposed.
	Need int
	// Proposals are splits that work, most useful first: a line in
	// words, then (indented, one a line) the `lore packet` commands that
	// carry it out, using only flags the command has. Each command was
	// built before it was proposed and writes a packet (exit 0 or 2).
	Proposals []string
	// Cause is a more specific reason, for instance a kind whose overflow
	// action is "fail"; it may be nil.
	Cause error
}

// Error implements error on one line; Report gives the long form.
func (e *SplitError) Error() string {
	msg := fmt.Sprintf("packet for ns %q: %s: %s, budget is %s",
		e.NS, ErrCannotFit, e.needs(), numfmt.Thousands(e.Budget))
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// needs says what needs Need tokens: the protected content, the content
// of a kind that may not be cut, or (nothing protected) the packet.
func (e *SplitError) needs() string {
	var oe *budget.OverflowError
	switch {
	case errors.As(e.Cause, &oe) && oe.Cause == budget.CauseFail:
		return fmt.Sprintf("the packet needs %s tokens to keep its %s content whole", numfmt.Thousands(e.Need), strings.Join(oe.Kinds, ", "))
	case len(e.Protected) == 0:
		return fmt.Sprintf("the packet needs %s tokens", numfmt.Thousands(e.Need))
	}
	return fmt.Sprintf("protected content needs %s tokens", numfmt.Thousands(e.Need))
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
	fmt.Fprintf(&b, "Cannot fit: %s, budget %s (frame %s).\n", e.needs(), numfmt.Thousands(e.Budget), numfmt.Thousands(e.Frame))
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

// failCause is the cause of a refusal where content of a kind whose
// overflow action is fail would have to be cut: it names that content
// without the fitting engine's estimate of the need (the refusal's own
// Need is the builder's), and unwraps to the engine's error.
type failCause struct{ oe *budget.OverflowError }

func (c failCause) Error() string {
	return fmt.Sprintf("the overflow action of %s (kind %s) is fail: it may not be dropped or cut, and nothing was", quoteIDs(c.oe.IDs), strings.Join(c.oe.Kinds, ", "))
}

func (c failCause) Unwrap() error { return c.oe }

// quoteIDs quotes ids for a message, a few at most.
func quoteIDs(ids []string) string {
	const most = 5
	q := make([]string, 0, min(len(ids), most))
	for k, id := range ids {
		if k == most {
			return strings.Join(q, ", ") + fmt.Sprintf(" and %d more", len(ids)-most)
		}
		q = append(q, strconv.Quote(id))
	}
	return strings.Join(q, ", ")
}
