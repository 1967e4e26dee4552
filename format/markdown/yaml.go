package markdown

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/lorekeep/lore/internal/clip"
	"go.yaml.in/yaml/v3"
)

// deref follows a YAML alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// nodeKind names a YAML node kind for an error message.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", clip.String(n.Value, 40))
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// scalar returns a scalar node's text, as written.
func scalar(key string, n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("%s must be a single value, got %s", key, nodeKind(n))
	}
	return n.Value, nil
}

// scalars returns a list of scalars, or one scalar as a list of one.
func scalars(key string, n *yaml.Node) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s must be a list of values, got %s", key, nodeKind(n))
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		c = deref(c)
		if c.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s must be a list of values, but one item is %s", key, nodeKind(c))
		}
		if c.Tag == "!!null" {
			continue
		}
		out = append(out, c.Value)
	}
	return out, nil
}

// names returns a list of aliases or keys. Unlike scalars, it keeps an
// empty item ("- " or "") as "", so that validation reports it rather
// than letting a slip pass silently.
func names(key string, n *yaml.Node) ([]string, error) {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s must be a list of names, got %s", key, nodeKind(n))
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		c = deref(c)
		if c.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s must be a list of names, but one item is %s", key, nodeKind(c))
		}
		if c.Tag == "!!null" {
			out = append(out, "")
			continue
		}
		out = append(out, c.Value)
	}
	return out, nil
}

// joinedScalars returns a scalar, or a list of scalars joined by ", ".
func joinedScalars(key string, n *yaml.Node) (string, error) {
	if n.Kind == yaml.MappingNode {
		return "", fmt.Errorf("%s is a mapping: only meta and links may hold mappings; other keys take a value or a list", key)
	}
	vs, err := scalars(key, n)
	if err != nil {
		return "", err
	}
	return strings.Join(vs, ", "), nil
}

// tabIndented returns the 1-based line of the first line of fm whose
// indentation holds a tab, or 0. YAML forbids tabs there, and the
// parser's own words for it ("found character that cannot start any
// token") do not say "tab".
func tabIndented(fm string) int {
	n := 0
	for line := range strings.SplitSeq(fm, "\n") {
		n++
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(line) != "" {
			return n
		}
	}
	return 0
}

// editorLine maps yaml.v3's line n of fm to the line of fm an editor
// shows, where lines end at \n. yaml.v3 also ends a line at a lone \r and
// at NEL, LS and PS (U+0085, U+2028, U+2029).
func editorLine(fm string, n int) int {
	yl, el := 1, 1
	for i := 0; i < len(fm) && yl < n; i++ {
		switch {
		case fm[i] == '\n':
			yl, el = yl+1, el+1
		case fm[i] == '\r' && (i+1 == len(fm) || fm[i+1] != '\n'):
			yl++
		case strings.HasPrefix(fm[i:], "\u0085"):
			yl, i = yl+1, i+1
		case strings.HasPrefix(fm[i:], "\u2028"), strings.HasPrefix(fm[i:], "\u2029"):
			yl, i = yl+1, i+2
		}
	}
	return el + max(0, n-yl)
}

// yamlLineRE finds the line number in a yaml parse error.
var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
