package budget

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownEncoding is the error behind a counter name that NewCounter
// does not know. The error NewCounter returns also matches ErrInvalid.
var ErrUnknownEncoding = errors.New("unknown encoding")

// DefaultEncoding is the counter NewCounter returns for the name "".
const DefaultEncoding = "o200k_base"

// Estimate is the name of the estimating counter (see NewCounter).
const Estimate = "estimate"

// Encodings returns the names NewCounter accepts, sorted.
func Encodings() []string {
	return []string{"cl100k_base", Estimate, "o200k_base"}
}

// NewCounter returns the counter with the given name:
//
//   - "o200k_base" (also for ""), "cl100k_base": OpenAI's encodings, exact
//     for ordinary text (special-token text counts as its characters). The
//     result also implements Tokenizer. The tables are embedded: no file or
//     network is read, and each loads once per process (a few
//     milliseconds), on the first NewCounter that asks for it.
//   - "estimate": characters/4 for prose, lines*12 for tabular text (see
//     EstimateTokens); for models whose tokenizer Lore does not have.
//
// Every counter is safe for concurrent use. Use Exact to tell exact
// counters from estimates.
func NewCounter(name string) (Counter, error) {
	if name == "" {
		name = DefaultEncoding
	}
	if name == Estimate {
		return estimator{}, nil
	}
	for _, e := range encodings {
		if e.name == name {
			v, err := e.load()
			if err != nil {
				return nil, &valueError{value: name, err: fmt.Errorf("load encoding %q: %w", name, err)}
			}
			return &bpeCounter{name: name, v: v, split: e.split}, nil
		}
	}
	return nil, &unknownEncodingError{name: name}
}

// unknownEncodingError quotes the bad name and lists the good ones; it
// matches both ErrUnknownEncoding and ErrInvalid.
type unknownEncodingError struct{ name string }

func (e *unknownEncodingError) Error() string {
	return fmt.Sprintf("unknown encoding %q: want one of %s (or empty for %s)",
		e.name, strings.Join(Encodings(), ", "), DefaultEncoding)
}

// BadValue is the encoding name that is not known.
func (e *unknownEncodingError) BadValue() string { return e.name }

func (e *unknownEncodingError) Unwrap() []error {
	return []error{ErrUnknownEncoding, ErrInvalid}
}

// Exact reports whether c counts exactly as a model's own tokenizer does.
// A counter says so with an Exact() bool method; counters without one
// (including the "estimate" counter) are estimates, and reports should say
// so.
func Exact(c Counter) bool {
	e, ok := c.(interface{ Exact() bool })
	return ok && e.Exact()
}
