package packet

import (
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/lorekeep/lore/mention"
	"github.com/lorekeep/lore/store"
)

// requestWork is the work one request's builds share: the packet itself
// and, when it is refused, the packets its split proposals build to check
// themselves (a larger budget, some kinds set apart), which scan the same
// focus texts for the same names and read mostly the same heads. At a
// million records the matcher of a scene's names is the largest part of
// a build after the search (which searchMemo shares), and a refused
// packet built it up to eight times.
// The builds that share one requestWork run one after another, so
// nothing here is used by two goroutines at once (the lock is for
// safety, not for speed); builds that run beside them take a fork.
type requestWork struct {
	mu       sync.Mutex
	matchers map[string]keptMatcher
	// The names its builds read by word (namesFor): the sequence each
	// name key was first read at, and the sets read, by key, sequence
	// and words, so that every build of the request reads them one way
	// and the same set serves (and its matcher with it).
	wordSeq  map[nameKey]uint64
	wordSets map[wordSetKey]*nameSet
	// heads are the record heads of namespace headsNS the builds have
	// read, by id: a proposal's build reads only those new to the
	// request (at a million records a refused scene packet's working
	// budget builds read a thousand heads each, most of them twice).
	// They are read as the searchMemo's hits are: once for the request,
	// as if its builds ran at one moment.
	heads   map[string]store.Record
	headsNS string
}

// fork returns a requestWork that starts with what w holds and goes its
// own way: for builds that run beside w's.
func (w *requestWork) fork() *requestWork {
	w.mu.Lock()
	defer w.mu.Unlock()
	return &requestWork{matchers: maps.Clone(w.matchers), wordSeq: maps.Clone(w.wordSeq), wordSets: maps.Clone(w.wordSets),
		heads: maps.Clone(w.heads), headsNS: w.headsNS}
}

// own returns the work for one more build of the request that must
// answer as that request built alone would (a refusal's search for its
// least budget, the proposals it checks): it starts with w's names and
// matchers, which every build of the request reads one way and which
// serve any of them alike, and reads heads of its own. Which heads a
// build has read decides some of its scores (shortness: a head not read
// counts as short), and the heads a build at another budget read made
// the build at the least budget another packet than the one a user then
// asking for that budget is given.
func (w *requestWork) own() *requestWork {
	f := w.fork()
	f.heads, f.headsNS = nil, ""
	return f
}

// headsOf returns the heads the request's builds in namespace ns share
// (gatherer.heads): each build adds those it reads.
func (w *requestWork) headsOf(ns string) map[string]store.Record {
	if w.heads == nil || w.headsNS != ns {
		w.heads, w.headsNS = map[string]store.Record{}, ns
	}
	return w.heads
}

type wordSetKey struct {
	names nameKey
	seq   uint64
	words string
}

// keptMatcher is a matcher and the name set it was made from: the set is
// compared by identity, and kept so its address stays its own.
type keptMatcher struct {
	set *nameSet
	m   *mention.Matcher
}

// matcherFor returns the matcher kept under key for set, or builds it
// with mk and keeps it. A nil work (a build outside Build) builds every
// time.
func (w *requestWork) matcherFor(set *nameSet, key string, mk func() *mention.Matcher) *mention.Matcher {
	if w == nil {
		return mk()
	}
	w.mu.Lock()
	k, ok := w.matchers[key]
	w.mu.Unlock()
	if ok && k.set == set {
		return k.m
	}
	m := mk()
	w.mu.Lock()
	if w.matchers == nil {
		w.matchers = map[string]keptMatcher{}
	}
	w.matchers[key] = keptMatcher{set: set, m: m}
	w.mu.Unlock()
	return m
}

// byWord reports whether this request reads the names of key at seq by
// word: it does when an earlier build of it did, or when readByWord
// says the first request at seq does. A nil work asks readByWord.
func (w *requestWork) byWord(key nameKey, seq uint64) bool {
	if w == nil {
		return readByWord(key, seq)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.wordSeq[key]; ok && s == seq {
		return true
	}
	if !readByWord(key, seq) {
		return false
	}
	if w.wordSeq == nil {
		w.wordSeq = map[nameKey]uint64{}
	}
	w.wordSeq[key] = seq
	return true
}

// wordNamesAt returns the set read by word for key at seq and words,
// kept from an earlier build of the request, or reads it with read and
// keeps it.
func (w *requestWork) wordNamesAt(key nameKey, seq uint64, words []string, read func([]string) (*nameSet, bool, error)) (*nameSet, bool, error) {
	if w == nil {
		return read(words)
	}
	k := wordSetKey{key, seq, strings.Join(words, "\x00")}
	w.mu.Lock()
	s, ok := w.wordSets[k]
	w.mu.Unlock()
	if ok {
		return s, true, nil
	}
	s, ok, err := read(words)
	if !ok || err != nil {
		return s, ok, err
	}
	w.mu.Lock()
	if w.wordSets == nil {
		w.wordSets = map[wordSetKey]*nameSet{}
	}
	w.wordSets[k] = s
	w.mu.Unlock()
	return s, true, nil
}

// mentionKey names what decides a build's names matcher beside its name
// set: the texts scanned (the focus records' and, with ScanQuery, the
// query) and what the names are filtered by (the focus itself, and story
// time: the as-of position and the task).
func (g *gatherer) mentionKey(scanQuery bool) string {
	q := ""
	if scanQuery {
		q = g.req.Query
	}
	return fmt.Sprintf("%s\x00%q\x00%q\x00%d\x00%q", g.req.NS, g.req.Focus, q, g.req.AsOf, g.req.Task)
}
