package packet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// renderJSON is the JSON form of a packet. Field names are stable:
//
//	total      {tokens, budget, percent, hash}: the whole packet's count,
//	           the limit, and "sha256:<hex>" of the rendered bytes without
//	           this line
//	request    the normalized request (ns, query, focus, budget, ...)
//	frame_only true when the budget is below the frame
//	warnings   strings
//	records    included records: id, kind, title, rank, why, form, text,
//	           truncated, tokens, fetch
//	deferred   deferral notes: id, kind, rank, step, action, tokens, saves,
//	           reason, fetch
//	deferred_more  notes not listed one by one, by kind: kind, count,
//	           tokens, ranks, fetch (absent when every note is listed)
//	superseded records left out as superseded: id, kind, by, on, fetch
//	           (absent when none; superseded_more counts those past 5)
func renderJSON(v view) string {
	p := v.p
	warnings := p.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	// One line for the request and one per record and note: the field
	// names stay, the indentation that would cost a few tokens per field
	// goes.
	var b strings.Builder
	b.WriteString("{\n" + totalLine("json", v))
	fmt.Fprintf(&b, "  \"request\": %s,\n  \"frame_only\": %t,\n  \"warnings\": %s,\n", compactJSON(p.Request), p.FrameOnly, compactJSON(warnings))
	jsonArray(&b, "records", p.Records, true)
	jsonArray(&b, "deferred", p.listed, len(p.Grouped) > 0 || len(p.Superseded) > 0)
	if len(p.Grouped) > 0 {
		jsonArray(&b, "deferred_more", p.Grouped, len(p.Superseded) > 0)
	}
	if len(p.Superseded) > 0 {
		listed := p.Superseded[:min(len(p.Superseded), maxSupersededLines)]
		more := len(p.Superseded) - len(listed)
		jsonArray(&b, "superseded", listed, more > 0)
		if more > 0 {
			fmt.Fprintf(&b, "  \"superseded_more\": %d\n", more)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// jsonArray writes "name": [...] with one element a line, and a comma
// after the array when more fields follow.
func jsonArray[T any](b *strings.Builder, name string, xs []T, more bool) {
	fmt.Fprintf(b, "  %q: [", name)
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    " + compactJSON(x))
	}
	if len(xs) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]")
	if more {
		b.WriteByte(',')
	}
	b.WriteByte('\n')
}

// compactJSON is x as JSON on one line, HTML characters left as they are.
func compactJSON(x any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		// Only strings, ints and bools: encoding cannot fail.
		panic(fmt.Sprintf("packet: encode json: %v", err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// jsonFragment is an entry or note as it costs inside the records or
// deferred array.
func jsonFragment(x any) string {
	return "\n    " + compactJSON(x) + ","
}
