package markdown

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/store"
	"go.yaml.in/yaml/v3"
)

// applyFrontMatter parses fm (which starts on file line start) into
// f.rec and f.links. On error it returns the file line to blame.
func (f *mdFile) applyFrontMatter(fm string, start int) (int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil {
		return yamlError(fm, start, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return 0, nil // empty front matter
	}
	p := &frontMatter{f: f, fm: fm, start: start, metaLine: map[string]int{}}
	root := deref(doc.Content[0])
	if isNull(root) {
		return 0, nil
	}
	if root.Kind != yaml.MappingNode {
		return p.at(root), fmt.Errorf("front matter must be a YAML mapping of keys (id: ..., kind: ...), got %s", nodeKind(root))
	}
	top := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := deref(root.Content[i]), deref(root.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			return p.at(kn), fmt.Errorf("front matter key must be a plain name, got %s", nodeKind(kn))
		}
		key := kn.Value
		if top[key] {
			return p.at(kn), badvalue.Errorf(key, "key %q is given twice", key)
		}
		top[key] = true
		if isNull(vn) {
			continue
		}
		if line, err := p.applyKey(key, kn, vn); err != nil {
			return line, err
		}
	}
	f.rec.Meta = p.meta
	return 0, nil
}

// yamlError turns a parse error of fm into a message and the file line to
// blame.
func yamlError(fm string, start int, err error) (int, error) {
	msg := err.Error()
	line := start - 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = m[2]
		// yaml.v3 counts lines from 0 for parser errors (scanner
		// errors are already 1-based); parser problems read
		// "did not find expected ...".
		if strings.HasPrefix(msg, "did not find expected") {
			n++
		}
		line = start - 1 + editorLine(fm, n)
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if tab := tabIndented(fm); tab > 0 && (strings.Contains(msg, "tab") || strings.Contains(msg, "cannot start any token")) {
		return start - 1 + tab, fmt.Errorf("front matter is not valid YAML: this line is indented with a tab, and YAML indents with spaces only: replace the tab with spaces (yaml: %s)", msg)
	}
	return line, fmt.Errorf("front matter is not valid YAML: %s", msg)
}

// isNull reports whether n is a YAML null, which counts as absent.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// frontMatter is the state of one file's front matter while its keys are
// applied: meta gathers from both the top level and the meta mapping, so
// a key given in both places is caught.
type frontMatter struct {
	f        *mdFile
	fm       string // the front matter's text
	start    int    // file line of the front matter's first line
	meta     map[string]string
	metaLine map[string]int
}

// at is the file line of node n, counted as an editor counts them.
func (p *frontMatter) at(n *yaml.Node) int { return p.start - 1 + editorLine(p.fm, n.Line) }

// setMeta records meta key k, refusing one given twice.
func (p *frontMatter) setMeta(k, v string, line int) error {
	if p.meta == nil {
		p.meta = map[string]string{}
	}
	if prev, dup := p.metaLine[k]; dup {
		return badvalue.Errorf(k, "meta key %q is given twice (also on line %d)", k, prev)
	}
	p.meta[k] = v
	p.metaLine[k] = line
	return nil
}

// applyKey applies one top-level key whose value is not null. On error it
// returns the file line to blame: the value's, unless meta or links point
// inside it.
func (p *frontMatter) applyKey(key string, kn, vn *yaml.Node) (int, error) {
	var err error
	switch key {
	case "meta":
		return p.applyMeta(vn)
	case "links":
		return p.applyLinks(vn)
	case "id":
		p.f.idLine = p.at(kn)
	}
	if set, ok := frontMatterFields[key]; ok {
		err = set(p.f, key, vn)
	} else {
		var v string
		if v, err = joinedScalars(key, vn); err == nil {
			err = p.setMeta(key, v, p.at(kn))
		}
	}
	if err != nil {
		return p.at(vn), err
	}
	return 0, nil
}

