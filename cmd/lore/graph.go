package main

import (
	"fmt"
	"strings"
)

// graphFormats are the values of `lore neighbors --format`.
var graphFormats = []string{"text", "dot", "mermaid"}

// graphText draws the record id (titled title) and its neighbours as a
// Graphviz or Mermaid graph: a node a record, titled where it has a title
// and dashed where it is missing, and an edge a link, labelled by its
// relation, each once.
func graphText(format, ns, id, title string, nbs []neighborOut) string {
	type node struct {
		id, title string
		missing   bool
	}
	nodes := []node{{id: id, title: title}}
	seen := map[string]int{id: 0}
	for _, n := range nbs {
		if _, ok := seen[n.ID]; !ok {
			seen[n.ID] = len(nodes)
			nodes = append(nodes, node{id: n.ID, title: n.Title, missing: n.Missing})
		}
	}
	type edge struct{ from, rel, to string }
	var edges []edge
	done := map[edge]bool{}
	for _, n := range nbs {
		e := edge{n.Via.From, n.Via.Rel, n.Via.To}
		_, okFrom := seen[e.from]
		_, okTo := seen[e.to]
		if okFrom && okTo && !done[e] {
			done[e] = true
			edges = append(edges, e)
		}
	}
	var b strings.Builder
	if format == "dot" {
		fmt.Fprintf(&b, "digraph %s {\n  node [shape=box];\n", dotQuote(ns+" "+id))
		for i, n := range nodes {
			label := n.id
			if n.title != "" && n.title != n.id {
				label += "\n" + n.title
			}
			attrs := "label=" + dotQuote(label)
			switch {
			case i == 0:
				attrs += ", style=bold"
			case n.missing:
				attrs += ", style=dashed"
			}
			fmt.Fprintf(&b, "  %s [%s];\n", dotQuote(n.id), attrs)
		}
		for _, e := range edges {
			fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", dotQuote(e.from), dotQuote(e.to), dotQuote(e.rel))
		}
		b.WriteString("}\n")
		return b.String()
	}
	b.WriteString("graph LR\n")
	for i, n := range nodes {
		label := n.id
		if n.title != "" && n.title != n.id {
			label += "<br/>" + n.title
		}
		open, shut := "[", "]"
		if n.missing {
			open, shut = "([", "])"
		}
		fmt.Fprintf(&b, "  n%d%s%s%s\n", i, open, mermaidQuote(label), shut)
	}
	for _, e := range edges {
		fmt.Fprintf(&b, "  n%d -->|%s| n%d\n", seen[e.from], mermaidQuote(e.rel), seen[e.to])
	}
	b.WriteString("  style n0 stroke-width:3px\n")
	return b.String()
}

// dotQuote is s as a DOT string: in double quotes, with quotes and
// backslashes escaped and a newline as DOT's \n.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

// mermaidQuote is s as a quoted Mermaid label: its quotes, pipes and
// angle brackets as Mermaid's entity codes (a "<br/>" joiner stays).
func mermaidQuote(s string) string {
	parts := strings.Split(s, "<br/>")
	r := strings.NewReplacer(`"`, "#quot;", "|", "#124;", "<", "#lt;", ">", "#gt;", "\n", " ")
	for i, p := range parts {
		parts[i] = r.Replace(p)
	}
	return `"` + strings.Join(parts, "<br/>") + `"`
}
