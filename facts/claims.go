package facts

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/lorekeep/lore/index"
)

// Claims in free text. Without a model, one kind of contradiction can be
// read from prose with few false alarms: a subject says it never did
// something ("I've never met Raymond", "Mira had never seen the sea"),
// and another record of the same subject says, plainly, that it did ("I
// met Raymond at the tech talk", "Mira saw the sea from the cliff").
// Everything else (a different number for the same words, a change of
// mind) is left to structured facts: a reader's grammar guessed wrong is
// a false alarm, and a flag is only worth reading when it is rare.
//
// The reading is narrow on purpose:
//   - the negated claim is "SUBJECT [has|had|have] never PREDICATE", the
//     subject first person (I, we) or a capitalised name; a pronoun (he,
//     she, they) is never resolved, so it is never read;
//   - the predicate is its first words up to the end of the clause, and
//     what counts is its verb and content words (stemmed as the index
//     stems them; common irregular past forms read as their verb: "met"
//     is "meet");
//   - the affirming clause names the same subject, holds the verb and
//     every content word, and holds no negation, question, wish, plan or
//     condition ("I want to meet", "how can I meet", "if I met").

// Claim is a subject's claim, read from one sentence, that it never did
// what Predicate says.
type Claim struct {
	// Subject is the name the sentence gives ("Mira"), or "I" or "we"
	// for the first person (the record's speaker).
	Subject string
	// Predicate is the words after "never", to the end of the clause.
	Predicate string
	// Sentence is the whole sentence, as written.
	Sentence string
	// terms are the predicate's verb, then its content words, analysed.
	terms []string
	// probes are what a text must hold, in lower case, to be worth
	// reading for an affirmation: per term, its forms' common prefix
	// (the stem less a last letter the stemmer may have rewritten, and
	// for the verb its irregular past forms too); any one of a group.
	probes [][]string
}

// FirstPerson reports whether the claim's subject is the speaker.
func (c Claim) FirstPerson() bool { return c.Subject == "I" || c.Subject == "we" }

// Terms are the analysed words an affirming clause must hold: the verb
// first, then the content words.
func (c Claim) Terms() []string { return c.terms }

// maxClaimTerms bounds the words of a predicate that must be said again:
// the object next to the verb says what was done; a long tail ("...
// with the team at the office last spring") is seldom repeated.
const maxClaimTerms = 5

// NegatedClaims returns the claims of text that a subject never did
// something, in text order.
func NegatedClaims(text string) []Claim {
	if !strings.Contains(text, "never") && !strings.Contains(text, "Never") && !strings.Contains(text, "NEVER") {
		return nil // most texts: no lower-case copy made
	}
	var out []Claim
	for _, s := range sentencesOf(text) {
		if !containsFold(s, "never") {
			continue
		}
		words := wordSpans(s)
		for i, w := range words {
			if !strings.EqualFold(s[w[0]:w[1]], "never") {
				continue
			}
			subject, ok := claimSubject(s, words[:i])
			if !ok {
				continue
			}
			// "never X or Y" denies each: either said plainly contradicts
			// it. An alternative without a verb of its own ("met her
			// parents or any of her family") takes the first one's.
			alts := orAlternatives(clauseAfter(s, w[1]))
			var verb string
			for k, pred := range alts {
				terms := predicateTerms(pred)
				if k == 0 && len(terms) > 0 {
					verb = firstWord(strings.TrimSpace(skipAdverbs(pred)))
				} else if k > 0 && len(terms) > 0 && !startsWithVerbOf(pred, verb) {
					pred = verb + " " + pred
					terms = predicateTerms(pred)
				}
				if len(terms) < 2 {
					continue // a verb alone ("I never do") says too little to match
				}
				out = append(out, Claim{Subject: subject, Predicate: strings.TrimRight(strings.TrimSpace(pred), ".!?…"), Sentence: strings.TrimSpace(s), terms: terms, probes: probesOf(terms)})
			}
		}
	}
	return out
}

// Affirmation returns the first clause of text that affirms what c
// denies: it names c's subject (subject is how the clause names it: "I"
// and "we" for the first person, matched as the first person's words),
// holds c's verb and content words, and has no negation, question, wish,
// plan or condition. ok is false when no clause does.
func Affirmation(text string, c Claim) (clause string, ok bool) {
	if len(c.terms) == 0 {
		return "", false
	}
	for _, s := range sentencesOf(text) {
		for _, cl := range clausesOf(s) {
			if affirms(cl, c) {
				return strings.TrimSpace(cl), true
			}
		}
	}
	return "", false
}

