package index

import (
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
)

// Irregular verbs, filed under their base form.
//
// The Porter stemmer takes suffixes off ("asked" and "asking" are filed
// as "ask"), so a question and the record that answers it match whatever
// the tense, except where English changes the word itself: "Where did
// we meet?" shares no term with "we met at the lake", nor "What did she
// buy?" with "she bought a lamp". Questions are mostly asked in the
// present and records written in the past, so these are misses on exactly
// the records that hold the answer. The irregular filter files the past
// and the participle of the common irregular verbs under the base's term
// ("met" and "meet" both as "meet"), after the stemmer, in the index and
// in every query alike.
//
// Left out: the forms that are also common words of their own ("bit" as
// in "a bit", "lay", "rose", "ground", "wound", "bore"), and the verbs
// whose forms are stop words anyway (be, have, do). Plural nouns
// ("people", "children") were measured too and left out: they cost the
// long chats more than they gave the others.
//
// Measured with the recall benchmark (issue 36; BENCHMARKS.md), mean
// evidence recall at 500 / 1k / 2k / 4k / 8k tokens against the same
// run without it: short turns .712 .800 .854 .902 .938 -> .722 .800 .856
// .903 .938; story passages .811 .928 .985 .999 .999 -> .822 .933 .986
// .999 .999 (answer recall .788 .869 .926 .984 -> .807 .881 .934 .986);
// long chats .438 .531 .571 .630 .678 -> .438 .529 .568 .633 .675 (one
// question of 143 is .007).

// irregularForms lists each verb's base form, then its past and
// participle where they differ from it.
const irregularForms = `arise arose arisen|awake awoke awoken|beat beaten|become became|begin began begun|bend bent|bind bound|bite bitten|bleed bled|blow blew blown|break broke broken|breed bred|bring brought|build built|burn burnt|buy bought|catch caught|choose chose chosen|come came|creep crept|deal dealt|dig dug|draw drew drawn|dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|find found|flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|get got gotten|give gave given|go went gone|grow grew grown|hang hung|hear heard|hide hid hidden|hold held|keep kept|kneel knelt|know knew known|lead led|lean leant|leap leapt|learn learnt|leave left|lend lent|lie lain|light lit|lose lost|make made|mean meant|meet met|pay paid|prove proven|ride rode ridden|ring rang rung|rise risen|run ran|say said|see saw seen|seek sought|sell sold|send sent|shake shook shaken|shine shone|shoot shot|show shown|shrink shrank shrunk|sing sang sung|sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spit spat|spring sprang sprung|stand stood|steal stole stolen|stick stuck|sting stung|stink stank stunk|strike struck|swear swore sworn|sweep swept|swim swam swum|swing swung|take took taken|teach taught|tear tore torn|tell told|think thought|throw threw thrown|understand understood|wake woke woken|wear wore worn|weep wept|win won|write wrote written`

// irregular is the table, read once: terms maps the stemmed term of each
// irregular form to the stemmed term of its base ("met" -> "meet",
// "brought" -> "bring"); verbs maps each form to its base word.
type irregular struct {
	terms, verbs map[string]string
}

var irregularTable = sync.OnceValue(func() irregular {
	stemmer := porter.NewPorterStemmer()
	stem := func(w string) string {
		ts := stemmer.Filter(analysis.TokenStream{&analysis.Token{Term: []byte(w)}})
		return string(ts[0].Term)
	}
	t := irregular{terms: map[string]string{}, verbs: map[string]string{}}
	for _, verb := range strings.Split(irregularForms, "|") {
		forms := strings.Fields(verb)
		base := stem(forms[0])
		for _, f := range forms[1:] {
			t.verbs[f] = forms[0]
			if s := stem(f); s != base {
				t.terms[s] = base
			}
		}
	}
	return t
})

func irregularTerms() map[string]string { return irregularTable().terms }

// IrregularVerbs maps each irregular past or participle the index files
// under its verb to the verb ("met" -> "meet"). The map is shared: read
// it, never write.
func IrregularVerbs() map[string]string { return irregularTable().verbs }

// irregularFilter files each irregular form's term under its base's
// (irregularTerms). It looks at each token alone, so the termCache may
// keep its terms.
type irregularFilter struct{ terms map[string]string }

func newIrregularFilter() *irregularFilter { return &irregularFilter{terms: irregularTerms()} }

func (f *irregularFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if base, ok := f.terms[string(t.Term)]; ok {
			t.Term = []byte(base)
		}
	}
	return input
}

// withIrregular is analyzer a with the irregular filter after its own.
func withIrregular(a *analysis.DefaultAnalyzer) *analysis.DefaultAnalyzer {
	out := *a
	out.TokenFilters = append(append([]analysis.TokenFilter(nil), a.TokenFilters...), newIrregularFilter())
	return &out
}
