package packet

import (
	"fmt"
	"strings"
)

// ---- xml

func renderXML(v view) string {
	p := v.p
	r := p.Request
	var b strings.Builder
	fmt.Fprintf(&b, "<packet ns=%s profile=%s encoding=%s>\n", xattr(r.NS), xattr(r.Profile), xattr(r.Encoding))
	b.WriteString(totalLine("xml", v))
	b.WriteString("<request")
	if len(r.Focus) > 0 {
		fmt.Fprintf(&b, " focus=%s", xattr(strings.Join(r.Focus, " ")))
	}
	if r.Query != "" {
		fmt.Fprintf(&b, " query=%s", xattr(r.Query))
	}
	if r.Task != "" {
		fmt.Fprintf(&b, " task=%s", xattr(r.Task))
	}
	if len(r.When) > 0 {
		fmt.Fprintf(&b, " when=%s", xattr(strings.Join(r.When, ",")))
	}
	fmt.Fprintf(&b, " hops=\"%d\"", r.Hops)
	if r.AsOf > 0 {
		fmt.Fprintf(&b, " as-of=\"%d\"", r.AsOf)
	}
	if r.Scope != "" {
		fmt.Fprintf(&b, " scope=%s", xattr(r.Scope))
	}
	if len(r.Kinds) > 0 {
		fmt.Fprintf(&b, " kinds=%s", xattr(strings.Join(r.Kinds, ",")))
	}
	if len(r.ExcludeKinds) > 0 {
		fmt.Fprintf(&b, " exclude-kinds=%s", xattr(strings.Join(r.ExcludeKinds, ",")))
	}
	b.WriteString("/>\n")
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "<warning>%s</warning>\n", xtext(w))
	}
	if len(p.Records) > 0 {
		b.WriteString("<contents>\n")
		for _, e := range p.Records {
			b.WriteString(xmlIndexLine(e))
		}
		b.WriteString("</contents>\n")
		for _, e := range p.Records {
			b.WriteString(xmlEntry(e))
		}
	}
	if len(p.Deferred) > 0 {
		b.WriteString("<deferred>\n")
		for _, n := range p.listed {
			b.WriteString(xmlNote(n))
		}
		for _, g := range p.Grouped {
			b.WriteString(xmlGroup(g))
		}
		b.WriteString("</deferred>\n")
	}
	b.WriteString("</packet>\n")
	return b.String()
}

func xmlIndexLine(e Entry) string {
	return fmt.Sprintf("<item id=%s kind=%s rank=\"%d\" form=%s/>\n", xattr(e.ID), xattr(e.Kind), e.Rank, xattr(e.Form))
}

func xmlEntry(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<record id=%s kind=%s rank=\"%d\" form=%s", xattr(e.ID), xattr(e.Kind), e.Rank, xattr(e.Form))
	if e.Title != "" {
		fmt.Fprintf(&b, " title=%s", xattr(oneLine(e.Title)))
	}
	fmt.Fprintf(&b, " why=%s", xattr(e.Why))
	if e.Truncated > 0 {
		fmt.Fprintf(&b, " truncated=\"%d\"", e.Truncated)
	}
	if e.Fetch != "" {
		fmt.Fprintf(&b, " fetch=%s", xattr(e.Fetch))
	}
	b.WriteString(">\n")
	if t := strings.TrimRight(e.Text, "\n"); t != "" {
		b.WriteString(xtext(t))
		b.WriteString("\n")
	}
	b.WriteString("</record>\n")
	return b.String()
}

func xmlNote(n Note) string {
	return fmt.Sprintf("<note id=%s kind=%s rank=\"%d\" step=\"%d\" action=%s tokens=\"%d\" reason=%s fetch=%s/>\n",
		xattr(n.ID), xattr(n.Kind), n.Rank, n.Step, xattr(n.Action), n.Tokens, xattr(n.Reason), xattr(n.Fetch))
}

func xmlGroup(g NoteGroup) string {
	kind := "kind=" + xattr(g.Kind)
	if g.Kind == "" {
		kind = fmt.Sprintf("kinds=\"%d\"", g.Kinds)
	}
	return fmt.Sprintf("<more %s count=\"%d\" ranks=\"%s\" tokens=\"%d\" fetch=%s/>\n", kind, g.Count, g.ranks(), g.Tokens, xattr(g.Fetch))
}

var xmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
var xmlAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#10;", "\t", "&#9;", "\r", "&#13;")

func xtext(s string) string { return xmlTextEscaper.Replace(xmlChars(s)) }
func xattr(s string) string { return `"` + xmlAttrEscaper.Replace(xmlChars(s)) + `"` }

// xmlChars replaces the characters XML 1.0 cannot carry at all (most
// control characters, even as references) by U+FFFD.
func xmlChars(s string) string {
	if strings.IndexFunc(s, badXMLChar) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if badXMLChar(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func badXMLChar(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF
}
