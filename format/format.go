// Package format holds what Lore's file formats share: the error that
// names a bad line or file of an import. The formats themselves are its
// subpackages, jsonl (import and export) and markdown (folders of notes
// with front matter and wikilinks), so a program that stores records
// links neither, and one that reads JSONL links no YAML.
package format

import (
	"encoding/json"
	"fmt"
)

// InputError is one bad line of a JSONL file or one bad markdown file of
// an import. File is the name the caller gave (or the path inside the
// folder), Line is 1-based (0 when the problem is not on one line).
type InputError struct {
	File string
	Line int
	Err  error
}

// Error reads "file:line: what is wrong".
func (e InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap gives the cause, so callers can test it with errors.Is (the
// store's validation errors wrap store.ErrInvalid).
func (e InputError) Unwrap() error { return e.Err }

// MarshalJSON writes {"file","line","error"}: the shape `lore --json
// import` documents (an error value has no JSON form of its own).
func (e InputError) MarshalJSON() ([]byte, error) {
	msg := ""
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return json.Marshal(struct {
		File  string `json:"file"`
		Line  int    `json:"line,omitempty"`
		Error string `json:"error"`
	}{e.File, e.Line, msg})
}
