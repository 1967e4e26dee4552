package pack

import (
	"strings"
	"testing"
)

func TestGitignoreMatch(t *testing.T) {
	tests := []struct {
		name  string
		rules string // one .gitignore at the root
		path  string
		dir   bool
		want  bool
	}{
		{"plain name any depth", "foo", "a/b/foo", false, true},
		{"plain name at root", "foo", "foo", false, true},
		{"plain name not a prefix", "foo", "foobar", false, false},
		{"plain name is a dir too", "foo", "a/foo", true, true},
		{"star", "*.log", "x/debug.log", false, true},
		{"star not across slash", "a*b", "a/b", false, false},
		{"star empty", "*.log", ".log", false, true},
		{"question mark", "?.txt", "a.txt", false, true},
		{"question mark needs one", "?.txt", ".txt", false, false},
		{"question mark one rune", "?.txt", "é.txt", false, true},
		{"class", "[abc].go", "b.go", false, true},
		{"class miss", "[abc].go", "d.go", false, false},
		{"class range", "file[0-9]", "file7", false, true},
		{"class negated bang", "file[!0-9]", "file7", false, false},
		{"class negated caret", "file[^0-9]", "fileX", false, true},
		{"unclosed class is literal", "a[b", "a[b", false, true},
		{"escaped star", `a\*b`, "a*b", false, true},
		{"escaped star literal only", `a\*b`, "axb", false, false},
		{"dir only matches dir", "build/", "build", true, true},
		{"dir only skips file", "build/", "build", false, false},
		{"dir only any depth", "build/", "x/build", true, true},
		{"anchored leading slash", "/foo", "foo", false, true},
		{"anchored leading slash not deeper", "/foo", "a/foo", false, false},
		{"middle slash anchors", "doc/frotz", "doc/frotz", false, true},
		{"middle slash anchors not deeper", "doc/frotz", "a/doc/frotz", false, false},
		{"leading double star", "**/foo", "a/b/foo", false, true},
		{"leading double star root", "**/foo", "foo", false, true},
		{"leading double star path", "**/foo/bar", "x/foo/bar", false, true},
		{"trailing double star inside", "abc/**", "abc/x/y", false, true},
		{"trailing double star not itself", "abc/**", "abc", true, false},
		{"middle double star zero dirs", "a/**/b", "a/b", false, true},
		{"middle double star many dirs", "a/**/b", "a/x/y/b", false, true},
		{"middle double star mismatch", "a/**/b", "a/x/c", false, false},
		{"double star in segment is star", "a**b", "axxb", false, true},
		{"comment", "#foo", "#foo", false, false},
		{"escaped hash", `\#foo`, "#foo", false, true},
		{"escaped bang", `\!important`, "!important", false, true},
		{"trailing spaces trimmed", "foo   ", "foo", false, true},
		{"escaped trailing space kept", `foo\ `, "foo ", false, true},
		{"crlf line", "foo\r", "foo", false, true},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"negation others still out", "*.log\n!keep.log", "drop.log", false, true},
		{"last rule wins", "!keep.log\n*.log", "keep.log", false, true},
		{"negated dir only", "*\n!*/", "sub", true, false},
		{"blank lines ignored", "\n\n", "x", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m gitignoreMatcher
			m.add("", tt.rules)
			if got := m.ignored(tt.path, tt.dir); got != tt.want {
				t.Errorf("rules %q: ignored(%q, dir=%v) = %v, want %v", tt.rules, tt.path, tt.dir, got, tt.want)
			}
		})
	}
}

func TestGitignoreNested(t *testing.T) {
	var m gitignoreMatcher
	m.add("", "*.tmp\nsecret/\n/only-root.txt\n")
	m.add("sub", "!keep.tmp\n/anchored.txt\nlocal\n")
	tests := []struct {
		path string
		dir  bool
		want bool
	}{
		{"a.tmp", false, true},
		{"sub/a.tmp", false, true},
		{"sub/keep.tmp", false, false}, // the nested file overrides the root
		{"keep.tmp", false, true},      // but only below its own directory
		{"only-root.txt", false, true},
		{"sub/only-root.txt", false, false},
		{"sub/anchored.txt", false, true},
		{"sub/deeper/anchored.txt", false, false}, // anchored to sub/
		{"anchored.txt", false, false},
		{"sub/x/local", false, true},
		{"local", false, false},
		{"secret", true, true},
		{"sub/secret", true, true},
		{"subx/local", false, false}, // "sub" rules do not leak to siblings sharing a prefix
	}
	for _, tt := range tests {
		if got := m.ignored(tt.path, tt.dir); got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
	}
}

func TestGitignoreCompileSkips(t *testing.T) {
	for _, line := range []string{"", "   ", "# comment", "/", "!", "!/"} {
		if p, ok := gitignoreCompile("", line); ok {
			t.Errorf("gitignoreCompile(%q) = %+v, want no pattern", line, p)
		}
	}
}

// FuzzGitignoreMatchName checks the glob matcher never panics and agrees
// with itself on a literal pattern.
func FuzzGitignoreMatchName(f *testing.F) {
	for _, s := range []string{"a*b", "[a-", "[!]]", `\`, "**", "?*?", "[\\]]"} {
		f.Add(s, "ab")
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		gitignoreMatchName(pat, name)
		lit := strings.NewReplacer("*", "", "?", "", "[", "", "\\", "").Replace(name)
		if !gitignoreMatchName(lit, lit) {
			t.Errorf("literal %q does not match itself", lit)
		}
	})
}

// FuzzGitignoreLine checks that no .gitignore line, however odd, makes
// compiling or matching panic, and that a negated line matches exactly
// where its positive form does.
func FuzzGitignoreLine(f *testing.F) {
	for _, s := range []string{"*.log", "!keep", "/a/**/b/", `\#x`, "a[", "**", "x\\ ", "[!]-]"} {
		f.Add(s, "a/b/c.log", false)
	}
	f.Fuzz(func(t *testing.T, line, path string, isDir bool) {
		p, ok := gitignoreCompile("", line)
		if !ok || strings.HasPrefix(line, "!") || strings.HasPrefix(line, `\`) {
			return
		}
		n, nok := gitignoreCompile("", "!"+line)
		if !nok {
			t.Fatalf("%q compiles but %q does not", line, "!"+line)
		}
		if p.match(path, isDir) != n.match(path, isDir) {
			t.Errorf("%q and its negation disagree on %q", line, path)
		}
	})
}
