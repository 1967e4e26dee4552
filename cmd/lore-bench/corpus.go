package main

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/lorekeep/lore/store"
)

// The corpus is a pure function of (seed, n): record i is generated from
// its own random stream, so a batch can be produced without the ones
// before it, the corpus never has to sit in memory whole, and every
// sub-process regenerates exactly the same records.

// namespace describes one namespace of the corpus and its profile.
type namespace struct {
	name    string
	profile string // "novel" or "agent"
}

// namespaces are single words so that bleve's standard analyzer (the
// baseline's default mapping) keeps each one as one exact term.
var namespaces = []namespace{
	{"tidewater", "novel"},
	{"ashfall", "novel"},
	{"saltmarsh", "novel"},
	{"ironvale", "novel"},
	{"assistant", "agent"},
	{"researcher", "agent"},
}

// weighted is a kind and its share of a profile's records.
type weighted struct {
	kind   string
	weight int
}

// Kinds of the novel and agent profiles (packet.DefaultConfig), with
// shares that look like a writer's canon and an agent's memory.
var profileKinds = map[string][]weighted{
	"novel": {
		{"scene", 250}, {"character", 120}, {"location", 80}, {"fact", 160},
		{"event", 80}, {"item", 50}, {"faction", 30}, {"relationship", 60},
		{"timeline", 80}, {"obligation", 2}, {"style", 10}, {"power-rule", 20},
		{"theme", 15}, {"reader-knowledge", 15},
	},
	"agent": {
		{"memory", 600}, {"fact", 150}, {"preference", 100},
		{"task", 90}, {"conversation", 60},
	},
}

var relations = []string{"appears_in", "knows", "located_at", "mentions", "part_of", "precedes", "relates_to", "pov"}

// vocabulary is the word list, most frequent first: common English words
// for the head of the Zipf curve (so stop words and common words behave as
// in prose), then English words in the order a byte-pair tokenizer learnt
// them (cl100k_base merge ranks, a fair proxy for frequency), so most words
// are one token as in real prose. Made-up proper names (characters, places)
// are mixed in by the text generator.
type vocabulary struct {
	words []string
	names []string
}

// headWords are common English words in rough frequency order.
var headWords = strings.Fields(`the of and to a in that it was he for on with as his
is at by she had her from be this not but which they or were an
all one you have their would there been so when if what we no more
said my out up into them could some time then other only than over about like
its two its very after first down did made can any now before through upon great
man long little well old see where much way how should even our must
light house night sea water hand eyes door wind fire road stone ship
tower lamp keeper harbor river field winter summer morning evening voice
king queen city village forest mountain letter book word dream truth
secret promise shadow memory storm rain bridge wall garden market bell
captain mother father brother sister friend stranger child soldier priest
boat rope salt iron silver gold glass blood bone bread wine oil cloth
walked turned looked knew thought found heard felt left took gave told
asked seemed began kept held stood spoke watched waited carried opened
closed broke burned fell rose ran remembered forgot answered followed
quiet dark cold bright sudden small heavy empty broken distant ancient
strange hidden careful bitter gentle narrow deep grey green red white black`)

// syllables build the made-up names.
var syllables = strings.Fields(`ka ren tho mal is ven dor ul sa mir ath el gor bri an cor
dun fal har ith jor kel lun mor nes ol per quin ras sel tar ur vin wes yl zan
bel cas dre fen gil hol ing lor mer nor pal rin sor tev ver`)

