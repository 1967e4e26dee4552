package packet

import (
	"fmt"
	"slices"
	"strings"
)

// ---- xml

// The XML packet has the markdown packet's economy: the request once
// (options only when not defaults), one contents line, the records in
// one <section> per rank (its kind when the records share it), each
// <record> with its id, title and, when the section does not say it, its
// kind and why; then the deferral notes, whose grouped handle is given
// once.
func renderXML(v view) string {
	p := v.p
	var b strings.Builder
	fmt.Fprintf(&b, "<packet ns=%s profile=%s>\n", xattr(p.Request.NS), xattr(p.Request.Profile))
	b.WriteString(totalLine("xml", v))
	b.WriteString(xmlRequest(p.Request))
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "<warning>%s</warning>\n", xtext(w))
	}
	if len(p.Records) > 0 {
		fmt.Fprintf(&b, "<contents>%s</contents>\n", xtext(inside(p.Records)))
		for i := 0; i < len(p.Records); {
			section := p.Records[i:]
			section = section[:sectionLen(section)]
			kind := sectionKind(section)
			b.WriteString(xmlSection(section, kind))
			for _, e := range section {
				b.WriteString(xmlEntry(e, kind == ""))
			}
			b.WriteString("</section>\n")
			i += len(section)
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
	for i, s := range p.Superseded {
		if i == maxSupersededLines {
			fmt.Fprintf(&b, "<superseded-more count=\"%d\"/>\n", len(p.Superseded)-i)
			break
		}
		fmt.Fprintf(&b, "<superseded id=%s kind=%s by=%s on=%s fetch=%s/>\n", xattr(s.ID), xattr(s.Kind), xattr(s.By), xattr(s.On), xattr(s.Fetch))
	}
	b.WriteString("</packet>\n")
	return b.String()
}

// xmlRequest is the request as attributes: the query, the focus and the
// options that are not defaults.
func xmlRequest(r Request) string {
	var b strings.Builder
	b.WriteString("<request")
	if len(r.Focus) > 0 {
		fmt.Fprintf(&b, " focus=%s", xattr(strings.Join(r.Focus, " ")))
	}
	if r.Query != "" {
		fmt.Fprintf(&b, " query=%s", xattr(r.Query))
	}
	if opts := requestOptions(r); len(opts) > 0 {
		fmt.Fprintf(&b, " options=%s", xattr(strings.Join(opts, "; ")))
	}
	b.WriteString("/>\n")
	return b.String()
}

// xmlSection opens a rank's section: its rank, the kind its records share
// (kind "" for none), and hits="best first" when it holds search hits.
func xmlSection(section []Entry, kind string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<section rank=\"%d\"", section[0].Rank)
	if kind != "" {
		fmt.Fprintf(&b, " kind=%s", xattr(kind))
	}
	if slices.ContainsFunc(section, func(e Entry) bool { return e.hit }) {
		b.WriteString(` hits="best first"`)
	}
	b.WriteString(">\n")
	return b.String()
}

// xmlEntry is one record: its id and title, its kind unless the section
// names it, its why unless it is a hit, the form when it is not whole.
func xmlEntry(e Entry, withKind bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<record id=%s", xattr(e.ID))
	if withKind && e.Kind != "" {
		fmt.Fprintf(&b, " kind=%s", xattr(e.Kind))
	}
	if e.Why != "" && !e.hit {
		fmt.Fprintf(&b, " why=%s", xattr(e.Why))
	}
	if e.Form != "full" {
		fmt.Fprintf(&b, " form=%s", xattr(e.Form))
	}
	if len(e.Contradicts) > 0 {
		fmt.Fprintf(&b, " contradicts=%s", xattr(strings.Join(e.Contradicts, "; ")))
	}
	if e.Title != "" && e.Title != e.ID {
		fmt.Fprintf(&b, " title=%s", xattr(oneLine(e.Title)))
	}
	if e.Truncated > 0 {
		fmt.Fprintf(&b, " truncated=\"%d\"", e.Truncated)
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, " omitted=\"%d\"", e.Omitted)
	}
	if e.Fetch != "" {
		fmt.Fprintf(&b, " fetch=%s", xattr(e.Fetch))
	}
	b.WriteString(">")
	if t := strings.TrimRight(e.Text, "\n"); t != "" {
		b.WriteString("\n" + xtext(t) + "\n")
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
