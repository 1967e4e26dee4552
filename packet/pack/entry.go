package pack

import (
	"bufio"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The order of sources under the default categories. A budget that holds
// a tenth of a project's sources cannot keep them all, and largest first
// alone would keep only the smallest files, from everywhere, and drop
// the files a reader starts from. So, with the default categories, the
// "src" files go in this order (the last kept longest):
//
//  1. the files behind the front doors, deepest first, before any front
//     door;
//  2. the front doors, deepest first: a package's doc or entry file
//     (doc.*, main.*, index.*, lib.rs, mod.rs, __init__.py, __main__.py)
//     or the file named after its directory, and at the top of the tree
//     the file named after the project;
//  3. within each depth, largest first (lmpack's rule 2), then by path.
//
// Categories and ranks are untouched: this orders files inside "src"
// only, and only when the categories are the defaults, so that a user's
// own categories keep lmpack's rules exactly.

// frontDoorStems are the names of the files that introduce a package or
// a program in the common languages.
var frontDoorStems = map[string]bool{
	"doc": true, "main": true, "index": true, "lib": true, "mod": true,
	"__init__": true, "__main__": true,
}

// srcLevel is where a source file stands in the order above: a higher
// level goes first. Front doors take their depth; the files behind them
// come after every front door.
func srcLevel(p string, project map[string]bool) int {
	depth := strings.Count(p, "/")
	if isFrontDoor(p, project) {
		return depth
	}
	return 1<<16 + depth
}

// isFrontDoor says whether the file at p introduces its package.
func isFrontDoor(p string, project map[string]bool) bool {
	dir, base := path.Split(p)
	stem, _, _ := strings.Cut(base, ".")
	if frontDoorStems[stem] {
		return true
	}
	if dir == "" {
		return project[stem]
	}
	return stem == path.Base(strings.TrimSuffix(dir, "/"))
}

// projectNames are the names the project goes by, for its file at the
// top of the tree: the directory's own name, the last element of go.mod's
// module path (without a /vN suffix), and the name in package.json,
// Cargo.toml and pyproject.toml ("-" read as "_" as well, as Python
// imports it). A manifest that cannot be read adds nothing.
func projectNames(dir string) map[string]bool {
	names := map[string]bool{}
	add := func(n string) {
		n = strings.Trim(strings.TrimSpace(n), `"'`)
		if i := strings.LastIndex(n, "/"); i >= 0 { // a module path, an npm scope
			n = n[i+1:]
		}
		if n != "" {
			names[n] = true
			names[strings.ReplaceAll(n, "-", "_")] = true
		}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		add(filepath.Base(abs))
	}
	if mod := manifestLine(filepath.Join(dir, "go.mod"), "module", ""); mod != "" {
		if i := strings.LastIndex(mod, "/"); i >= 0 && isMajorSuffix(mod[i+1:]) {
			mod = mod[:i]
		}
		add(mod)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var pkg struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(b, &pkg) == nil {
			add(pkg.Name)
		}
	}
	add(manifestLine(filepath.Join(dir, "Cargo.toml"), "name", "[package]"))
	add(manifestLine(filepath.Join(dir, "pyproject.toml"), "name", "[project]"))
	return names
}

// isMajorSuffix says whether s is a Go major version suffix ("v2").
func isMajorSuffix(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// manifestLine returns the value of the first line "key value" (go.mod)
// or "key = value" (TOML, inside section when given) of the file, or "".
func manifestLine(file, key, section string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	in := section == ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = section == "" || line == section
			continue
		}
		rest, ok := strings.CutPrefix(line, key)
		if !in || !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t' && rest[0] != '=') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if section != "" {
			if rest, ok = strings.CutPrefix(rest, "="); !ok {
				continue
			}
		}
		v, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		return v
	}
	return ""
}