// newVocabulary builds size words and names made-up names.
func newVocabulary(size, names int) (*vocabulary, error) {
	v := &vocabulary{}
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] && len(v.words) < size {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	for _, w := range headWords {
		add(w)
	}
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("cl100k_base.tiktoken")
	if err != nil {
		return nil, fmt.Errorf("load the word list from cl100k_base: %w", err)
	}
	type ranked struct {
		word string
		rank int
	}
	var tokens []ranked
	for tok, rank := range ranks {
		if w, ok := strings.CutPrefix(tok, " "); ok && len(w) >= 3 && len(w) <= 12 && isLower(w) {
			tokens = append(tokens, ranked{w, rank})
		}
	}
	slices.SortFunc(tokens, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	for _, t := range tokens {
		add(t.word)
	}
	if len(v.words) < size {
		return nil, fmt.Errorf("cl100k_base gave %d words, want %d", len(v.words), size)
	}
	rng := rand.New(rand.NewPCG(0x10e, 0xb0c))
	nameSeen := map[string]bool{}
	for len(v.names) < names {
		var b strings.Builder
		for range 2 + rng.IntN(2) {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		w := b.String()
		if !nameSeen[w] && !seen[w] {
			nameSeen[w] = true
			v.names = append(v.names, strings.ToUpper(w[:1])+w[1:])
		}
	}
	return v, nil
}

func isLower(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// vocab is shared by every generator: it depends on nothing but its sizes.
var vocab = func() *vocabulary {
	v, err := newVocabulary(vocabSize, nameCount)
	if err != nil {
		panic(err) // the word list is embedded: this cannot fail at run time
	}
	return v
}()

// Vocabulary sizes, and the share of words that are names (1 in nameEvery).
const (
	vocabSize = 16000
	nameCount = 1500
	nameEvery = 30
)

// corpus generates the records and links of one benchmark run.
type corpus struct {
	seed uint64
	n    int
}

// Size distribution of records, in words: log-normal, median medianWords,
// clamped so a record has about 50 to 2,000 tokens (English prose runs
// about 1.3 tokens a word; the made-up tail words run higher).
const (
	medianWords = 240
	sigmaWords  = 0.8
	minWords    = 42
	maxWords    = 1500
)

// recordNS returns the namespace of record i: round robin, so record i's
// namespace is known without generating it.
func recordNS(i int) namespace { return namespaces[i%len(namespaces)] }

// recordID returns the id of record i.
func recordID(i int) string { return fmt.Sprintf("r%07d", i) }

// rng returns record i's own random stream; stream distinguishes uses.
func (c corpus) rng(i int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(c.seed, uint64(i)<<8|stream))
}

// coreRecords is how many records open each agent namespace as core
// memories (the first half of them pinned): an agent keeps a handful
// whatever the size of its memory, so their number does not grow with N.
const coreRecords = 6

// kindOf returns the kind of record i.
func (c corpus) kindOf(i int) string {
	ns := recordNS(i)
	if ns.profile == "agent" && i/len(namespaces) < coreRecords {
		return "core"
	}
	kinds := profileKinds[ns.profile]
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	x := c.rng(i, 1).IntN(total)
	for _, k := range kinds {
		if x < k.weight {
			return k.kind
		}
		x -= k.weight
	}
	return kinds[len(kinds)-1].kind
}

// text writes words drawn from the Zipf vocabulary as sentences.
func text(rng *rand.Rand, zipf *rand.Zipf, words int) string {
	var b strings.Builder
	b.Grow(words * 7)
	sentence := 0
	for w := range words {
		word := vocab.words[zipf.Uint64()]
		if rng.IntN(nameEvery) == 0 {
			word = vocab.names[rng.IntN(len(vocab.names))]
		}
		if sentence == 0 {
			if w > 0 {
				if rng.IntN(6) == 0 {
					b.WriteString("\n\n")
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString(strings.ToUpper(word[:1]))
			b.WriteString(word[1:])
			sentence = 6 + rng.IntN(16)
		} else {
			b.WriteByte(' ')
			b.WriteString(word)
		}
		sentence--
		switch {
		case sentence == 0 || w == words-1:
			b.WriteByte('.')
			sentence = 0
		case rng.IntN(12) == 0:
			b.WriteByte(',')
		}
	}
	return b.String()
}

func newZipf(rng *rand.Rand) *rand.Zipf {
	return rand.NewZipf(rng, 1.07, 2, uint64(len(vocab.words)-1))
}

// record generates record i.
func (c corpus) record(i int) store.Record {
	rng := c.rng(i, 0)
	zipf := newZipf(rng)
	ns := recordNS(i)
	kind := c.kindOf(i)
	pos := int64(i/len(namespaces) + 1) // position within the namespace
	words := int(math.Round(math.Exp(math.Log(medianWords) + sigmaWords*rng.NormFloat64())))
	words = min(max(words, minWords), maxWords)
	title := text(rng, zipf, 2+rng.IntN(5))
	r := store.Record{
		NS:    ns.name,
		ID:    recordID(i),
		Kind:  kind,
		Title: strings.TrimSuffix(title, "."),
		Body:  text(rng, zipf, words),
	}
	if rng.IntN(3) == 0 {
		r.Summary = text(rng, zipf, 15+rng.IntN(40))
	}
	for range rng.IntN(4) {
		r.Tags = append(r.Tags, "t-"+vocab.words[20+zipf.Uint64()%400])
	}
	meta := map[string]string{}
	switch kind {
	case "scene", "timeline", "event", "memory", "conversation":
		r.Order = pos
		meta["chapter"] = strconv.FormatInt(pos/40+1, 10)
	case "obligation":
		r.Order = pos
		meta["due"] = strconv.FormatInt(pos+int64(rng.IntN(60)), 10)
		if rng.IntN(10) == 0 {
			meta["status"] = "open"
		} else {
			meta["status"] = "done"
		}
	case "core":
		r.Pinned = i/len(namespaces) < coreRecords/2
	}
	if kind == "scene" {
		if t := c.earlierOfKind(i, rng, "character"); t >= 0 {
			meta["pov"] = recordID(t)
		}
	}
	if len(meta) > 0 {
		r.Meta = meta
	}
	return r
}

// earlierOfKind picks a record before i in i's namespace, of kind when
// one is found in a few tries, else -1.
func (c corpus) earlierOfKind(i int, rng *rand.Rand, kind string) int {
	for range 8 {
		t := c.earlier(i, rng)
		if t < 0 {
			return -1
		}
		if c.kindOf(t) == kind {
			return t
		}
	}
	return -1
}

// earlier picks a record before i in i's namespace: mostly a near one (a
// scene's cast is local), sometimes any. -1 when i is the first.
func (c corpus) earlier(i int, rng *rand.Rand) int {
	k := len(namespaces)
	back := i / k // records before i in its namespace
	if back == 0 {
		return -1
	}
	var steps int
	if rng.IntN(10) < 7 {
		steps = 1 + rng.IntN(min(back, 60))
	} else {
		steps = 1 + rng.IntN(back)
	}
	return i - steps*k
}

// links generates record i's outgoing links: about four, to earlier
// records of its namespace (so no link dangles).
func (c corpus) links(i int) []store.Link {
	rng := c.rng(i, 2)
	n := rng.IntN(9) // 0..8: four on average
	out := make([]store.Link, 0, n)
	seen := map[string]bool{}
	for range n {
		t := c.earlier(i, rng)
		if t < 0 {
			break
		}
		rel := relations[rng.IntN(len(relations)-1)] // "pov" is set by meta
		k := rel + "\x00" + recordID(t)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, store.Link{NS: recordNS(i).name, From: recordID(i), Rel: rel, To: recordID(t)})
	}
	return out
}

// batch returns records [from, to) and their links.
func (c corpus) batch(from, to int) ([]store.Record, []store.Link) {
	recs := make([]store.Record, 0, to-from)
	var links []store.Link
	for i := from; i < to; i++ {
		recs = append(recs, c.record(i))
		links = append(links, c.links(i)...)
	}
	return recs, links
}

// genAhead is how many batches an ingest generates at a time, between
// its timed writes: enough that the writes of one chunk overlap each
// other, few enough that the records in hand stay small (about 30 MiB).
const genAhead = 16

// pending is one generated batch: records from..from+len(recs)-1.
type pending struct {
	from  int
	recs  []store.Record
	links []store.Link
}

// ahead yields, for each chunk of genAhead batches of size records, a
// function that generates that chunk; the caller times around the call.
func (c corpus) ahead(size int) iter.Seq[func() []pending] {
	return func(yield func(func() []pending) bool) {
		for start := 0; start < c.n; start += genAhead * size {
			gen := func() []pending {
				var out []pending
				for from := start; from < min(start+genAhead*size, c.n); from += size {
					recs, links := c.batch(from, min(from+size, c.n))
					out = append(out, pending{from: from, recs: recs, links: links})
				}
				return out
			}
			if !yield(gen) {
				return
			}
		}
	}
}

// textBytes is the text a record carries: title, summary and body.
func textBytes(r *store.Record) int { return len(r.Title) + len(r.Summary) + len(r.Body) }

// query is one seeded packet request.
type query struct {
	NS      string
	Profile string
	Focus   string // "" for agent queries
	Text    string
}

// queries returns q seeded queries over the n records, alternately novel
// and agent: in novel namespaces a scene as focus (the active scene) and
// two or three words; in agent namespaces the words alone.
func (c corpus) queries(q int) []query {
	rng := rand.New(rand.NewPCG(c.seed, 0x9e3779b9))
	out := make([]query, 0, q)
	for tries := 0; len(out) < q; tries++ {
		i := rng.IntN(c.n)
		ns := recordNS(i)
		want := "novel"
		if len(out)%2 == 1 {
			want = "agent"
		}
		scene := c.kindOf(i) == "scene"
		// A tiny corpus may lack a profile or a scene: after enough
		// tries, take what there is.
		if (ns.profile != want || ns.profile == "novel" && !scene) && tries < 1000 {
			continue
		}
		tries = 0
		qr := query{NS: ns.name, Profile: ns.profile}
		if ns.profile == "novel" && scene {
			qr.Focus = recordID(i)
		}
		// Words of middling frequency: ranks 60..3000 of the vocabulary.
		var words []string
		for range 2 + rng.IntN(2) {
			words = append(words, vocab.words[60+rng.IntN(2940)])
		}
		qr.Text = strings.Join(words, " ")
		out = append(out, qr)
	}
	return out
}
