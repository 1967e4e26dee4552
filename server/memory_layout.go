package server

import (
	"encoding/json"
	"strings"
)

// The record layout of an entity's observations. The body is a markdown
// list, one item an observation, so that it reads well in packets; a line
// break inside an observation continues the item on a line indented by
// two spaces:
//
//	- Speaks French
//	- Address:
//	  12 Quay Street
//	-
//
// (the last item is a blank observation: "- " with its space). Every
// observation reads back byte for byte, including blanks, padding, line
// breaks and carriage returns. A body not in this layout (a record stored
// with put_record or lore put, or by an older Lore) reads as one
// observation per non-blank line.

// encodeObservations lays observations out as a record body.
func encodeObservations(obs []string) string {
	var b strings.Builder
	for i, o := range obs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		b.WriteString(strings.ReplaceAll(o, "\n", "\n  "))
	}
	return b.String()
}

// decodeObservations reads a record body back into observations.
func decodeObservations(body string) []string {
	if body == "" {
		return []string{}
	}
	lines := strings.Split(body, "\n")
	if !isObservationList(lines) {
		return legacyObservations(lines)
	}
	var out []string
	for _, line := range lines {
		if rest, ok := strings.CutPrefix(line, "- "); ok {
			out = append(out, rest)
			continue
		}
		out[len(out)-1] += "\n" + line[2:]
	}
	return out
}

// isObservationList reports whether lines are in the list layout: the
// first starts an item, every other starts one or continues one.
func isObservationList(lines []string) bool {
	if !strings.HasPrefix(lines[0], "- ") {
		return false
	}
	for _, line := range lines[1:] {
		if !strings.HasPrefix(line, "- ") && !strings.HasPrefix(line, "  ") {
			return false
		}
	}
	return true
}

// legacyObservations reads a free body: one observation a non-blank line.
func legacyObservations(lines []string) []string {
	out := []string{}
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

// jsJSON renders v as JavaScript's JSON.stringify(v, null, 2) does (the
// reference server's text): two-space indentation, no HTML escaping,
// U+2028 and U+2029 left as they are.
func jsJSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return unescapeLineSeparators(strings.TrimSuffix(b.String(), "\n")), nil
}

// unescapeLineSeparators turns the escapes \u2028 and \u2029 that Go's
// encoder writes back into the characters, leaving an escaped backslash
// followed by "u2028" alone.
func unescapeLineSeparators(s string) string {
	if !strings.Contains(s, `\u202`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] != 'u' {
			b.WriteString(s[i : i+2]) // \\, \n, \" ...: copied whole
			i++
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], `\u2028`):
			b.WriteString("\u2028")
			i += 5
		case strings.HasPrefix(s[i:], `\u2029`):
			b.WriteString("\u2029")
			i += 5
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}
