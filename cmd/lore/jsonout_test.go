package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/lorekeep/lore/internal/badvalue"
)

// decoyError quotes another value before the one it is about, as a
// message may: the error body's value must come from BadValue, not from
// the message's first quote.
type decoyError struct{}

func (decoyError) Error() string    { return `in "decoy.txt": budget "8q" is not a number` }
func (decoyError) BadValue() string { return "8q" }

// jsonErrorValue writes err as the --json error body and reads back its
// value.
func jsonErrorValue(t *testing.T, err error) string {
	t.Helper()
	var buf bytes.Buffer
	writeJSONError(&buf, 1, err)
	var doc jsonError
	if e := json.Unmarshal(buf.Bytes(), &doc); e != nil {
		t.Fatalf("%v: %s", e, buf.String())
	}
	return doc.Error.Value
}

// The error body's value is the one the typed error names, through any
// wrapping; only an error Lore did not make (pflag's, here) falls back
// to the message's first quote.
func TestJSONErrorValueComesFromTheError(t *testing.T) {
	usage := &exitStatus{code: exitError, err: fmt.Errorf("wrapped: %w", decoyError{}), usage: "lore packet [flags]"}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"typed", fmt.Errorf("packet: %w", decoyError{}), "8q"},
		{"typed usage error", usage, "8q"},
		{"untyped", errors.New(`invalid argument "abc" for "--limit" flag`), "abc"},
		{"no value", errors.New("give two packet files"), ""},
	} {
		if got := jsonErrorValue(t, c.err); got != c.want {
			t.Errorf("%s: value %q, want %q", c.name, got, c.want)
		}
	}
}

// End to end, the value of a bad budget, scope or namespace, and of a
// missing record, is the one the library's error names.
func TestJSONErrorValueOfBadInput(t *testing.T) {
	dir := newStore(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"packet", "--ns", "a", "--budget", "8q", "x"}, "8q"},
		{[]string{"packet", "--ns", "a", "--scope", "chapterr", "x"}, "chapterr"},
		{[]string{"packet", "--ns", "Bad NS", "--budget", "1k", "x"}, "Bad NS"},
		{[]string{"get", "--ns", "a", "nothere"}, "nothere"},
	} {
		args := append([]string{"--store", dir, "--json"}, c.args...)
		var out, errb bytes.Buffer
		root := newRootCommand(&streams{in: new(bytes.Buffer), out: &out, err: &errb})
		root.SetArgs(args)
		err := root.Execute()
		if v, ok := badvalue.Of(err); !ok || v != c.want {
			t.Errorf("%v: error %v names no value %q by its type", c.args, err, c.want)
		}
		if code := reportExitJSON(&errb, err); code != exitError {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitError)
		}
		var doc jsonError
		if e := json.Unmarshal(errb.Bytes(), &doc); e != nil || doc.Error.Value != c.want {
			t.Errorf("%v: error body %s: want value %q", c.args, errb.String(), c.want)
		}
	}
}
