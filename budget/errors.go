package budget

import (
	"errors"
	"fmt"
	"strings"
)

// ErrOverBudget is the error behind every budget that cannot be met:
// pinned content that alone exceeds the limit, or an item whose overflow
// action is Fail that would have to be cut. Fit returns it wrapped in an
// *OverflowError; test for it with errors.Is.
var ErrOverBudget = errors.New("over budget")

// ErrInvalid is the error behind bad input: an unparsable or negative budget
// string, a nonsensical reserve or model window, a malformed Fit request.
// The wrapping error quotes the bad value and says what would be right;
// where it quotes one, its method BadValue() string gives the value (find
// it with errors.As on an interface{ BadValue() string }).
var ErrInvalid = errors.New("invalid budget input")

// invalidError carries a full message and unwraps to ErrInvalid, so the text
// reads naturally while errors.Is(err, ErrInvalid) still holds.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// valueError is an error about one value the caller gave (a budget
// string, a scope, model or encoding name, an item id), which its message
// quotes first; BadValue gives the value apart from the message, for
// cmd/lore's --json error body.
type valueError struct {
	value string
	err   error
}

func (e *valueError) Error() string { return e.err.Error() }
func (e *valueError) Unwrap() error { return e.err }

// BadValue is the value the error is about.
func (e *valueError) BadValue() string { return e.value }

// invalidValuef is invalidf about value, which the message quotes first.
func invalidValuef(value, format string, args ...any) error {
	return &valueError{value: value, err: invalidf(format, args...)}
}

// The causes an OverflowError names.
const (
	// CausePinned: pinned content (plus the frame) alone exceeds the limit.
	CausePinned = "pinned"
	// CauseFail: an item whose overflow action is Fail would have to be cut.
	CauseFail = "fail"
)

// OverflowError says which content made a budget impossible to meet. It
// unwraps to ErrOverBudget. When Fit returns it, nothing was dropped or
// truncated: the fit was refused as a whole.
type OverflowError struct {
	// Cause is CausePinned or CauseFail.
	Cause string
	// IDs are the items that overflowed, sorted: every pinned item for
	// CausePinned, the Fail item that would have been cut for CauseFail.
	IDs []string
	// Kinds are the distinct kinds of those items, sorted.
	Kinds []string
	// Needed is the tokens the content needed when the fit gave up: the
	// frame plus pinned items for CausePinned, everything still kept for
	// CauseFail. Limit is the budget it had to fit in.
	Needed, Limit int
}

// Error says what overflowed, by how much, and that nothing was cut.
func (e *OverflowError) Error() string {
	var b strings.Builder
	switch e.Cause {
	case CausePinned:
		fmt.Fprintf(&b, "pinned content needs %d tokens but the budget is %d", e.Needed, e.Limit)
	case CauseFail:
		fmt.Fprintf(&b, "content needs %d tokens but the budget is %d, and the overflow action of the content that would be cut is fail", e.Needed, e.Limit)
	default:
		fmt.Fprintf(&b, "content needs %d tokens but the budget is %d", e.Needed, e.Limit)
	}
	if len(e.IDs) > 0 {
		b.WriteString(": ")
		b.WriteString(quoteList(e.IDs, 10))
	}
	if len(e.Kinds) > 0 {
		b.WriteString(" (kind ")
		b.WriteString(strings.Join(e.Kinds, ", "))
		b.WriteString(")")
	}
	b.WriteString("; nothing was dropped or truncated")
	return b.String()
}

// Unwrap returns ErrOverBudget.
func (e *OverflowError) Unwrap() error { return ErrOverBudget }

// quoteList quotes up to max strings and says how many more there were.
func quoteList(ss []string, max int) string {
	var b strings.Builder
	for i, s := range ss {
		if i == max {
			fmt.Fprintf(&b, " and %d more", len(ss)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	return b.String()
}
