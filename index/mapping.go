package index

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/lorekeep/lore/store"
)

// Field names in the index. They match the store.Record JSON names.
const (
	fieldNS      = "ns"
	fieldKind    = "kind"
	fieldTags    = "tags"
	fieldTitle   = "title"
	fieldSummary = "summary"
	fieldBody    = "body"
)

// formatVersion names the layout of documents and the mapping that new
// indexes get. Bump it when either changes: Open refuses an index of a
// format it does not know (ErrCorrupt), and `lore reindex` rebuilds it.
// Format 2 files text terms by namespace (nsterms.go); format 3 files
// irregular verbs under their base (irregular.go). An index of format 1
// (bare terms) or 2 is still read, with the analysis it was built with,
// and kept current, so a read-only open works before a writable one
// rebuilds it (Index.Outdated).
const (
	formatVersion  = "lore-index-3"
	formatNSTerm   = "lore-index-2"
	formatBareTerm = "lore-index-1"
)

// knownIndexFormat reports whether this version reads index format f.
func knownIndexFormat(f string) bool {
	return f == formatVersion || f == formatNSTerm || f == formatBareTerm
}

// Internal (non-document) keys kept in the index's own key-value space.
var (
	keyWatermark = []byte("lore.watermark")
	keyFormat    = []byte("lore.format")
)

// keySep joins namespace and id into one document id. Namespaces and ids
// never contain control characters, and NUL sorts below every byte either
// may contain, so sorting document ids sorts by (ns, id).
const keySep = "\x00"

// docID returns the bleve document id of a record key.
func docID(ns, id string) string { return ns + keySep + id }

// parseDocID splits a document id made by docID.
func parseDocID(s string) (ns, id string, ok bool) {
	return strings.Cut(s, keySep)
}

// checkKey refuses keys that docID cannot encode unambiguously. The store
// validates the full namespace and id grammar; the index only needs these.
func checkKey(ns, id string) error {
	switch {
	case ns == "":
		return fmt.Errorf("record %q has an empty namespace: %w", id, ErrInvalid)
	case id == "":
		return fmt.Errorf("record in namespace %q has an empty id: %w", ns, ErrInvalid)
	case strings.Contains(ns, keySep):
		return fmt.Errorf("namespace %q contains a NUL byte (namespaces are [a-z0-9._-/]): %w", ns, ErrInvalid)
	case strings.Contains(id, keySep):
		return fmt.Errorf("id %q contains a NUL byte (ids exclude control characters): %w", id, ErrInvalid)
	}
	return nil
}

// Field options. Nothing is stored (the store holds every value) and no doc
// values are kept (results sort by score and document id, which needs none).
//
// Text fields keep term vectors (positions) because quoted phrases in a
// query need them; frequencies and norms feed BM25.
// Keyword fields are only ever filters, scored never: they skip freq/norm.
const (
	textOptions    = bindex.IndexField | bindex.IncludeTermVectors
	keywordOptions = bindex.IndexField | bindex.SkipFreqNorm
)

// newMapping returns Lore's explicit index mapping: static (no dynamic
// fields), no _all field, BM25 scoring, English analysis for prose and exact
// keywords for ns, kind and tags.
func newMapping() *mapping.IndexMappingImpl {
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = en.AnalyzerName
		f.Store = false
		f.Index = true
		f.IncludeTermVectors = textOptions.IncludeTermVectors()
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func() *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = false
		f.Index = true
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		f.SkipFreqNorm = true
		return f
	}

	doc := bleve.NewDocumentStaticMapping()
	for _, name := range []string{fieldTitle, fieldSummary, fieldBody} {
		doc.AddFieldMappingsAt(name, text())
	}
	for _, name := range []string{fieldNS, fieldKind, fieldTags} {
		doc.AddFieldMappingsAt(name, kw())
	}
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())

	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = en.AnalyzerName
	m.ScoringModel = bindex.BM25Scoring
	m.IndexDynamic = false
	m.StoreDynamic = false
	m.DocValuesDynamic = false
	return m
}

