package packet

import (
	"context"
	"slices"

	"github.com/lorekeep/lore/budget"
)

// form is how a candidate appears in the packet.
type form uint8

const (
	formFull    form = iota // the body
	formSummary             // the summary and a citation
	formTitle               // the title and a citation (history without summary)
	formOut                 // left out by a ladder step
)

func (f form) String() string {
	return [...]string{"full", "summary", "title", "out"}[f]
}

// builder measures and fits ranked candidates (pipeline steps 3 to 6).
type builder struct {
	req  Request
	cfg  Config
	ctx  context.Context
	bg   *helpers // the goroutines it starts (helpers.go)
	src  Source
	srch Searcher // for building the packets a split proposes
	// refusedFrame is the frame's real count when the budget is below it
	// (frameRefusal), for the split's need; 0 otherwise.
	refusedFrame int
	cands        []*candidate
	bodies       map[string]string // loaded bodies by id
	counted      map[string]string // bodies read only to count them (countMissing), by id
	// flagged waits for the contradictions read from the candidates'
	// text (startTextContradictions): measure calls it before anything
	// reads a candidate's contradicts; nil when there is nothing to wait
	// for.
	flagged func() error
	warns   []string

	cost [][3]int // per candidate: entry cost by form (full, summary, title)
	note []int    // per candidate: cost of its deferral note
	base int      // the frame without notes
	// Notes beyond a share of the budget are grouped by kind instead of
	// listed one by one (a store with hundreds of candidates would
	// otherwise spend the budget on notes).
	grouping  bool
	canGroup  bool // the notes exceed the share: grouping can help
	noteShare int  // tokens the listed notes may take at most when grouping
	// listRoom is what the listed notes may take in the packet being
	// assembled: 0 while fitting (notes never crowd out content), then
	// the room the final packet leaves, up to noteShare.
	listRoom  int
	groupCost int   // the group lines, one per kind, when grouping
	step      []int // per candidate: the ladder step that reduced it
	forms     []form
	// What the last ladder run kept (with Fit's truncations) and
	// deferred, for the final put-back.
	kept []budget.Fitted
	defs map[string]budget.Deferred
	// trial renders stand in for bodies not read yet with text of their
	// cached token count (see stand), so that a put-back can be counted
	// whole without reading the body of a record that then stays out.
	trial  bool
	stands map[int]string
	// standAll makes a trial render stand in for every body, read or not,
	// so that its count does not depend on what was read before (arrange's
	// model).
	standAll bool
	// memo counts the builder's whole renders (see memoCounter); the
	// packets it assembles count with it until Build hands one out.
	memo *memoCounter
	// frags counts the entry and note fragments priced (see fragcache.go).
	frags fragmentCounter
	// ahead is arrange's every-record model, counted beside the ladder
	// (ahead.go); nil when calibrate counts it in place.
	ahead *modelAhead
	// bodiesAhead is the bodies of the likely kept, read and counted on
	// another core (bodiesahead.go); nil when not read ahead.
	bodiesAhead *bodiesAhead
	// candAt is each candidate's place in cands by id (candIndex).
	candAt map[string]int
	// frameCredit is what calibrateFrame takes off the priced frame.
	frameCredit int
	// upgraded holds the records shown by an excerpt that the last fit
	// let in whole (upgrade.go, foldUpgrades).
	upgraded map[string]bool

	// asked is the request as Build was given it, normalized, before
	// gathering filled in story time: what a refusal's search and its
	// proposals start from (split.go, propose.go).
	asked Request
	// superseded are the candidates a newer record supersedes
	// (Packet.Superseded): a part of the frame.
	superseded []Superseded
	// floorCount is the floor packet's real count when it is over the
	// budget (refuse, floor.go): where that search starts.
	floorCount int
}

// minParallelPrices is the number of candidates from which measure
// prices them on all cores: below it the goroutines cost more than the
// counting they share.
const minParallelPrices = 64

// ladderState is what a ladder run leaves in the builder beside its
// packet: each candidate's form and step, what it kept and deferred,
// and which excerpted records it showed whole. A step that tries another
// packet and keeps the one it was given puts the state back with it.
type ladderState struct {
	forms    []form
	step     []int
	kept     []budget.Fitted
	defs     map[string]budget.Deferred
	upgraded map[string]bool
}

// saveState is the ladder state as it stands. No step changes kept,
// defs or upgraded in place (each makes new ones), so only the forms and
// steps are copied.
func (b *builder) saveState() ladderState {
	return ladderState{forms: slices.Clone(b.forms), step: slices.Clone(b.step), kept: b.kept, defs: b.defs, upgraded: b.upgraded}
}

// restoreState puts back a state saveState took.
func (b *builder) restoreState(s ladderState) {
	copy(b.forms, s.forms)
	copy(b.step, s.step)
	b.kept, b.defs, b.upgraded = s.kept, s.defs, s.upgraded
}
