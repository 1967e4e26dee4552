package packet

import (
	"fmt"
	"sync"

	"github.com/lorekeep/lore/mention"
)

// requestWork is the work one request's builds share: the packet itself
// and, when it is refused, the packets its split proposals build to check
// themselves (a larger budget, some kinds set apart), which scan the same
// focus texts for the same names. At a million records the matcher of a
// scene's names is the largest part of a build after the search (which
// searchMemo shares), and a refused packet built it up to eight times.
// The builds of one request run one after another, so nothing here is
// used by two goroutines at once; the lock is for safety, not for speed.
type requestWork struct {
	mu       sync.Mutex
	matchers map[string]keptMatcher
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
