package packet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/internal/numfmt"
	"github.com/lorekeep/lore/store"
)

// Why answers "why is this record (not) in my packet?" for one record
// and one request (`lore why`): whether the packet holds it, in which
// form, at which rank and by which rule; if not, what kept it out (the
// wall, story time, a condition or kind filter, the budget, or that
// nothing reaches it), and the request that brings it in, which is
// built before it is offered. A budget it gives is exact: the packet at
// that budget holds the record (whole, for WholeAt) and the packet one
// token under it does not; the packets are monotone in the budget (the
// property tests hold them so), so no smaller budget does either.

// Where a record stands in a packet (Verdict.Status).
const (
	StatusIn             = "in"              // the packet holds it
	StatusDeferred       = "deferred"        // a candidate the ladder left out
	StatusSkipped        = "skipped"         // reached, but not loaded (Packet.Skipped)
	StatusNotCandidate   = "not-a-candidate" // in the namespace; nothing of the request reaches it
	StatusOtherNamespace = "other-namespace" // the wall: only other namespaces hold the id
	StatusMissing        = "missing"         // no namespace holds the id
)

// whyCeiling is the largest budget Why tries: past a million tokens no
// model reads the packet, and a search that deep only costs time.
const whyCeiling = 1 << 20

// maxWhyBuilds bounds the packets one answer builds: a doubling to the
// ceiling and a halving back take about 40 from the smallest budgets.
const maxWhyBuilds = 64

