package packet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/mention"
	"github.com/lorekeep/lore/store"
)

// namingKinds are the kinds whose title is a name: a record of one of
// them is brought in by its title as well as by its aliases and keys.
// They are the store's, whose name keys file their titles by word;
// Config.NamingKinds adds to them (and then packets walk the names).
// Scenes, chapters and timeline entries are not among them: "The Storm"
// as a scene title is not a mention.
var namingKinds = store.NamingKinds

// defaultMentionShare is the percentage of the budget that records brought
// in by recursive mentions (--mentions-depth 2) may take.
const defaultMentionShare = 10

// mentions adds the records the focus text names (pipeline step 1,
// lorebook-style): every record of the namespace whose title (for naming
// kinds), alias or key the focus records' title, summary or body say,
// and with Request.ScanQuery the query too; and, as MatchPreviousMention,
// what the record just before a focus in story order says. Records that
// story time hides lend no names, so a later scene's aliases never leak
// in. At
// MentionsDepth 2 the text of each record so mentioned brings in more,
// within Config.MentionShare of the budget. ms is the focus texts and
// their names' matcher, made by prepareMentions while the search ran.
func (g *gatherer) mentions(isFocus func(string) bool, ms *mentionScan) error {
	if ms.err != nil {
		return ms.err
	}
	first := map[string]bool{}
	if ms.m != nil {
		for _, f := range g.req.Focus {
			for _, id := range g.scan(ms.m, MatchMention, f, 1, "", f, ms.texts[f]...) {
				first[id] = true
			}
		}
		if ms.scanQuery {
			for _, id := range g.scan(ms.m, MatchMention, "the query", 1, "", "", g.req.Query) {
				first[id] = true
			}
		}
		// The characters present in a scene are often not named in it (a
		// pronoun, "his wife", a line of dialogue) but are in the scene
		// just before: its names come in too, ranked below the focus's
		// own (a record the focus names keeps that relation).
		for _, p := range sortedKeys(ms.previous) {
			g.scan(ms.m, MatchPreviousMention, p, 2, p, g.cands[p].rels[0].from, ms.previous[p]...)
		}
	}
	// The heads the names came from may be partial (Namer): read the
	// whole heads of the records found.
	if err := g.readHeads(); err != nil {
		return err
	}
	if g.req.MentionsDepth < 2 || len(first) == 0 {
		return nil
	}
	return g.mentionsDeeper(isFocus, sortedKeys(first), first)
}

// mentionScan is what mentions scans the focus with: its texts and the
// matcher of the names they can say (nil: none), or the error reading
// them gave. It depends on the focus and story time alone, so
// prepareMentions makes it before the hits are in (see searchahead.go).
type mentionScan struct {
	texts     map[string][]string // by focus id: title, summary, body
	previous  map[string][]string // the same of the records just before a focus (MatchPreviousMention)
	scanQuery bool                // the query is scanned too
	m         *mention.Matcher
	err       error // returned where mentions runs, as it was before
}

// prepareMentions reads the focus texts and builds the matcher of the
// names of the namespace they hold words of, for mentions.
func (g *gatherer) prepareMentions(isFocus func(string) bool) *mentionScan {
	ms := &mentionScan{}
	if !g.uses(MatchMention1) && !g.uses(MatchMention) && !g.uses(MatchPreviousMention) {
		return ms
	}
	ms.scanQuery = g.req.ScanQuery && strings.TrimSpace(g.req.Query) != ""
	if len(g.req.Focus) == 0 && !ms.scanQuery {
		return ms
	}
	var previous []string
	if g.uses(MatchPreviousMention) {
		previous = g.previousInStory()
	}
	bodies, err := g.src.Bodies(g.req.NS, append(slices.Clone(g.req.Focus), previous...))
	if err != nil {
		ms.err = badvalue.Errorf(g.req.NS, "read focus records in ns %q: %w", g.req.NS, err)
		return ms
	}
	ms.texts, ms.previous = map[string][]string{}, map[string][]string{}
	var all []string
	for _, f := range g.req.Focus {
		h := g.heads[f]
		ms.texts[f] = []string{h.Title, h.Summary, bodies[f]}
		all = append(all, ms.texts[f]...)
	}
	for _, p := range previous {
		h := g.heads[p]
		ms.previous[p] = []string{h.Title, h.Summary, bodies[p]}
		all = append(all, ms.previous[p]...)
	}
	if ms.scanQuery {
		all = append(all, g.req.Query)
	}
	set, err := g.namesFor(all)
	if err != nil || len(set.names) == 0 {
		ms.err = err
		return ms
	}
	// Only the names whose words these texts hold: the build stays small
	// however large the namespace.
	ms.m = g.req.work.matcherFor(set, g.mentionKey(ms.scanQuery), func() *mention.Matcher {
		return mention.New(g.names(set, set.positions(all), isFocus))
	})
	return ms
}

// Namer is implemented by a Source that can list the heads that go by a
// name without decoding the rest (*store.Store does): the records with
// aliases or keys, and those of the given kinds, each with at least its
// ID, Kind, Title, Aliases, Keys, Meta and Order. Without it, mentions
// list the namespace through List.
type Namer interface {
	NamedHeads(ns string, kinds []string) ([]store.Record, error)
}

// namedHeads lists the heads a mention scan reads (nameSet keeps what
// it needs of them). Heads from a Namer may be partial, so they are not
// kept among the heads read.
func (g *gatherer) namedHeads() ([]store.Record, error) {
	if n, ok := g.src.(Namer); ok {
		heads, err := n.NamedHeads(g.req.NS, g.namingKinds())
		if err != nil {
			return nil, badvalue.Errorf(g.req.NS, "names of ns %q: %w", g.req.NS, err)
		}
		return g.ownNS(heads), nil
	}
	// A store reads only the heads that go by a name; another Source may
	// list them all, and names filters them again.
	return g.listWith(store.ListOptions{NS: g.req.NS, Named: true, NamedKinds: g.namingKinds()})
}