func affirms(clause string, c Claim) bool {
	// Cheap first: the clause must hold every term's probe before
	// anything is analysed.
	if !c.MayAffirm(clause) {
		return false
	}
	lower := strings.ToLower(clause)
	words := wordSpans(clause)
	named := false
	for _, w := range words {
		word := clause[w[0]:w[1]]
		lw := strings.ToLower(word)
		if negations[lw] || strings.HasSuffix(lw, "n't") || strings.HasSuffix(lw, "n’t") {
			return false
		}
		switch {
		case c.Subject == "I":
			named = named || firstPersonI[lw]
		case c.Subject == "we":
			named = named || firstPersonWe[lw]
		default:
			named = named || word == c.Subject || strings.HasPrefix(c.Subject, word+" ") && strings.Contains(clause, c.Subject)
		}
	}
	if !named {
		return false
	}
	for _, m := range notDone {
		if strings.Contains(lower, m) {
			return false
		}
	}
	if first := firstWord(lower); questionWords[first] || strings.HasSuffix(strings.TrimSpace(clause), "?") && auxiliaries[first] {
		return false
	}
	have := map[string]bool{}
	for _, t := range index.Terms(clause) {
		have[t.Term] = true
	}
	for k, w := range words {
		word := strings.ToLower(clause[w[0]:w[1]])
		if base, ok := irregularPast[word]; ok {
			for _, t := range index.Terms(base) {
				have[t.Term] = true
			}
		}
		// "I'm attending on Sunday": the verb under way or to come.
		if k > 0 && strings.HasSuffix(word, "ing") && strings.HasPrefix(word, c.probes[0][0]) &&
			progressive[strings.ToLower(clause[words[k-1][0]:words[k-1][1]])] {
			return false
		}
	}
	for _, t := range c.terms {
		if !have[t] {
			return false
		}
	}
	return true
}

// orAlternatives cuts a predicate at " or " and " nor ".
func orAlternatives(pred string) []string {
	lower := asciiLower(pred) // offsets into lower are offsets into pred
	var out []string
	for {
		i, n := strings.Index(lower, " or "), len(" or ")
		if j := strings.Index(lower, " nor "); j >= 0 && (i < 0 || j < i) {
			i, n = j, len(" nor ")
		}
		if i < 0 {
			return append(out, pred)
		}
		out = append(out, pred[:i])
		pred, lower = pred[i+n:], lower[i+n:]
	}
}

// skipAdverbs drops the adverbs that may stand between "never" and its
// verb ("never actually met").
func skipAdverbs(pred string) string {
	for {
		w := firstWord(pred)
		if w == "" || !neverAdverbs[strings.ToLower(w)] && strings.ToLower(w) != "been" {
			return pred
		}
		pred = strings.TrimSpace(pred[strings.Index(pred, w)+len(w):])
	}
}

// startsWithVerbOf reports whether an alternative of a predicate opens
// with a word of its own that is not a determiner or a pronoun: a verb,
// most often ("worn insoles or used any support").
func startsWithVerbOf(alt, verb string) bool {
	ws := wordSpans(alt)
	if len(ws) == 0 {
		return false
	}
	w := strings.ToLower(alt[ws[0][0]:ws[0][1]])
	if strings.EqualFold(w, verb) {
		return true
	}
	// A participle is a verb when a determiner follows it ("used any
	// support"), an adjective when a noun does ("automated deployments").
	return looksLikeVerb(w) && len(ws) > 1 && generic[strings.ToLower(alt[ws[1][0]:ws[1][1]])]
}

// looksLikeVerb: a past or present participle, or an irregular past form.
func looksLikeVerb(w string) bool {
	_, irregular := irregularPast[w]
	return irregular || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing")
}

// claimSubject reads the subject of "never" from the words before it in
// its clause: I or we (with have, had, 've, 'd and adverbs between), or
// a capitalised name (with has, had or have between).
func claimSubject(s string, before [][2]int) (string, bool) {
	k := len(before) - 1
	for k >= 0 && neverAdverbs[strings.ToLower(s[before[k][0]:before[k][1]])] {
		k--
	}
	if k >= 0 && auxHave[strings.ToLower(s[before[k][0]:before[k][1]])] {
		k--
	}
	if k < 0 {
		return "", false
	}
	w := s[before[k][0]:before[k][1]]
	switch lw := strings.ToLower(w); {
	case lw == "i" || lw == "i've" || lw == "i’ve" || lw == "i'd" || lw == "i’d":
		return "I", true
	case lw == "we" || lw == "we've" || lw == "we’ve" || lw == "we'd" || lw == "we’d":
		return "we", true
	case pronouns[lw]:
		return "", false
	}
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return "", false
	}
	// A name of two capitalised words ("Captain Voss") keeps both; a
	// sentence's first word alone is a name only if nothing precedes it.
	name := w
	if k > 0 {
		prev := s[before[k-1][0]:before[k-1][1]]
		if p, _ := utf8.DecodeRuneInString(prev); unicode.IsUpper(p) && !pronouns[strings.ToLower(prev)] && !functionWords[strings.ToLower(prev)] {
			name = prev + " " + w
		}
	}
	if functionWords[strings.ToLower(name)] {
		return "", false
	}
	return name, true
}

