package index

import (
	"cmp"
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"
)

// DefaultLimit is the number of hits Search returns when Query.Limit is 0.
const DefaultLimit = 50

// Field boosts: a word in the title says more about a record than one in
// its summary, which says more than one in its body.
const (
	boostTitle   = 3
	boostSummary = 2
	boostBody    = 1
)

// Query asks for the records of one namespace that match some text.
type Query struct {
	// NS is the namespace searched; required. Only records whose
	// namespace equals NS exactly can match ("a" never matches "a/b").
	NS string
	// Text holds plain words (a record matching any of them is a hit,
	// ranked by BM25) and "quoted phrases" (each one must appear, in the
	// title, summary or body). Words are analysed as English: lower-cased,
	// stemmed ("fires" finds "fire"), stop words dropped, so text of stop
	// words alone matches nothing. There are no operators: "title:x" or
	// "-y" are words like any other. Empty Text matches every record that
	// passes the filters.
	Text string
	// Kinds keeps records of any of these kinds (none: all kinds).
	Kinds []string
	// Tags keeps records carrying every one of these tags (none: no filter).
	Tags []string
	// Limit caps the hits; 0 means DefaultLimit; negative is invalid.
	Limit int
	// AnyTerm reads Text as a question, not a search box: a record
	// matching any of its terms is a hit, a "quoted phrase" found whole
	// adds to the score but is never required, and so does each pair of
	// its words found side by side (pairs.go). A
	// packet's query is parsed this way: people write questions, and a
	// misspelt quoted title must not empty the packet.
	AnyTerm bool
	// Vector is the caller's embedding of the query. The index ranks by
	// words alone and ignores it; a Searcher that also ranks by vectors
	// (the root package's) fuses the two.
	Vector []float32
}

// Hit is one search result.
type Hit struct {
	NS, ID string
	// Score is the BM25 relevance, summed over fields with their boosts; 1
	// for every hit of a query with empty Text.
	Score float64
}

// Search returns the best matches of q, sorted by score (highest first),
// then namespace and id (ascending), so ties come out in a fixed order.
func (ix *Index) Search(ctx context.Context, q Query) (_ []Hit, err error) {
	defer recoverCorrupt(ix.dir, &err, debug.SetPanicOnFault(true))
	release, err := ix.acquire()
	if err != nil {
		return nil, err
	}
	defer release()

	bq, limit, err := buildQuery(q, ix.b)
	if err != nil {
		return nil, err
	}
	ctx, err = withScoringStats(ctx, ix, q.NS)
	if err != nil {
		return nil, err
	}
	pairs := pairsOf(q, ix.b)
	size := limit
	if len(pairs) > 0 {
		size = max(limit, pairWindow) // the window the pairs re-rank, whatever the limit
	}
	found, err := ix.search(ctx, bq, size, q.Text == "", pairs)
	found = found[:min(limit, len(found))]
	if ctx.Err() != nil && err != nil {
		return nil, fmt.Errorf("index %s: search %q in %q: %w", ix.dir, q.Text, q.NS, err)
	}
	if err != nil {
		// Lore builds every query itself, so bleve failing to run one
		// means it failed to read the index (a damaged segment reads EOF).
		return nil, corrupt(ix.dir, fmt.Errorf("search %q in %q: %w", q.Text, q.NS, err))
	}
	hits := make([]Hit, 0, len(found))
	for _, h := range found {
		ns, id, ok := parseDocID(h.ID)
		if !ok || ns != q.NS {
			// Unreachable while the ns filter holds; checked because the
			// namespace wall must not depend on one query being right.
			return nil, corrupt(ix.dir, fmt.Errorf("search in %q returned document %q", q.NS, h.ID))
		}
		score := h.Score // stable (topN)
		if q.Text == "" {
			score = 1 // every record listed is as good as the next
		}
		hits = append(hits, Hit{NS: ns, ID: id, Score: score})
	}
	return hits, nil
}