// ownNS keeps the heads of the request's namespace (or of none named): a
// Source's name reads must not let another namespace's names in.
func (g *gatherer) ownNS(heads []store.Record) []store.Record {
	return slices.DeleteFunc(heads, func(h store.Record) bool { return h.NS != "" && h.NS != g.req.NS })
}

func (g *gatherer) naming(kind string) bool {
	return slices.Contains(namingKinds, kind) || slices.Contains(g.cfg.NamingKinds, kind)
}

func (g *gatherer) namingKinds() []string {
	return append(slices.Clone(namingKinds), g.cfg.NamingKinds...)
}

// scan adds a mention relation for every record the texts of src name
// (the first match of each), skipping src itself and the focus, and
// returns the ids it added, in text order. A match that names more than
// one record by title or alias is ambiguous: each is a candidate, its
// why says so, and so does a warning. (Several records sharing a key is
// what keys are for.)
func (g *gatherer) scan(m *mention.Matcher, match, src string, hops int, via, from string, texts ...string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, text := range texts {
		for _, mt := range m.Scan(text) {
			named := mt.IDs()
			said := strings.Join(strings.Fields(mt.Text), " ") // a name across a line break, on one line
			var byName []string
			for _, n := range mt.Names {
				if n.Via != "key" {
					byName = append(byName, n.ID)
				}
			}
			slices.Sort(byName)
			byName = slices.Compact(byName)
			if len(byName) > 1 {
				g.warns = append(g.warns, fmt.Sprintf("ambiguous mention: %q in %s names %s; all are candidates",
					said, src, someIDs(byName, " and ")))
			}
			for _, id := range named {
				if id == src || seen[id] || slices.Contains(g.req.Focus, id) {
					continue
				}
				seen[id] = true
				why := fmt.Sprintf("mentioned as %q in %s", said, src)
				if len(byName) > 1 && slices.Contains(byName, id) {
					why += fmt.Sprintf(" (ambiguous: also %s)", someIDs(slices.DeleteFunc(slices.Clone(byName), func(o string) bool { return o == id }), ", "))
				}
				g.add(id, relation{match: match, hops: hops, from: from, via: via, why: why})
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// maxNamedIDs is how many of the records an ambiguous name names a why or
// a warning lists: a name shared by hundreds would otherwise put all
// their ids in every one of their headings.
const maxNamedIDs = 3

// someIDs joins ids with sep, or, past maxNamedIDs of them, the first
// ones and how many more.
func someIDs(ids []string, sep string) string {
	if len(ids) <= maxNamedIDs {
		return strings.Join(ids, sep)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:maxNamedIDs], ", "), len(ids)-maxNamedIDs)
}

// mentionsDeeper scans the records the focus mentions for the names they
// say in turn (depth 2). The records only this brings in may take
// Config.MentionShare of the budget, by their cached sizes, in the order
// met (mentioning records by id, then text order); the rest are skipped
// with the reason. Records already candidates cost nothing more.
func (g *gatherer) mentionsDeeper(isFocus func(string) bool, ids []string, first map[string]bool) error {
	bodies, err := g.src.Bodies(g.req.NS, ids)
	if err != nil {
		return badvalue.Errorf(g.req.NS, "read mentioned records in ns %q: %w", g.req.NS, err)
	}
	var all []string
	for _, id := range ids {
		h := g.heads[id]
		all = append(all, h.Title, h.Summary, bodies[id])
	}
	set, err := g.namesFor(all)
	if err != nil {
		return err
	}
	m := mention.New(g.names(set, set.positions(all), isFocus))
	before := make(map[string]bool, len(g.cands))
	for id := range g.cands {
		before[id] = true
	}
	share := g.req.Budget * g.cfg.MentionShare / 100
	type met struct{ id, in string }
	var found []met
	for _, id := range ids {
		h := g.heads[id]
		origin := ""
		if c, ok := g.cands[id]; ok && len(c.rels) > 0 {
			origin = c.rels[0].from
		}
		for _, n := range g.scan(m, MatchMention, id, 2, id, origin, h.Title, h.Summary, bodies[id]) {
			if !before[n] && !first[n] {
				found = append(found, met{n, id})
			}
		}
	}
	if err := g.readHeads(); err != nil { // their sizes
		return err
	}
	used := 0
	taken := map[string]bool{} // met at depth 2 only: within the share or not
	for _, f := range found {
		admit, decided := taken[f.id]
		if !decided {
			size := headSize(g.heads[f.id], g.req.Counter.Name())
			admit = used+size <= share
			if admit {
				used += size
			} else {
				g.skips = append(g.skips, Skip{ID: f.id, Kind: g.heads[f.id].Kind, Reason: fmt.Sprintf(
					"mentioned in %s (mentions depth 2), past the %d%% of the budget (%d tokens) recursive mentions may take",
					f.in, g.cfg.MentionShare, share)})
			}
			taken[f.id] = admit
		}
		if !admit {
			delete(g.cands, f.id) // only this brought it in
		}
	}
	return nil
}

// headSize is a record's cached token count under counter (title and
// body), or its bytes/4 when none is cached.
func headSize(r store.Record, counter string) int {
	if tc, ok := r.Tokens[counter]; ok {
		return tc.Title + tc.Body
	}
	return (len(r.Title) + r.BodyBytes) / 4
}