// Verdict is Why's answer.
type Verdict struct {
	NS     string `json:"ns"`
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Budget int    `json:"budget"`
	Status string `json:"status"`
	// Rank, Form, Rule and Tokens describe the record in the packet
	// (Entry); Tokens is its whole cost when it is deferred.
	Rank   int    `json:"rank,omitempty"`
	Form   string `json:"form,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Tokens int    `json:"tokens,omitempty"`
	// Step is the ladder step that deferred or shortened it.
	Step int `json:"step,omitempty"`
	// Reason says what kept it out, or shortened it.
	Reason string `json:"reason,omitempty"`
	// ComesInAt is the least budget at which the request (with Change,
	// when set) holds the record; WholeAt the least at which it shows the
	// record whole. 0: none up to Ceiling.
	ComesInAt int `json:"comes_in_at,omitempty"`
	WholeAt   int `json:"whole_at,omitempty"`
	// Ceiling is the largest budget tried: a million tokens, or a
	// server's output ceiling.
	Ceiling int `json:"ceiling"`
	// Change says what Command changes in the request besides its budget:
	// "--when power", "--hops 2"; empty when the budget alone does it.
	Change string `json:"change,omitempty"`
	// Command is the `lore packet` line that brings the record in (or
	// whole), built and checked; empty when none was found. Request is
	// the same request, for a library or server caller.
	Command string   `json:"command,omitempty"`
	Request *Request `json:"request,omitempty"`
	// Fetch prints the record itself.
	Fetch string `json:"fetch,omitempty"`
	// Tried lists the changes to the request that were built and did
	// not bring the record in, when none did.
	Tried []string `json:"tried,omitempty"`
	// Namespaces hold the id, for StatusOtherNamespace.
	Namespaces []string `json:"namespaces,omitempty"`
}

// Namespacer is implemented by a Source that lists its namespaces
// (*store.Store does): Why uses it to say which namespaces hold a record
// the wall keeps out.
type Namespacer interface {
	Namespaces() ([]string, error)
}

// Why builds the packet of req and says where record id stands in it,
// searching budgets up to a million tokens.
func Why(ctx context.Context, src Source, srch Searcher, req Request, id string) (*Verdict, error) {
	return WhyUpTo(ctx, src, srch, req, id, whyCeiling)
}

// WhyUpTo is Why searching budgets up to ceiling: a server whose answers
// stay under a ceiling offers no budget above it.
func WhyUpTo(ctx context.Context, src Source, srch Searcher, req Request, id string, ceiling int) (*Verdict, error) {
	if src == nil {
		return nil, invalidf("no source: give the store to read from")
	}
	if err := store.ValidID(id); err != nil {
		return nil, invalidValuef(id, "record id %q: %v", id, err)
	}
	req, cfg, err := req.normalize()
	if err != nil {
		return nil, err
	}
	w := &whyer{ctx: ctx, src: src, srch: memoized(srch), cfg: cfg, id: id, work: &requestWork{}, ceiling: min(max(ceiling, req.Budget), whyCeiling)}
	v := &Verdict{NS: req.NS, ID: id, Budget: req.Budget, Ceiling: w.ceiling, Fetch: fetchLine(req.NS, id)}
	p, err := w.build(req, req.Budget)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("why %s: %w", id, ErrCannotFit)
	}
	heads, err := src.Heads(req.NS, []string{id})
	if err != nil {
		return nil, err
	}
	if len(heads) == 1 {
		v.Kind = heads[0].Kind
	}
	switch {
	case w.placeIn(v, p):
		if v.Form != formFull.String() {
			err = w.whole(v, req)
		}
		return v, err
	case len(heads) == 0:
		return v, w.elsewhere(v)
	}
	w.placeOut(v, p)
	if v.Status != StatusSkipped { // a skip does not depend on the budget
		at, err := w.least(req, w.holds)
		if err != nil {
			return nil, err
		}
		if at > 0 {
			v.ComesInAt = at
			w.offer(v, req, at)
			return v, nil
		}
	}
	return v, w.change(v, req, heads[0])
}

// whyer holds what the builds of one Why share.
type whyer struct {
	ctx     context.Context
	src     Source
	srch    Searcher
	cfg     Config
	id      string
	work    *requestWork
	builds  int
	ceiling int // the largest budget tried
}

// build builds r at budget at, as that request built alone would be: nil
// when the budget cannot be met.
func (w *whyer) build(r Request, at int) (*Packet, error) {
	w.builds++
	cfg := w.cfg
	r.Budget, r.Config, r.work = at, &cfg, w.work.own()
	p, err := Build(w.ctx, w.src, w.srch, r)
	if errors.Is(err, ErrCannotFit) {
		return nil, nil
	}
	return p, err
}

// entry returns the record's entry in p.
func (w *whyer) entry(p *Packet) (Entry, bool) {
	if p == nil {
		return Entry{}, false
	}
	i := slices.IndexFunc(p.Records, func(e Entry) bool { return e.ID == w.id })
	if i < 0 {
		return Entry{}, false
	}
	return p.Records[i], true
}

// holds and holdsWhole are the tests least searches for.
func (w *whyer) holds(p *Packet) bool { _, ok := w.entry(p); return ok }

func (w *whyer) holdsWhole(p *Packet) bool {
	e, ok := w.entry(p)
	return ok && e.Form == formFull.String() && e.Truncated == 0
}

// placeIn fills v from the record's entry in p and reports whether p
// holds it; a shortened form takes its note's step and reason.
func (w *whyer) placeIn(v *Verdict, p *Packet) bool {
	e, ok := w.entry(p)
	if !ok {
		return false
	}
	v.Status, v.Kind, v.Rank, v.Form, v.Rule, v.Tokens = StatusIn, e.Kind, e.Rank, e.Form, e.Why, e.Tokens
	if e.Truncated > 0 {
		v.Form = "truncated"
	}
	if n := slices.IndexFunc(p.Deferred, func(n Note) bool { return n.ID == w.id }); n >= 0 {
		v.Step, v.Reason = p.Deferred[n].Step, p.Deferred[n].Reason
	}
	return true
}

// placeOut fills v for a record p does not hold: its deferral note, its
// skip, or that nothing of the request reached it.
func (w *whyer) placeOut(v *Verdict, p *Packet) {
	if n := slices.IndexFunc(p.Deferred, func(n Note) bool { return n.ID == w.id }); n >= 0 {
		note := p.Deferred[n]
		v.Status, v.Rank, v.Step, v.Tokens, v.Reason = StatusDeferred, note.Rank, note.Step, note.Tokens, note.Reason
		return
	}
	if s := slices.IndexFunc(p.Skipped, func(s Skip) bool { return s.ID == w.id }); s >= 0 {
		v.Status, v.Reason = StatusSkipped, "not loaded: "+p.Skipped[s].Reason
		return
	}
	v.Status, v.Reason = StatusNotCandidate, notReached(p.Request)
}

// notReached says what a request looks for, none of which found the
// record.
func notReached(r Request) string {
	var ways []string
	if r.searches() {
		ways = append(ways, "no hit for the query")
	}
	if len(r.Focus) > 0 {
		ways = append(ways, fmt.Sprintf("not the focus, nor linked to it within %d hop(s), nor named by it", max(r.Hops, 1)))
	}
	if len(ways) == 0 {
		ways = append(ways, "the request has no query and no focus")
	}
	return "not a candidate: " + strings.Join(ways, "; ")
}

// whole finds the least budget that shows a shortened record whole.
func (w *whyer) whole(v *Verdict, req Request) error {
	at, err := w.least(req, w.holdsWhole)
	if at > 0 {
		v.WholeAt = at
		w.offer(v, req, at)
	}
	return err
}

// elsewhere fills v for an id the namespace does not hold: the other
// namespaces that do, or none.
func (w *whyer) elsewhere(v *Verdict) error {
	v.Status, v.Fetch = StatusMissing, ""
	v.Reason = fmt.Sprintf("no record %q in namespace %s", w.id, v.NS)
	lister, ok := w.src.(Namespacer)
	if !ok {
		return nil
	}
	all, err := lister.Namespaces()
	if err != nil {
		return err
	}
	for _, ns := range all {
		if ns == v.NS {
			continue
		}
		h, err := w.src.Heads(ns, []string{w.id})
		if err != nil {
			return err
		}
		if len(h) == 1 {
			v.Namespaces = append(v.Namespaces, ns)
		}
	}
	if len(v.Namespaces) > 0 {
		v.Status = StatusOtherNamespace
		v.Reason = fmt.Sprintf("the wall: namespace %s has no record %q, and a packet never crosses into %s; ask there with --ns",
			v.NS, w.id, strings.Join(v.Namespaces, ", "))
		v.Fetch = fetchLine(v.Namespaces[0], w.id)
	}
	return nil
}

// least is the least budget above req's at which ok holds for the
// packet, checked: ok holds at it and not one token under. 0 when none
// up to the ceiling, or the builds ran out first.
func (w *whyer) least(req Request, ok func(*Packet) bool) (int, error) {
	lo, hi := req.Budget, 0 // ok fails at lo, holds at hi
	probe := func(at int) error {
		p, err := w.build(req, at)
		if err == nil && ok(p) {
			hi = at
		} else if err == nil {
			lo = at
		}
		return err
	}
	for at := max(2*lo, 64); hi == 0; at *= 2 {
		if at = min(at, w.ceiling); at <= lo || w.builds >= maxWhyBuilds {
			return 0, nil
		}
		if err := probe(at); err != nil {
			return 0, err
		}
	}
	for hi-lo > 1 {
		if w.builds >= maxWhyBuilds {
			return 0, nil
		}
		if err := probe(lo + (hi-lo)/2); err != nil {
			return 0, err
		}
	}
	return hi, nil
}

// offer sets v's command and request to r at budget at.
func (w *whyer) offer(v *Verdict, r Request, at int) {
	r.Budget = at
	v.Command, v.Request = commandLine(w.cfg, r), &r
}

// change looks for a change to the request that brings the record in:
// each is built at the request's budget, then, where the record is a
// candidate of the changed request but deferred, the least budget that
// holds it is searched.
func (w *whyer) change(v *Verdict, req Request, head store.Record) error {
	changes := requestChanges(req, head, v.Reason)
	var deferred []requestChange
	for _, c := range changes {
		if w.builds >= maxWhyBuilds {
			return nil
		}
		v.Tried = append(v.Tried, c.words)
		r := c.apply(req)
		p, err := w.build(r, req.Budget)
		if err != nil {
			return err
		}
		if w.holds(p) {
			v.Tried = nil
			v.Change, v.ComesInAt = c.words, req.Budget
			w.offer(v, r, req.Budget)
			return nil
		}
		if p != nil && slices.ContainsFunc(p.Deferred, func(n Note) bool { return n.ID == w.id }) {
			deferred = append(deferred, c)
		}
	}
	for _, c := range deferred {
		r := c.apply(req)
		at, err := w.least(r, w.holds)
		if err != nil || at > 0 {
			if at > 0 {
				v.Tried = nil
				v.Change, v.ComesInAt = c.words, at
				w.offer(v, r, at)
			}
			return err
		}
	}
	return nil
}

// requestChange is one change to a request that may bring a record in.
type requestChange struct {
	words string
	apply func(Request) Request
}

// requestChanges lists the changes worth a build for a record of head's
// kind kept out for reason, the likeliest first: the filter or condition
// the reason names, story time, then a wider reach.
func requestChanges(req Request, head store.Record, reason string) []requestChange {
	var out []requestChange
	add := func(words string, apply func(*Request)) {
		out = append(out, requestChange{words: words, apply: func(r Request) Request {
			r.Focus, r.When, r.Kinds, r.ExcludeKinds = slices.Clone(r.Focus), slices.Clone(r.When), slices.Clone(r.Kinds), slices.Clone(r.ExcludeKinds)
			apply(&r)
			return r
		}})
	}
	kind := head.Kind
	if len(req.Kinds) > 0 && !slices.Contains(req.Kinds, kind) {
		add("--kind "+strings.Join(append(slices.Clone(req.Kinds), kind), ","), func(r *Request) { r.Kinds = append(r.Kinds, kind) })
	}
	if slices.Contains(req.ExcludeKinds, kind) {
		add("--exclude-kind without "+kind, func(r *Request) {
			r.ExcludeKinds = slices.DeleteFunc(r.ExcludeKinds, func(k string) bool { return k == kind })
		})
	}
	if i := strings.Index(reason, "needs "); i >= 0 {
		for _, part := range strings.Split(reason[i+len("needs "):], " or ") {
			switch {
			case strings.HasPrefix(part, "--task "):
				task := strings.TrimPrefix(part, "--task ")
				add(part, func(r *Request) { r.Task = task })
			case strings.HasPrefix(part, "--when "):
				cond := strings.TrimPrefix(part, "--when ")
				add(part, func(r *Request) { r.When = append(r.When, cond) })
			case part == "an explicit request" && kind != "":
				add("--kind "+kind, func(r *Request) { r.Kinds = append(r.Kinds, kind) })
			}
		}
	}
	if at, ok := timeItHeld(req, head); ok {
		add("--at "+at, func(r *Request) { r.At = at })
	}
	if req.AsOf != -1 {
		add("--as-of=-1 (no story time)", func(r *Request) { r.AsOf = -1 })
	}
	if req.Task == "draft" || req.Task == "revise" {
		add("--task plan (sees ahead in the story)", func(r *Request) { r.Task = "plan" })
	}
	if len(req.Focus) > 0 && req.Hops < 2 {
		add("--hops 2", func(r *Request) { r.Hops = 2 })
	}
	if len(req.Focus) > 0 && req.MentionsDepth < 2 {
		add("--mentions-depth 2", func(r *Request) { r.MentionsDepth = 2 })
	}
	if req.Query != "" && !req.ScanQuery {
		add("--scan-query", func(r *Request) { r.ScanQuery = true })
	}
	return out
}

// timeItHeld is a time at which head held, for a record out of the
// request's time: the second before its valid_until, or its valid_from.
func timeItHeld(req Request, head store.Record) (string, bool) {
	if until, ok := facts.ParseTime(head.Meta[facts.MetaValidUntil]); ok && !req.at.Before(until) {
		return facts.FormatTime(until.Add(-time.Second)), true
	}
	if from, ok := facts.ParseTime(head.Meta[facts.MetaValidFrom]); ok && req.at.Before(from) {
		return facts.FormatTime(from), true
	}
	return "", false
}

// fetchLine is the command that prints record id of ns.
func fetchLine(ns, id string) string {
	return "lore get --ns " + shellQuote(ns) + " " + shellQuote(id)
}

// Text is the verdict as `lore why` prints it.
func (v *Verdict) Text() string {
	var b strings.Builder
	kind := ""
	if v.Kind != "" {
		kind = " (" + v.Kind + ")"
	}
	fmt.Fprintf(&b, "%s%s, namespace %s, budget %s: ", v.ID, kind, v.NS, numfmt.Thousands(v.Budget))
	switch v.Status {
	case StatusIn:
		fmt.Fprintf(&b, "in the packet, rank %d, %s, %s tokens\n", v.Rank, v.Form, numfmt.Thousands(v.Tokens))
		fmt.Fprintf(&b, "  brought in by: %s\n", v.Rule)
		if v.Reason != "" {
			fmt.Fprintf(&b, "  shortened at ladder step %d: %s\n", v.Step, v.Reason)
		}
		if v.Form != formFull.String() {
			if v.WholeAt > 0 {
				fmt.Fprintf(&b, "  whole from budget %s (%s shows it shortened)\n", numfmt.Thousands(v.WholeAt), numfmt.Thousands(v.WholeAt-1))
			} else {
				fmt.Fprintf(&b, "  not whole at any budget up to %s\n", numfmt.Thousands(v.Ceiling))
			}
		}
	case StatusDeferred:
		fmt.Fprintf(&b, "deferred, rank %d, %s tokens whole\n  kept out at ladder step %d: %s\n", v.Rank, numfmt.Thousands(v.Tokens), v.Step, v.Reason)
	default:
		fmt.Fprintf(&b, "out of the packet\n  %s\n", v.Reason)
	}
	if v.Status != StatusIn {
		switch {
		case v.ComesInAt > 0 && v.Change != "":
			fmt.Fprintf(&b, "  comes in with %s at budget %s\n", v.Change, numfmt.Thousands(v.ComesInAt))
		case v.ComesInAt > 0:
			fmt.Fprintf(&b, "  comes in at budget %s (%s leaves it out)\n", numfmt.Thousands(v.ComesInAt), numfmt.Thousands(v.ComesInAt-1))
		case v.Status != StatusMissing && v.Status != StatusOtherNamespace:
			tried := ""
			if len(v.Tried) > 0 {
				tried = ", nor " + strings.Join(v.Tried, ", nor ")
			}
			fmt.Fprintf(&b, "  nothing tried brings it in: no budget up to %s%s\n", numfmt.Thousands(v.Ceiling), tried)
		}
	}
	if v.Command != "" {
		fmt.Fprintf(&b, "  %s\n", v.Command)
	}
	if v.Fetch != "" && v.Status != StatusIn {
		fmt.Fprintf(&b, "  the record itself: %s\n", v.Fetch)
	}
	return b.String()
}