// search is topN, re-ranked by pairs (withPairs) in the same snapshot:
// a record's number in the index is only the same within one.
func (ix *Index) search(ctx context.Context, bq query.Query, size int, allTie bool, pairs []wordPair) (bsearch.DocumentMatchCollection, error) {
	return ix.inSnapshot(func(r bindex.IndexReader) (bsearch.DocumentMatchCollection, error) {
		found, err := ix.topNIn(ctx, r, bq, size, allTie, len(pairs) > 0)
		if err != nil || len(pairs) == 0 {
			return found, err
		}
		return ix.withPairs(ctx, r, found, bq, pairs)
	})
}

// topN is topNIn in the index's current snapshot.
func (ix *Index) topN(ctx context.Context, bq query.Query, limit int, allTie bool) (bsearch.DocumentMatchCollection, error) {
	return ix.inSnapshot(func(r bindex.IndexReader) (bsearch.DocumentMatchCollection, error) {
		return ix.topNIn(ctx, r, bq, limit, allTie, false)
	})
}

// topNIn returns the limit best matches of bq by score, ties by document
// id. Sorting by id in bleve makes its collector read the id of every
// document that matches (13% of a search's CPU at 100,000 records), so
// it sorts by score alone, for tieMargin(limit) more hits than asked:
// when the lowest of those scores below the last hit kept, or there are
// no more, every record tied with the last one kept is among them, and
// sorting them here by score, then id, gives exactly the id sort's hits
// and order. Else (a tie longer than the margin, and every query that
// scores nothing: allTie) the id sort decides.
//
// With numbered, every hit carries its number in r's snapshot: bleve's own
// search (the id sort) reads another, so its hits are looked up in r (one
// that r does not hold has none).
func (ix *Index) topNIn(ctx context.Context, r bindex.IndexReader, bq query.Query, limit int, allTie, numbered bool) (bsearch.DocumentMatchCollection, error) {
	byID := func() (bsearch.DocumentMatchCollection, error) {
		req := bleve.NewSearchRequestOptions(bq, limit, 0, false)
		req.SortBy([]string{"-_score", "_id"})
		res, err := ix.bi.SearchInContext(ctx, req)
		if err != nil {
			return nil, err
		}
		if numbered {
			for _, h := range res.Hits {
				if h.IndexInternalID, err = r.InternalID(h.ID); err != nil {
					return nil, err
				}
			}
		}
		return res.Hits, nil
	}
	sorted := func(hits bsearch.DocumentMatchCollection) bsearch.DocumentMatchCollection {
		for _, h := range hits {
			h.Score = stableScore(h.Score)
		}
		slices.SortStableFunc(hits, byScoreThenID)
		return hits
	}
	if allTie {
		hits, err := byID()
		return sorted(hits), err
	}
	size := limit + tieMargin(limit)
	hits, err := ix.bestScoredIn(ctx, r, bq, size)
	if err != nil {
		return nil, err
	}
	if len(hits) == size && stableScore(hits[size-1].Score) >= stableScore(hits[limit-1].Score) {
		hits, err := byID()
		return sorted(hits), err
	}
	return sorted(hits)[:min(limit, len(hits))], nil
}

// byScoreThenID orders hits best first, ties by document id.
func byScoreThenID(a, b *bsearch.DocumentMatch) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.ID, b.ID))
}

// stableScore is a score as every build of the index gives it: rounded
// to float32's precision. Bleve sums a record's term and field scores in
// an order that depends on how its segments lie, so two builds of one
// index (a rebuild, or the same records imported again) give scores
// that differ in their last bits; two records tied in one build then
// came out in either order, and a packet that adds up neighbours' scores
// ordered them differently from run to run (measured: one packet in 715
// of the long chats changed between two imports). Rounded, a tie is a
// tie, and the id decides it every time.
func stableScore(s float64) float64 { return float64(float32(s)) }

// tieMargin is how many hits past the limit topN reads to see the end of
// a tie across the cut. Bleve reads the stored id of every hit it
// returns (a third of a 320-hit search at 100,000 records), so the
// margin is kept small; a tie longer than it costs the id sort. On the
// bench's corpus at 100,000 records, 300 queries at limit 50 needed the
// id sort 6 times with a margin of 11 and never with 21; none of the
// packets' searches (limits 20 to 1,280) needed it with limit/8 + 5.
func tieMargin(limit int) int { return limit/8 + 16 }

