package pack

import (
	"strings"
)

// gitignorePattern is one compiled line of a .gitignore file (or one
// category pattern of the files profile, which uses the same syntax).
//
// The rules are git's (gitignore(5)): a pattern with a slash at its start or
// in its middle is anchored to the directory of its .gitignore; one without
// matches at any depth; a trailing slash matches directories only; a leading
// "!" re-includes; "**/" matches zero or more directories, a trailing "/**"
// everything inside; "*", "?" and "[...]" never match a slash.
type gitignorePattern struct {
	// base is the directory the pattern is relative to ("" for the root),
	// slash-separated, without a trailing slash.
	base    string
	segs    []string
	negate  bool
	dirOnly bool
	// above is the path from the pattern's directory down to the walk
	// root ("x/y/"), for the rules of a .gitignore above the root; walk
	// paths are matched as above+path.
	above string
	// source is the original line, kept for error messages and tests.
	source string
}

// gitignoreCompile compiles one line of a .gitignore located in base. It
// reports false for lines that hold no pattern (blank lines, comments).
func gitignoreCompile(base, line string) (gitignorePattern, bool) {
	p := gitignorePattern{base: base, source: line}
	line = strings.TrimSuffix(line, "\r")
	line = gitignoreTrimTrailingSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return p, false
	}
	if strings.HasPrefix(line, "!") {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	segs := strings.Split(line, "/")
	// Empty segments (from "a//b") match nothing useful in git either;
	// dropping them keeps the segment walk simple.
	clean := segs[:0]
	for _, s := range segs {
		if s != "" {
			clean = append(clean, s)
		}
	}
	if len(clean) == 0 {
		return p, false
	}
	if !anchored {
		clean = append([]string{"**"}, clean...)
	}
	p.segs = clean
	return p, true
}

// gitignoreTrimTrailingSpace removes trailing spaces unless the last one is
// escaped with a backslash, which keeps the space (and drops the backslash).
func gitignoreTrimTrailingSpace(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			return s[:end-2] + " "
		}
		end--
	}
	return s[:end]
}

// match reports whether the slash-separated path (relative to the walk
// root) matches the pattern. Paths outside the pattern's base never match.
func (p gitignorePattern) match(path string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	rel := path
	if p.above != "" {
		rel = p.above + path
	} else if p.base != "" {
		if !strings.HasPrefix(path, p.base+"/") {
			return false
		}
		rel = path[len(p.base)+1:]
	}
	return gitignoreMatchSegs(p.segs, strings.Split(rel, "/"))
}

// gitignoreMatchSegs matches pattern segments against path segments; a "**"
// segment stands for zero or more path segments, except in last position,
// where it needs at least one ("foo/**" matches what is inside foo, not foo).
func gitignoreMatchSegs(pat, path []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(path) >= 1
			}
			for i := 0; i <= len(path); i++ {
				if gitignoreMatchSegs(pat[1:], path[i:]) {
					return true
				}
			}
			return false
		}
		if len(path) == 0 || !gitignoreMatchName(pat[0], path[0]) {
			return false
		}
		pat, path = pat[1:], path[1:]
	}
	return len(path) == 0
}

// gitignoreMatchName matches one path segment against one glob segment:
// "*" (any run, "**" inside a segment is the same as "*"), "?" (any one
// character), "[...]" (a class, "!" or "^" negates, ranges with "-") and
// backslash escapes. It works on runes so "?" matches one character.
func gitignoreMatchName(pat, name string) bool {
	p, n := []rune(pat), []rune(name)
	// Classic iterative wildcard match with one backtrack point: linear in
	// practice and never exponential.
	pi, ni := 0, 0
	starP, starN := -1, 0
	for ni < len(n) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				starP, starN = pi, ni
				continue
			case '?':
				pi++
				ni++
				continue
			case '[':
				if ok, width, valid := gitignoreMatchClass(p[pi:], n[ni]); valid {
					if ok {
						pi += width
						ni++
						continue
					}
				} else if n[ni] == '[' { // an unclosed "[" is a literal
					pi++
					ni++
					continue
				}
			case '\\':
				if pi+1 < len(p) && p[pi+1] == n[ni] {
					pi += 2
					ni++
					continue
				}
			default:
				if p[pi] == n[ni] {
					pi++
					ni++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starN++
		pi, ni = starP, starN
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// gitignoreMatchClass matches c against the bracket expression at the
// start of p. It returns whether c matched, how many runes the expression
// spans, and whether it was a well-formed (closed) expression at all.
func gitignoreMatchClass(p []rune, c rune) (matched bool, width int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != negate, i + 1, true
		}
		first = false
		lo := p[i]
		if lo == '\\' && i+1 < len(p) {
			i++
			lo = p[i]
		}
		hi := lo
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			if hi == '\\' && i+3 < len(p) {
				i++
				hi = p[i+2]
			}
			i += 2
		}
		if lo <= c && c <= hi {
			matched = true
		}
		i++
	}
	return false, 0, false
}

// gitignoreMatcher holds the rules of every .gitignore met so far, root
// first and deeper files later, so that the last matching rule wins and a
// nested file overrides its parents, as in git.
type gitignoreMatcher struct {
	rules []gitignorePattern
}

// add appends the rules of the .gitignore whose directory is base ("" for
// the walk root).
func (m *gitignoreMatcher) add(base, content string) {
	for _, line := range strings.Split(content, "\n") {
		if p, ok := gitignoreCompile(base, line); ok {
			m.rules = append(m.rules, p)
		}
	}
}

// addAbove appends the rules of an ignore file in a directory above the
// walk root; above is the path from that directory down to the root,
// ending in a slash ("" when the file's directory is the root itself).
// They come before the root's own rules, which thus override them.
func (m *gitignoreMatcher) addAbove(above, content string) {
	for _, line := range strings.Split(content, "\n") {
		if p, ok := gitignoreCompile("", line); ok {
			p.above = above
			m.rules = append(m.rules, p)
		}
	}
}

// ignored reports whether path itself is ignored. The caller does not
// descend into ignored directories, which gives git's rule that a file in
// an excluded directory cannot be re-included.
func (m *gitignoreMatcher) ignored(path string, isDir bool) bool {
	for i := len(m.rules) - 1; i >= 0; i-- {
		if m.rules[i].match(path, isDir) {
			return !m.rules[i].negate
		}
	}
	return false
}
