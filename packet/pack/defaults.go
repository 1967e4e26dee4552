package pack

// The default categories, tried in this order: what a file is for, by
// name, in any language, before the languages' source files themselves.
var (
	// defaultVendor: other people's code kept in the tree.
	defaultVendor = []string{"vendor/", "third_party/"}
	// defaultFixtures: test data, fixtures and fuzz corpora (Go keeps its
	// corpora under testdata/fuzz/).
	defaultFixtures = []string{"testdata/", "fixtures/", "__fixtures__/", "corpus/", "corpora/"}
	// defaultTests: tests by name, and the test directories.
	defaultTests = []string{"*_test.go", "test_*.py", "*_test.py", "*.test.*", "*.spec.*", "*_spec.rb",
		"tests/", "__tests__/"}
	// defaultLock: lock and checksum files.
	defaultLock = []string{"go.sum", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "*.lock"}
	// defaultDocs: prose.
	defaultDocs = []string{"*.md", "*.mdx", "docs/"}
	// defaultSource: source files of the common languages, by extension.
	defaultSource = []string{
		"go", "py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts",
		"rs", "java", "kt", "kts", "scala", "groovy", "c", "h", "cc", "cpp", "cxx",
		"hh", "hpp", "hxx", "cs", "fs", "swift", "m", "mm", "rb", "php", "pl", "pm",
		"lua", "r", "jl", "ex", "exs", "erl", "hrl", "hs", "ml", "mli", "clj", "cljs",
		"dart", "zig", "nim", "vue", "svelte", "sh", "bash", "zsh", "ps1", "sql",
		"proto", "elm", "sol",
	}
)

// DefaultCategories returns the categories used when Options.Categories
// is nil, first match first: vendored code (vendor/, third_party/) is
// "vendor"; test data, fixtures and fuzz corpora (testdata/, fixtures/,
// corpus/) are "fixtures"; tests by name (*_test.go, test_*.py,
// *_test.py, *.test.*, *.spec.*, *_spec.rb) and test directories (test/,
// tests/, __tests__/) are "tests" (test/ is "test"); lock and checksum
// files (go.sum, package-lock.json, *.lock) are "lock"; prose (*.md,
// *.mdx, docs/) is "docs"; and the source files of any common language
// (*.go, *.py, *.ts, *.rs, *.java, *.c, ...) are "src". Files none of
// them claims take their top-level directory, or (root).
//
// With DefaultPriority, sources rank first; tests and docs after (root);
// vendor, fixtures and lock are not listed, so they are in the pool that
// goes first. With these categories (Options.Categories nil) the "src"
// files are dropped in the order of srcLevel: the front doors of the
// packages stay longest, the top of the tree longest.
func DefaultCategories() []Category {
	var out []Category
	add := func(category string, patterns ...string) {
		for _, p := range patterns {
			out = append(out, Category{Pattern: p, Category: category})
		}
	}
	add("vendor", defaultVendor...)
	add("fixtures", defaultFixtures...)
	add("tests", defaultTests...)
	add("test", "test/")
	add("lock", defaultLock...)
	add("docs", defaultDocs...)
	for _, ext := range defaultSource {
		add("src", "*."+ext)
	}
	return out
}