// predicateTerms analyses a predicate: its verb (an irregular past form
// read as its verb), then its content words, at most maxClaimTerms.
func predicateTerms(pred string) []string {
	var kept []string
	for _, w := range wordSpans(pred) {
		lw := strings.ToLower(pred[w[0]:w[1]])
		if len(kept) == 0 && (neverAdverbs[lw] || lw == "been") {
			continue // "never actually met", "never been to"
		}
		if generic[lw] {
			continue
		}
		kept = append(kept, lw)
	}
	var out []string
	for _, w := range kept {
		for _, t := range analysed(w) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		if len(out) >= maxClaimTerms {
			break
		}
	}
	return out
}

// analysed is text's terms as the index files them, each irregular past
// form first read as its verb.
func analysed(text string) []string {
	var out []string
	for _, w := range wordSpans(text) {
		word := strings.ToLower(text[w[0]:w[1]])
		if base, ok := irregularPast[word]; ok {
			word = base
		}
		for _, t := range index.Terms(word) {
			out = append(out, t.Term)
		}
	}
	return out
}

// probesOf makes the probes of terms (Claim.probes).
func probesOf(terms []string) [][]string {
	out := make([][]string, len(terms))
	for i, t := range terms {
		probe := t
		if len(probe) > 4 {
			probe = probe[:len(probe)-1]
		}
		out[i] = []string{probe}
		if i > 0 {
			continue
		}
		out[i] = append(out[i], irregularForms(t)...)
	}
	return out
}

// irregularForms lists, sorted, the irregular past forms whose verb the
// index files as stem.
func irregularForms(stem string) []string { return irregularByStem()[stem] }

// irregularByStem maps a verb's stem to its irregular past forms, built
// once.
var irregularByStem = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for past, base := range irregularPast {
		if ts := index.Terms(base); len(ts) == 1 {
			m[ts[0].Term] = append(m[ts[0].Term], past)
		}
	}
	for _, forms := range m {
		slices.Sort(forms)
	}
	return m
})

// MayAffirm reports whether text holds a probe of every term of c, in
// lower case or capitalised: only then can a clause of it affirm c. It
// makes no copy of text, so a caller can sift many texts cheaply before
// Affirmation reads the few that pass (a word in capitals throughout is
// missed, as precision asks).
func (c Claim) MayAffirm(text string) bool {
	for _, group := range c.probes {
		if !slices.ContainsFunc(group, func(p string) bool {
			return strings.Contains(text, p) || strings.Contains(text, capitalised(p))
		}) {
			return false
		}
	}
	return len(c.probes) > 0
}

// capitalised is w with its first letter in upper case.
func capitalised(w string) string {
	r, n := utf8.DecodeRuneInString(w)
	if n == 0 || unicode.IsUpper(r) {
		return w
	}
	return string(unicode.ToUpper(r)) + w[n:]
}

// sentencesOf cuts text after ".", "!" or "?" followed by white space, and
// at line breaks.
func sentencesOf(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case (c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '\t'):
			end = i + 1
		}
		if end < 0 {
			continue
		}
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// clausesOf cuts a sentence at commas, semicolons, colons, dashes and
// the conjunctions that start another clause.
func clausesOf(s string) []string {
	out := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ':' || r == '—' || r == '–' })
	var cut []string
	for _, c := range out {
		cut = append(cut, splitAtConjunctions(c)...)
	}
	return cut
}

// clauseAfter is s from byte at to the end of its clause.
func clauseAfter(s string, at int) string {
	rest := s[at:]
	if i := strings.IndexAny(rest, ",;:—–()"); i >= 0 {
		rest = rest[:i]
	}
	if parts := splitAtConjunctions(rest); len(parts) > 0 {
		rest = parts[0]
	}
	return rest
}