// builder turns records into bleve documents directly (Batch.IndexAdvanced),
// skipping the reflection walk of Mapping.MapDocument and its _all field.
// Its analyzers come from the mapping, so queries and documents agree.
type builder struct {
	text, kw analysis.Analyzer
	// byNS files text terms by namespace (format 2 and up); false for an
	// index of format 1, whose terms are bare.
	byNS bool
	// format is the index's format (formatVersion and the older ones).
	format string
}

func newBuilder(m mapping.IndexMapping, format string) (*builder, error) {
	b := &builder{text: m.AnalyzerNamed(en.AnalyzerName), kw: m.AnalyzerNamed(keyword.Name), byNS: format != formatBareTerm, format: format}
	if b.text == nil || b.kw == nil {
		return nil, fmt.Errorf("index mapping lacks the %q or %q analyzer", en.AnalyzerName, keyword.Name)
	}
	if a, ok := b.text.(*analysis.DefaultAnalyzer); ok {
		if format == formatVersion {
			a = withIrregular(a)
		}
		b.text = fastAnalyzer(a)
	} else if format == formatVersion {
		return nil, fmt.Errorf("index mapping's %q analyzer is a %T, want a chain of filters", en.AnalyzerName, b.text)
	}
	return b, nil
}

// fastAnalyzer gives the tokens analyzer a gives, faster: its unicode
// tokenizer replaced by wordTokenizer and, where each of its filters
// filters a token alone (as the "en" analyzer's do), the filters behind a
// termCache. a's own fields are the registry's and stay as they are.
func fastAnalyzer(a *analysis.DefaultAnalyzer) analysis.Analyzer {
	fast := *a
	if _, ok := a.Tokenizer.(*unicodetok.UnicodeTokenizer); !ok {
		return &fast
	}
	fast.Tokenizer = wordTokenizer{}
	if c := newTermCache(a.TokenFilters); c != nil && len(a.CharFilters) == 0 {
		return &cachedAnalyzer{tokenizer: fast.Tokenizer, terms: c}
	}
	return &fast
}

// MaxIndexedBodyBytes is how much of a body goes into the full-text
// index: its first MiB (a whole novel, about 170,000 words), cut at a
// word boundary. Analysis takes about 100 bytes of memory per byte of
// text (a put of a 4 MB body peaks at 435 MB, of a 1 MB body at 146 MB),
// so a 60 MB body indexed whole peaked at 2.9 GB. A word only past the
// limit is not found by search. The store keeps the body whole, and get,
// export and packets give it whole.
const MaxIndexedBodyBytes = 1 << 20

// indexedBody is the part of body the index analyses.
func indexedBody(body string) string {
	if len(body) <= MaxIndexedBodyBytes {
		return body
	}
	cut := MaxIndexedBodyBytes
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	// Back up to white space, so the last word is not indexed half cut.
	if i := strings.LastIndexFunc(body[:cut], unicode.IsSpace); i > cut-1024 {
		cut = i
	}
	return body[:cut]
}

// document builds the indexed form of r. Empty fields are left out.
func (b *builder) document(r *store.Record) *document.Document {
	d := document.NewDocument(docID(r.NS, r.ID))
	d.AddField(document.NewTextFieldCustom(fieldNS, nil, []byte(r.NS), keywordOptions, b.kw))
	if r.Kind != "" {
		d.AddField(document.NewTextFieldCustom(fieldKind, nil, []byte(r.Kind), keywordOptions, b.kw))
	}
	for i, t := range r.Tags {
		if t != "" {
			d.AddField(document.NewTextFieldCustom(fieldTags, []uint64{uint64(i)}, []byte(t), keywordOptions, b.kw))
		}
	}
	text := b.analyzer(r.NS)
	for _, f := range [...]struct{ name, val string }{
		{fieldTitle, r.Title}, {fieldSummary, r.Summary}, {fieldBody, indexedBody(r.Body)},
	} {
		if f.val != "" {
			d.AddField(document.NewTextFieldCustom(f.name, nil, []byte(f.val), textOptions, text))
		}
	}
	return d
}

// textBytes is the amount of text r puts through analysis, used to size
// sub-batches.
func textBytes(r *store.Record) int {
	n := len(r.NS) + len(r.ID) + len(r.Kind) + len(r.Title) + len(r.Summary) + len(indexedBody(r.Body))
	for _, t := range r.Tags {
		n += len(t)
	}
	return n
}