// Length pivots of BM25, in analysed tokens (stop words removed): a field
// of this length gets neither a bonus nor a penalty for its length.
//
// The body's is a paragraph (32, the summary's too). It was 300, which
// left a long message nearly unpenalised: on long user/assistant chats
// the search then put the 1,000-token replies that repeat a question's
// words before the short message that holds the fact. Measured with the
// packet's recall benchmark on short turns, long chats and story
// passages (docs/bench-history, issue 36): 10 to 50 all beat 300 on the
// chats at 500 tokens by .03-.04; around 30 was best across the three.
//
// Bleve derives its pivot from the index (distinct terms in the field's
// dictionary over the document count), and that dictionary keeps the terms
// of replaced and deleted documents until a background merge drops them:
// scores would then depend on the index's history and on when the merger
// last ran, and the same request could rank near-ties differently from one
// run to the next. Fixed pivots, with the live document count and live
// document frequencies (which bleve counts exactly), make a score a
// function of the current records alone.
var lengthPivot = map[string]int{
	fieldTitle:   8,
	fieldSummary: 32,
	fieldBody:    32,
	// Filters never score, but bleve looks their statistics up anyway
	// (under "*" for the unscored term searchers it merges filters into).
	fieldNS: 1, fieldKind: 1, fieldTags: 1, "*": 1,
}

// withScoringStats puts BM25 statistics in ctx for bleve's term searchers:
// the live document count of namespace ns (its terms' document
// frequencies are its own too; in an index of format 1, the whole
// index's) and the fixed length pivots.
func withScoringStats(ctx context.Context, ix *Index, ns string) (context.Context, error) {
	n, err := ix.scoredDocs(ctx, ns)
	if err != nil {
		return ctx, err
	}
	if n == 0 {
		return ctx, nil
	}
	card := make(map[string]int, len(lengthPivot))
	for f, p := range lengthPivot {
		card[f] = p * int(n)
	}
	return context.WithValue(ctx, bsearch.BM25StatsKey, &bsearch.BM25Stats{DocCount: float64(n), FieldCardinality: card}), nil
}

// scoredDocs is the document count BM25 scores a search of ns against:
// the namespace's live records, or in an index of format 1 the whole
// index's.
func (ix *Index) scoredDocs(ctx context.Context, ns string) (uint64, error) {
	if ix.b.byNS {
		return ix.namespaceDocs(ctx, ns)
	}
	n, err := ix.bi.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index %s: count: %w", ix.dir, err)
	}
	return n, nil
}