// splitAtConjunctions cuts s before each conjunction that starts another
// clause.
func splitAtConjunctions(s string) []string {
	lower := asciiLower(s) // offsets into lower are offsets into s
	cuts := []int{0}
	for _, conj := range clauseBreaks {
		for from := 0; ; {
			i := strings.Index(lower[from:], conj)
			if i < 0 {
				break
			}
			cuts = append(cuts, from+i)
			from += i + len(conj)
		}
	}
	slices.Sort(cuts)
	var out []string
	for k, c := range cuts {
		end := len(s)
		if k+1 < len(cuts) {
			end = cuts[k+1]
		}
		if part := strings.TrimSpace(s[c:end]); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// wordSpans returns the byte spans of s's words: letters, digits and the
// apostrophes inside a word ("I've", "O'Neill").
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r) ||
			(r == '\'' || r == '’') && start >= 0 && i+utf8.RuneLen(r) < len(s) && isLetterAt(s, i+utf8.RuneLen(r))
		if inWord {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

func isLetterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

func firstWord(s string) string {
	if ws := wordSpans(s); len(ws) > 0 {
		return s[ws[0][0]:ws[0][1]]
	}
	return ""
}

// containsFold reports whether s holds word, in any case, as a word.
func containsFold(s, word string) bool {
	lower := strings.ToLower(s)
	for from := 0; ; {
		i := strings.Index(lower[from:], word)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(lower[:i])
		after, _ := utf8.DecodeRuneInString(lower[i+len(word):])
		if (i == 0 || !unicode.IsLetter(before)) && (i+len(word) == len(lower) || !unicode.IsLetter(after)) {
			return true
		}
		from = i + len(word)
	}
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	neverAdverbs = set("actually", "really", "truly", "honestly", "just", "ever", "even", "once", "yet", "still", "personally", "literally", "seriously")
	auxHave      = set("have", "has", "had", "'ve", "’ve")
	// The first person as the subject of a clause: "my sister attended"
	// is not the speaker's deed.
	firstPersonI  = set("i", "i've", "i’ve", "i'm", "i’m", "i'd", "i’d", "i'll", "i’ll")
	firstPersonWe = set("we", "we've", "we’ve", "we're", "we’re", "we'd", "we’d")
	// progressive is what before an -ing verb makes it a deed under way
	// or to come ("I'm attending on Sunday"), not one done.
	progressive   = set("am", "i'm", "i’m", "are", "we're", "we’re", "is", "be", "was", "were")
	pronouns      = set("he", "she", "they", "it", "you", "he's", "she's", "they've", "you've", "he'd", "she'd", "they'd", "you'd", "one", "someone", "nobody", "everyone", "people")
	functionWords = set("the", "a", "an", "this", "that", "there", "these", "those", "but", "and", "so", "if", "when", "then", "although", "though", "because", "since", "as", "what", "who", "which", "why", "how", "still", "perhaps", "maybe", "yes", "no", "well", "oh", "honestly", "actually")
	negations     = set("not", "no", "never", "nor", "without", "cannot", "nothing", "none", "neither", "hardly", "barely")
	questionWords = set("how", "what", "why", "when", "where", "which", "who", "whom", "whether")
	auxiliaries   = set("can", "could", "should", "would", "will", "do", "does", "did", "is", "are", "was", "were", "have", "has", "had", "may", "might", "shall")
	generic       = set("any", "some", "my", "your", "his", "her", "our", "their", "its", "me", "him", "them", "us", "before", "again", "anything", "something", "anyone", "someone", "one", "ones", "other", "others", "all", "every", "single", "much", "many", "kind", "sort", "type", "also", "properly", "fully", "own", "really", "actually", "ever", "even", "very", "too", "quite", "much", "a", "an", "the", "at", "in", "on", "to", "of", "for", "with", "from", "by", "about", "into", "or", "and", "it", "this", "that", "these", "those", "such", "like", "there", "here", "now", "then", "so", "yet", "before", "since", "lot", "bit", "time", "times")
	clauseBreaks  = []string{" but ", " so ", " because ", " though ", " although ", " while ", " which ", " whereas ", " and i ", " and we ", " and now ", " yet ", " however ", " unless ", " until ", " except ", "->"}
	notDone       = []string{"want to", "wants to", "wanted to", "trying to", "try to", "tried to", "going to", "gonna", "plan to", "planning to", "planned to", "hope to", "hoping to", "how to", "need to", "needs to", "would like", "'d like", "’d like", "wish", "if ", "whether", "unless", "help me", "learn", "considering", "thinking about", "thinking of", "might", "maybe", "perhaps", "could ", "would ", "should ", "will ", "'ll ", "’ll ", "supposed to", "prefer", " can ", "love to", "plan is", "goal is", "aim is", "pretend", "imagine", "dream", "about to", "ready to", "intend", "expect", "eager to", "able to"}
	// irregularPast: the index's irregular verbs (index.IrregularVerbs), and
	// the past of do, whose forms the index leaves out as stop words.
	irregularPast = pastForms(index.IrregularVerbs(), map[string]string{"did": "do", "done": "do", "beat": "beat"})
)

// pastForms merges two maps of past forms to their verbs into a new one.
func pastForms(verbs, more map[string]string) map[string]string {
	out := make(map[string]string, len(verbs)+len(more))
	maps.Copy(out, verbs)
	maps.Copy(out, more)
	return out
}

// asciiLower is s with A-Z in lower case and every other byte as it is:
// the same length, so an offset found in it is an offset in s (a Unicode
// lower-casing may change a text's length, and invalid UTF-8 grows into
// replacement characters). The words it is searched for are ASCII.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