// frontMatterFields sets the record field each front-matter key names from its
// value, checking the value where it stands.
var frontMatterFields = map[string]func(f *mdFile, key string, vn *yaml.Node) error{
	"id": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		f.rec.ID, err = scalar(key, vn)
		return err
	},
	"kind": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		if f.rec.Kind, err = scalar(key, vn); err != nil {
			return err
		}
		return store.ValidFields(f.rec.Kind, nil, nil)
	},
	"title": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		f.rec.Title, err = scalar(key, vn)
		f.titleSet = true
		return err
	},
	"summary": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		f.rec.Summary, err = scalar(key, vn)
		return err
	},
	"tags": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		if f.rec.Tags, err = scalars(key, vn); err != nil {
			return err
		}
		return store.ValidFields("", f.rec.Tags, nil)
	},
	// aliases and keys are checked against the id given so far.
	"aliases": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		if f.rec.Aliases, err = names(key, vn); err != nil {
			return err
		}
		return store.ValidNames(f.rec.ID, f.rec.Aliases, nil)
	},
	"keys": func(f *mdFile, key string, vn *yaml.Node) (err error) {
		if f.rec.Keys, err = names(key, vn); err != nil {
			return err
		}
		return store.ValidNames(f.rec.ID, nil, f.rec.Keys)
	},
	"order":  setOrder,
	"pinned": setPinned,
}

// setOrder sets the record's order from an integer value.
func setOrder(f *mdFile, key string, vn *yaml.Node) error {
	s, err := scalar(key, vn)
	if err != nil {
		return err
	}
	if f.rec.Order, err = strconv.ParseInt(s, 10, 64); err != nil {
		return badvalue.Errorf(s, "order %q is not an integer: want a whole number position such as 3", s)
	}
	return nil
}

// setPinned sets the record's pinned flag from true or false.
func setPinned(f *mdFile, key string, vn *yaml.Node) error {
	s, err := scalar(key, vn)
	if err != nil {
		return err
	}
	switch s {
	case "true":
		f.rec.Pinned = true
	case "false":
		f.rec.Pinned = false
	default:
		return badvalue.Errorf(s, "pinned %q is not a boolean: want true or false", s)
	}
	return nil
}

// applyMeta adds the meta mapping's keys; errors point at the key or
// value at fault.
func (p *frontMatter) applyMeta(vn *yaml.Node) (int, error) {
	if vn.Kind != yaml.MappingNode {
		return p.at(vn), fmt.Errorf("meta must be a mapping of key: value, got %s", nodeKind(vn))
	}
	for j := 0; j+1 < len(vn.Content); j += 2 {
		mk, mv := deref(vn.Content[j]), deref(vn.Content[j+1])
		k, err := scalar("meta key", mk)
		if err != nil {
			return p.at(mk), err
		}
		if isNull(mv) {
			continue
		}
		v, err := joinedScalars("meta."+k, mv)
		if err != nil {
			return p.at(mv), err
		}
		if err := p.setMeta(k, v, p.at(mk)); err != nil {
			return p.at(mk), err
		}
	}
	return 0, nil
}

// applyLinks adds the links mapping's relations and targets to f.links;
// errors point at the relation or its targets.
func (p *frontMatter) applyLinks(vn *yaml.Node) (int, error) {
	if vn.Kind != yaml.MappingNode {
		return p.at(vn), fmt.Errorf("links must be a mapping of relation: [targets], e.g. appears_in: [scene-01]; got %s", nodeKind(vn))
	}
	for j := 0; j+1 < len(vn.Content); j += 2 {
		rk, rv := deref(vn.Content[j]), deref(vn.Content[j+1])
		rel, err := scalar("link relation", rk)
		if err == nil {
			err = store.ValidRel(rel)
		}
		if err != nil {
			return p.at(rk), err
		}
		if isNull(rv) {
			continue
		}
		targets, err := scalars("links."+rel, rv)
		if err != nil {
			return p.at(rv), err
		}
		for _, t := range targets {
			t = cleanTarget(t)
			if t == "" {
				return p.at(rv), fmt.Errorf("links.%s has an empty target", rel)
			}
			if err := store.ValidID(t); err != nil {
				return p.at(rv), fmt.Errorf("links.%s: target: %w", rel, err)
			}
			p.f.links = append(p.f.links, mdLink{rel: rel, target: t})
		}
	}
	return 0, nil
}
