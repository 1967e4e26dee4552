package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/packet"
)

// explainRow is one line of `packet --explain`: an included record, a
// deferral note ("deferred") or a candidate not loaded ("not loaded").
type explainRow struct {
	Rank   int    `json:"rank,omitempty"`
	Tokens int    `json:"tokens"`
	Form   string `json:"form"`
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Step   int    `json:"step,omitempty"`
	Why    string `json:"why"`
}

// explainJSON is `packet --explain --json`.
type explainJSON struct {
	Budget int          `json:"budget"`
	Tokens int          `json:"tokens"`
	Hash   string       `json:"hash"`
	Rows   []explainRow `json:"rows"`
}

func newExplainJSON(p *packet.Packet) explainJSON {
	out := explainJSON{Budget: p.Budget, Tokens: p.Tokens, Hash: p.Hash, Rows: []explainRow{}}
	for _, e := range p.Records {
		out.Rows = append(out.Rows, explainRow{Rank: e.Rank, Tokens: e.Tokens, Form: e.Form, ID: e.ID, Kind: e.Kind, Why: e.Why})
	}
	for _, n := range p.Deferred {
		out.Rows = append(out.Rows, explainRow{Rank: n.Rank, Tokens: n.Tokens, Form: "deferred", ID: n.ID, Kind: n.Kind, Step: n.Step, Why: n.Reason})
	}
	for _, s := range p.Skipped {
		out.Rows = append(out.Rows, explainRow{Form: "not loaded", ID: s.ID, Kind: s.Kind, Why: s.Reason})
	}
	return out
}

// renderedJSON is `packet --json --format md|xml`: the packet fitted and
// rendered in that format, carried as a string, with what the JSON
// packet says about it.
type renderedJSON struct {
	Total    renderedTotal  `json:"total"`
	Request  packet.Request `json:"request"`
	Warnings []string       `json:"warnings"`
	Records  []packet.Entry `json:"records"` // each with the text the packet shows of it
	Deferred []packet.Note  `json:"deferred"`
	Format   string         `json:"format"`
	Rendered string         `json:"rendered"`
}

type renderedTotal struct {
	Tokens int    `json:"tokens"`
	Budget int    `json:"budget"`
	Hash   string `json:"hash"`
}

func newRenderedJSON(p *packet.Packet, format string, rendered []byte) renderedJSON {
	out := renderedJSON{
		Total:    renderedTotal{Tokens: p.Tokens, Budget: p.Budget, Hash: p.Hash},
		Request:  p.Request,
		Warnings: p.Warnings,
		Records:  []packet.Entry{},
		Deferred: p.Deferred,
		Format:   format,
		Rendered: string(rendered),
	}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	if out.Deferred == nil {
		out.Deferred = []packet.Note{}
	}
	out.Records = append(out.Records, p.Records...)
	return out
}

// packSummary is `pack --json -o FILE`: where the pack went and what it
// holds.
type packSummary struct {
	File      string `json:"file"`
	Bytes     int    `json:"bytes"`
	Format    string `json:"format"`
	Encoding  string `json:"encoding"`
	Budget    int    `json:"budget"`
	Tokens    int    `json:"tokens"`
	Hash      string `json:"hash"`
	Files     int    `json:"files"`
	Deferred  int    `json:"deferred"`
	NotPacked int    `json:"not_packed"`
}

// jsonError is the error document `--json` writes on stderr.
type jsonError struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Value is the value the error is about, which the message quotes
	// first: the flag value, id or file that was wrong (badValue).
	Value string `json:"value,omitempty"`
	Usage string `json:"usage,omitempty"`
	// Hint is what to type about it (cliHint), where the command line
	// has advice.
	Hint string `json:"hint,omitempty"`
}

// writeJSONError writes err as one JSON document on w.
func writeJSONError(w io.Writer, code int, err error) {
	msg, usage := err.Error(), ""
	var st *exitStatus
	if errors.As(err, &st) && st.usage != "" && st.err != nil {
		msg, usage = st.err.Error(), st.usage
	}
	body := jsonErrorBody{Code: code, Message: msg, Value: badValue(err, msg), Usage: usage, Hint: cliHint(err)}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if e := enc.Encode(jsonError{Error: body}); e != nil {
		fmt.Fprintf(w, "lore: %v\n", err)
	}
}

// badValue is the value err is about: the one its outermost error with a
// BadValue method names (Lore's own errors, see internal/badvalue), else
// the first value msg quotes, for errors Lore did not make (pflag's
// `invalid argument "x" for "--limit" flag`, say).
func badValue(err error, msg string) string {
	if v, ok := badvalue.Of(err); ok {
		return v
	}
	return quotedValue(msg)
}

// quotedValue is the first Go-quoted string in msg ("" if none): messages
// quote the bad value with %q.
func quotedValue(msg string) string {
	for i := strings.IndexByte(msg, '"'); i >= 0; {
		if q, err := strconv.QuotedPrefix(msg[i:]); err == nil {
			v, _ := strconv.Unquote(q)
			return v
		}
		j := strings.IndexByte(msg[i+1:], '"')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}

// wantsJSON reports whether the command line asks for --json, whether or
// not it parsed.
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// reportExitJSON is reportExit for --json: the error as a JSON document.
func reportExitJSON(stderr io.Writer, err error) int {
	code := exitCodeOf(err)
	var st *exitStatus
	if err != nil && !(errors.As(err, &st) && st.quiet) {
		writeJSONError(stderr, code, err)
	}
	return code
}

// reporter is how run reports the outcome of the command line args.
func reporter(args []string) func(io.Writer, error) int {
	if wantsJSON(args) {
		return reportExitJSON
	}
	return reportExit
}