// buildQuery turns q into a bleve query: the text part is scored; the
// kind and tag conditions are not (they go through bleve's boolean
// Filter, which runs with scoring off). The text's terms are filed by
// namespace (nsterms.go), so they match records of q.NS alone; a query
// with no text lists the namespace through its keyword, as every query
// on an index of format 1 must.
func buildQuery(q Query, b *builder) (query.Query, int, error) {
	if q.NS == "" {
		return nil, 0, fmt.Errorf("search %q: namespace is empty (a search runs in one namespace): %w", q.Text, ErrInvalid)
	}
	if q.Limit < 0 {
		return nil, 0, fmt.Errorf("search limit %d is negative (want 0 for the default %d, or more): %w", q.Limit, DefaultLimit, ErrInvalid)
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	bq := bleve.NewBooleanQuery()
	if err := addFilters(bq, q); err != nil {
		return nil, 0, err
	}
	listing := strings.TrimSpace(q.Text) == "" && !q.AnyTerm
	if listing || !b.byNS {
		// The namespace as a required clause: its boost of 0 gives it a
		// weight of 0, so it adds nothing to a score and leaves bleve's
		// query norm unchanged. (Format 1's bare terms need it; the
		// conjunction then walks the namespace's postings beside the
		// words'.)
		nsTerm := bleve.NewTermQuery(q.NS)
		nsTerm.SetField(fieldNS)
		nsTerm.SetBoost(0)
		bq.AddMust(nsTerm)
	}
	if listing {
		return bq, limit, nil
	}

	// Text that analyses to no terms at all (only stop words or
	// punctuation) must match nothing.
	words, phrases := splitText(q.Text)
	if q.AnyTerm {
		words = strings.ReplaceAll(q.Text, `"`, " ")
	}
	wordTerms := b.terms(q.NS, words)
	if q.AnyTerm {
		return anyTermQuery(bq, b, q.NS, wordTerms, phrases), limit, nil
	}
	required := 0
	for _, p := range phrases {
		if pt := b.terms(q.NS, p); len(pt) > 0 {
			bq.AddMust(acrossFields(phraseOf(pt)))
			required++
		}
	}
	if len(wordTerms) > 0 {
		// Any one of the words must match, unless phrases are required:
		// then the words only add to the score.
		wq := acrossFields(anyOf(wordTerms))
		if required > 0 {
			bq.AddShould(wq)
		} else {
			bq.AddMust(wq)
		}
	}
	if len(wordTerms) == 0 && required == 0 {
		return bleve.NewMatchNoneQuery(), limit, nil
	}
	return bq, limit, nil
}

// addFilters adds q's kind and tag conditions to bq as its filter.
func addFilters(bq *query.BooleanQuery, q Query) error {
	var filters []query.Query
	if len(q.Kinds) > 0 {
		kinds := make([]query.Query, 0, len(q.Kinds))
		for _, k := range q.Kinds {
			if k == "" {
				return fmt.Errorf("search kinds %q: a kind is empty: %w", q.Kinds, ErrInvalid)
			}
			kinds = append(kinds, term(fieldKind, k))
		}
		filters = append(filters, bleve.NewDisjunctionQuery(kinds...))
	}
	for _, t := range q.Tags {
		if t == "" {
			return fmt.Errorf("search tags %q: a tag is empty: %w", q.Tags, ErrInvalid)
		}
		filters = append(filters, term(fieldTags, t))
	}
	if len(filters) > 0 {
		bq.AddFilter(bleve.NewConjunctionQuery(filters...))
	}
	return nil
}

// anyTermQuery requires one of the words and lets the phrases add to the
// score.
func anyTermQuery(bq *query.BooleanQuery, b *builder, ns string, words analysis.TokenStream, phrases []string) query.Query {
	if len(words) == 0 {
		return bleve.NewMatchNoneQuery()
	}
	bq.AddMust(acrossFields(anyOf(words)))
	// A phrase of two terms or more found whole adds its own BM25 to the
	// words' (one term is already among the words).
	for _, p := range phrases {
		if pt := b.terms(ns, p); len(pt) > 1 {
			bq.AddShould(acrossFields(phraseOf(pt)))
		}
	}
	return bq
}

// acrossFields ORs one query over title, summary and body with their
// boosts. Scores of the fields that match add up.
func acrossFields(mk fieldQuery) query.Query {
	var qs []query.Query
	for _, f := range [...]struct {
		name  string
		boost float64
	}{{fieldTitle, boostTitle}, {fieldSummary, boostSummary}, {fieldBody, boostBody}} {
		qs = append(qs, mk(f.name, f.boost))
	}
	return bleve.NewDisjunctionQuery(qs...)
}

func term(field, value string) query.Query {
	t := bleve.NewTermQuery(value)
	t.SetField(field)
	return t
}

// splitText separates "quoted phrases" from the plain words around them.
// An unclosed quote runs to the end of the text. Words are returned as one
// string for a match query to analyse; phrases one by one, empty ones
// dropped.
func splitText(text string) (words string, phrases []string) {
	var w strings.Builder
	for {
		before, after, found := strings.Cut(text, `"`)
		w.WriteString(before)
		w.WriteByte(' ')
		if !found {
			break
		}
		phrase, rest, _ := strings.Cut(after, `"`)
		if p := strings.TrimSpace(phrase); p != "" {
			phrases = append(phrases, p)
		}
		text = rest
		if rest == "" {
			break
		}
	}
	return strings.TrimSpace(w.String()), phrases
}
