package packet

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/store"
)

// Relations a Rule can match: how a candidate came into the packet.
const (
	MatchFocus           = "focus"            // a focus record of the request
	MatchPOV             = "pov"              // the POV character of a focus (meta.pov or a "pov" link)
	MatchNeighbor1       = "neighbor1"        // a graph neighbour one hop from a focus
	MatchNeighbor        = "neighbor"         // a graph neighbour within the request's hops
	MatchHit             = "hit"              // a full-text hit for the query
	MatchHitNeighbor     = "hit-neighbor"     // a one-hop neighbour of a hit
	MatchObligation      = "obligation"       // an open obligation due in scope
	MatchTimeline        = "timeline"         // a timeline entry bounding the focus
	MatchPinned          = "pinned"           // a pinned record of the namespace
	MatchRecent          = "recent"           // one of the most recently updated records
	MatchInPlay          = "in-play"          // linked to a character in play (the POV or a one-hop neighbour of a focus)
	MatchMention1        = "mention1"         // named (title, alias or key) in a focus's text, or with ScanQuery the query
	MatchMention         = "mention"          // named in a focus's text, or (MentionsDepth 2) in the text of a record it names
	MatchAdjacent        = "adjacent"         // the record of a focus's kind just before it in story order (and just after, for plan and audit)
	MatchPOVLink         = "pov-link"         // linked one hop from the POV character of a focus
	MatchPreviousMention = "mention-previous" // named in the text of the record just before a focus in story order
	MatchAny             = "any"              // any of the above, or a pull of the rule's kinds
	matchPull            = "pull"             // internal: listed because a Pull rule named its kind
	conditionNever       = "never"            // a rule that never loads (rank 11)
	defaultNeighbor      = 60                 // percent of its hit's score a hit's neighbour gets
	defaultNext          = 40                 // ... the record that follows the hit in a sequence
	defaultPrevious      = 30                 // ... the record that precedes it
	defaultAfterNext     = 80                 // ... the record two after it
	defaultContext       = 20                 // percent of the adjacent hits' scores a hit gains
	defaultWindow        = 50                 // percent of the best hit within two steps a hit gains
	defaultLongProse     = 120                // body tokens above which prose counts as long
	defaultExcerpt       = 105                // tokens of an agent packet's excerpt of a long body
	defaultRecentSize    = 5                  // recent records pulled by the agent profile
	defaultNoteShare     = 5                  // percent of the budget for notes listed one by one
	defaultProfile       = "novel"            // profile used when the request names none
	defaultEncoding      = "o200k_base"       // the store's default encoding
	defaultGetCommand    = "lore get --ns"    // fetch handle prefix
)

var validMatches = []string{MatchFocus, MatchPOV, MatchNeighbor1, MatchNeighbor, MatchHit,
	MatchHitNeighbor, MatchObligation, MatchTimeline, MatchPinned, MatchRecent, MatchInPlay, MatchMention1, MatchMention, MatchAdjacent, MatchPOVLink, MatchPreviousMention, MatchAny}

// Conditions a Rule's When can name: the task modes and the --when flags.
var validConditions = []string{"draft", "revise", "plan", "audit", "power", "info-control", "thematic", conditionNever}

// Rule maps candidates to a rank. The rules of a profile are tried in
// order and the first that matches a candidate decides its rank; a
// candidate no rule matches is not loaded.
type Rule struct {
	// Rank is what the rule gives: 1 is the most important.
	Rank int `json:"rank"`
	// Match names the relation to the focus the candidate must have: one
	// of focus, pov, neighbor1, neighbor, hit, hit-neighbor, obligation,
	// timeline, pinned, recent, in-play, mention1, mention, any.
	Match string `json:"match"`
	// Kinds restricts the rule to records of these kinds; empty means any.
	Kinds []string `json:"kinds,omitempty"`
	// When is the condition under which matching records are loaded:
	// empty (always), a task mode or --when value, several joined by "|"
	// (any of them), or "never". A candidate whose rule's condition is
	// false is not loaded at all.
	When string `json:"when,omitempty"`
	// Pull lists every record of Kinds in the namespace as a candidate
	// while the condition holds (style DNA, power rules: records that
	// apply without being linked).
	Pull bool `json:"pull,omitempty"`
	// Label names the rule in "why" texts of pulled records.
	Label string `json:"label,omitempty"`
}

// Profile is a rank table and what the ladder may not touch.
type Profile struct {
	// Rules in the order they are tried.
	Rules []Rule `json:"rules"`
	// Protected ranks are never dropped; step 5 of the ladder (split)
	// reports them when they alone exceed the budget.
	Protected []int `json:"protected"`
	// Recent is how many recently updated records a "recent" rule pulls.
	// Default 5.
	Recent int `json:"recent,omitempty"`
	// Monotone keeps every record of a smaller budget's packet in a
	// bigger one's. Without Grow the packet is a prefix of the packet
	// order (after the protected ones): once a record does not fit,
	// nothing less important is put back in its place. Set for agent and
	// novel. Where a
	// protected record has a shorter form, no unprotected record comes in
	// while it is shortened (the skill's ladder: ranks 10 to 6 go first),
	// and a protected record a smaller budget held beside another's
	// summary stays at every bigger budget (see arrange). Not held for a
	// kind whose overflow action truncates.
	Monotone bool `json:"monotone,omitempty"`
	// Grow, with Monotone, fills the budget as if it grew from nothing
	// (budget.Request.Grow): at each size the most important records the
	// room left holds come in, and stay. A record too large for the room
	// left then blocks nothing after it, and a bigger budget still holds
	// every record a smaller one does. Set for agent.
	Grow bool `json:"grow,omitempty"`
	// NoteShare replaces Config.NoteShare for this profile's packets; -1
	// lists no note one by one (every deferred record is counted in a
	// group line). The agent profile's is -1: a note without its
	// record's text tells a model little that the group line and its
	// handle do not, and saves it the tokens.
	NoteShare int `json:"note_share,omitempty"`
	// Excerpt is the size in tokens of the excerpt that shows a long body
	// (excerpt.go): a record neither protected nor pinned whose body is
	// more than a fifth longer than this size appears as the passage the
	// query matches, of about this size, with the tokens left out and a
	// handle to fetch it whole. 0 shows every body whole. The agent
	// profile's is 105: a passage of about 100 tokens, a paragraph or
	// two, holds a statement with its context (and is what the shared
	// evidence scorer credits); 120 held less evidence on every set.
	Excerpt int `json:"excerpt,omitempty"`
	// Unfocused names the profile that ranks and fills a request with no
	// focus. A rank table built around a focus (the active scene, its POV
	// character, what it links to) has nothing to rank but the search's
	// hits when there is none, and then ranks them as a bare search
	// does. The novel profile's is "novel-search": its own rules, walls
	// and pulls, with the agent profile's fill (hits with their
	// neighbours, a growing fill, excerpts of long bodies). Empty: the
	// profile ranks every request itself.
	Unfocused string `json:"unfocused,omitempty"`
}

// Config is the packet part of lore.json. Its zero value means defaults;
// fields left empty take the values of DefaultConfig.
type Config struct {
	// DefaultProfile is used when a request names none. Default "novel".
	DefaultProfile string `json:"default_profile,omitempty"`
	// Profiles by name; a profile given here replaces the built-in one of
	// the same name. Built in: "novel", "novel-search" (the novel
	// profile's for a request with no focus) and "agent".
	Profiles map[string]Profile `json:"profiles,omitempty"`
	// Overflow is the overflow action per kind: "drop" (default),
	// "truncate" (cut the body at a token boundary, keeping at least 32
	// tokens, with a marker and a fetch handle) or "fail" (the packet is
	// refused with ErrCannotFit). Protected and pinned records are never
	// cut: the action applies to the ranks step 1 may drop.
	Overflow map[string]budget.Action `json:"overflow,omitempty"`
	// Scopes are the named budgets offered in split proposals. Default
	// scene 8000, chapter 20000, arc 60000, novel 120000.
	Scopes map[string]int `json:"scopes,omitempty"`
	// HitLimit caps the search hits a packet considers. Default 0: the
	// budget decides: 20, 80, 320... hits, the first depth of at least
	// one hit per 60 tokens, deeper while the hits cost under three
	// quarters of the budget; a bigger budget never looks less deep.
	HitLimit int `json:"hit_limit,omitempty"`
	// NeighborShare is the percentage of a hit's score that its one-hop
	// neighbours get, so that within their rank they follow the hit that
	// brought them. Default 60.
	NeighborShare int `json:"neighbor_share,omitempty"`
	// NextShare and PreviousShare replace NeighborShare for the records
	// a hit's "next" link leads to and comes from: in a sequence (turns of
	// a conversation, scenes) what follows a hit, the reply, tells more
	// than what precedes it. Defaults 40 and 30, measured on
	// question-answer data (docs/bench-history).
	NextShare     int `json:"next_share,omitempty"`
	PreviousShare int `json:"previous_share,omitempty"`
	// AfterNextShare is the percentage of a hit's score that the record
	// two "next" links after it gets: in a conversation of two, the hit's
	// speaker's next turn, which often says what the hit began while the
	// reply between them asks or reacts. Only a record whose meta
	// "speaker" is the hit's gets it. Default 80, measured on
	// question-answer data (docs/bench-history); -1 turns it off.
	AfterNextShare int `json:"after_next_share,omitempty"`
	// ContextShare and WindowShare raise a hit's score by the hits around
	// it in its sequence (records chained by "next" links): ContextShare
	// percent of the scores of the hits just before and after it, plus
	// WindowShare percent of the best score among the hits within two
	// steps. They apply where the profile takes hit neighbours. Defaults
	// 20 and 50, measured on question-answer data (docs/bench-history); -1
	// turns one off.
	ContextShare int `json:"context_share,omitempty"`
	WindowShare  int `json:"window_share,omitempty"`
	// LongProse is the body size in tokens from which step 2 of the ladder
	// may replace a record by its summary. Default 120.
	LongProse int `json:"long_prose,omitempty"`
	// ObligationKinds are pulled as obligations. Default ["obligation"].
	ObligationKinds []string `json:"obligation_kinds,omitempty"`
	// ObligationHorizon is, per scope, how many story positions past the
	// focus an open obligation may be due and still be pulled; -1 means
	// no limit. A request whose Scope is empty or not listed has no
	// limit. Open obligations already due before the focus are pulled
	// whatever the horizon ("overdue since N"). Default scene 2, chapter
	// 10, arc 40, novel -1.
	ObligationHorizon map[string]int `json:"obligation_horizon,omitempty"`
	// TimelineKinds bound the focus by order and are the "history" that
	// step 4 collapses. Default ["timeline"].
	TimelineKinds []string `json:"timeline_kinds,omitempty"`
	// NoteShare is the percentage of the budget the deferral notes may
	// take one by one; beyond it, the least important notes are grouped
	// by kind in the rendered packet. Default 25.
	NoteShare int `json:"note_share,omitempty"`
	// InPlayKinds are the kinds whose links an "in-play" rule follows from
	// the POV and the one-hop neighbours of a focus (the characters in
	// the scene). Default ["character"].
	InPlayKinds []string `json:"in_play_kinds,omitempty"`
	// NamingKinds are kinds whose titles are names, besides the built-in
	// canon, character, faction, item and location: a focus that says
	// such a title brings the record in. Aliases and keys do so for any
	// kind.
	NamingKinds []string `json:"naming_kinds,omitempty"`
	// MentionShare is the percentage of the budget that the records
	// recursive mentions bring in (Request.MentionsDepth 2) may take.
	// Default 10.
	MentionShare int `json:"mention_share,omitempty"`
}

var canonKinds = []string{"canon", "character", "event", "fact", "faction", "item", "location",
	"object", "organization", "place", "species", "world"}

// DefaultConfig returns the built-in configuration: the novel profile with
// the context-budget skill's eleven ranks and the agent profile.
func DefaultConfig() Config {
	novel := Profile{
		Protected: []int{1, 2, 3, 4, 5},
		Monotone:  true,
		Rules: []Rule{
			{Rank: 1, Match: MatchFocus},
			{Rank: 1, Match: MatchPOV},
			{Rank: 1, Match: MatchNeighbor1, Kinds: []string{"constraint"}},
			{Rank: 7, Match: MatchAny, Kinds: []string{"power", "power-rule", "magic"}, When: "power", Pull: true, Label: "power rule in force"},
			{Rank: 8, Match: MatchAny, Kinds: []string{"style"}, When: "draft|revise", Pull: true, Label: "style for drafting"},
			{Rank: 9, Match: MatchAny, Kinds: []string{"reader-knowledge", "reader"}, When: "info-control", Pull: true, Label: "reader knowledge"},
			{Rank: 10, Match: MatchAny, Kinds: []string{"theme", "motif", "trope"}, When: "thematic", Pull: true, Label: "theme"},
			{Rank: 11, Match: MatchAny, Kinds: []string{"branch", "novel"}, When: conditionNever},
			{Rank: 1, Match: MatchPinned}, // pinned content is never dropped: always a candidate
			{Rank: 6, Match: MatchAny, Kinds: []string{"relationship"}},
			{Rank: 6, Match: MatchInPlay, Kinds: []string{"relationship"}},
			{Rank: 4, Match: MatchObligation},
			{Rank: 5, Match: MatchTimeline},
			{Rank: 2, Match: MatchNeighbor1, Kinds: canonKinds},
			{Rank: 2, Match: MatchMention1},
			{Rank: 2, Match: MatchPOVLink, Kinds: canonKinds},
			{Rank: 3, Match: MatchNeighbor},
			{Rank: 3, Match: MatchAdjacent},
			{Rank: 3, Match: MatchPreviousMention},
			{Rank: 6, Match: MatchHit},
			{Rank: 6, Match: MatchMention},
		},
	}
	// novel-search is the novel profile for a question with no focus
	// (Profile.Unfocused): the same rules, walls and pulls, and the hits
	// ranked with their neighbours and filled as the agent profile's are.
	// Measured on story passages (fairytale-dev, 2,000 questions), the
	// novel profile's own fill held .695 / .878 / .955 / .988 / .994 of
	// the evidence at 500 / 1k / 2k / 4k / 8k, bm25 .752 / .884 / .958 /
	// .983 / .988; this one .818 / .940 / .989 / .999 / .999.
	novelSearch := novel
	novelSearch.Rules = append(slices.Clone(novel.Rules), Rule{Rank: 6, Match: MatchHitNeighbor})
	novelSearch.Grow = true
	novelSearch.NoteShare = -1
	novelSearch.Excerpt = defaultExcerpt
	novel.Unfocused = "novel-search"
	agent := Profile{
		Protected: []int{1, 2},
		Recent:    defaultRecentSize,
		Monotone:  true,
		Grow:      true,
		NoteShare: -1,
		Excerpt:   defaultExcerpt,
		Rules: []Rule{
			{Rank: 1, Match: MatchFocus},
			{Rank: 1, Match: MatchPinned},
			{Rank: 2, Match: MatchAny, Kinds: []string{"core"}, Pull: true, Label: "core memory"},
			{Rank: 3, Match: MatchHit},
			{Rank: 3, Match: MatchHitNeighbor},
			{Rank: 4, Match: MatchNeighbor1},
			{Rank: 5, Match: MatchNeighbor},
			{Rank: 6, Match: MatchRecent},
		},
	}
	return Config{
		DefaultProfile:    defaultProfile,
		Profiles:          map[string]Profile{"novel": novel, "novel-search": novelSearch, "agent": agent},
		Scopes:            map[string]int{"scene": 8000, "chapter": 20000, "arc": 60000, "novel": 120000},
		NeighborShare:     defaultNeighbor,
		NextShare:         defaultNext,
		PreviousShare:     defaultPrevious,
		AfterNextShare:    defaultAfterNext,
		ContextShare:      defaultContext,
		WindowShare:       defaultWindow,
		LongProse:         defaultLongProse,
		ObligationKinds:   []string{"obligation"},
		ObligationHorizon: map[string]int{"scene": 2, "chapter": 10, "arc": 40, "novel": -1},
		TimelineKinds:     []string{"timeline"},
		InPlayKinds:       []string{"character"},
		NoteShare:         defaultNoteShare,
		MentionShare:      defaultMentionShare,
	}
}

// withDefaults returns c with its empty fields filled from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.DefaultProfile == "" {
		c.DefaultProfile = d.DefaultProfile
	}
	profiles := make(map[string]Profile, len(d.Profiles)+len(c.Profiles))
	for name, p := range d.Profiles {
		profiles[name] = p
	}
	for name, p := range c.Profiles {
		if p.Recent == 0 {
			p.Recent = defaultRecentSize
		}
		profiles[name] = p
	}
	c.Profiles = profiles
	if c.Overflow == nil {
		c.Overflow = d.Overflow
	}
	if c.Scopes == nil {
		c.Scopes = d.Scopes
	}
	if c.NeighborShare == 0 {
		c.NeighborShare = d.NeighborShare
	}
	if c.NextShare == 0 {
		c.NextShare = d.NextShare
	}
	if c.ContextShare == 0 {
		c.ContextShare = d.ContextShare
	}
	if c.WindowShare == 0 {
		c.WindowShare = d.WindowShare
	}
	if c.PreviousShare == 0 {
		c.PreviousShare = d.PreviousShare
	}
	if c.AfterNextShare == 0 {
		c.AfterNextShare = d.AfterNextShare
	}
	if c.LongProse == 0 {
		c.LongProse = d.LongProse
	}
	if c.ObligationKinds == nil {
		c.ObligationKinds = d.ObligationKinds
	}
	if c.ObligationHorizon == nil {
		c.ObligationHorizon = d.ObligationHorizon
	}
	if c.TimelineKinds == nil {
		c.TimelineKinds = d.TimelineKinds
	}
	if c.InPlayKinds == nil {
		c.InPlayKinds = d.InPlayKinds
	}
	if c.NoteShare == 0 {
		c.NoteShare = d.NoteShare
	}
	if c.MentionShare == 0 {
		c.MentionShare = d.MentionShare
	}
	return c
}

// Validate reports the first bad value of c, quoted, with what would be
// right. The error matches ErrInvalidConfig, and ErrInvalidRequest too (a
// request carrying a bad Config cannot be served).
func (c Config) Validate() error {
	c = c.withDefaults()
	if _, ok := c.Profiles[c.DefaultProfile]; !ok {
		return configValuef(c.DefaultProfile, "default_profile %q: want one of %s", c.DefaultProfile, strings.Join(profileNames(c), ", "))
	}
	for _, name := range profileNames(c) {
		if err := validateProfile(name, c.Profiles[name]); err != nil {
			return err
		}
		if err := c.validateUnfocused(name); err != nil {
			return err
		}
	}
	if err := c.validateScopes(); err != nil {
		return err
	}
	return c.validateShares()
}

// validateProfile checks one profile's rules, protected ranks and
// recent count.
func validateProfile(name string, p Profile) error {
	if len(p.Rules) == 0 {
		return configValuef(name, "profile %q has no rules: give at least one rank rule", name)
	}
	if p.Excerpt < 0 || p.Excerpt > 0 && p.Excerpt < minExcerpt {
		return configValuef(name, "profile %q excerpt %d: want 0 (bodies whole) or a size of at least %d tokens", name, p.Excerpt, minExcerpt)
	}
	if p.NoteShare < -1 || p.NoteShare > 100 {
		return configValuef(name, "profile %q note_share %d: want a percentage from 1 to 100, -1 for none listed, or 0 for the packet's note_share", name, p.NoteShare)
	}
	for i, r := range p.Rules {
		if r.Rank < 1 {
			return configValuef(name, "profile %q rule %d: rank %d: want 1 or more", name, i+1, r.Rank)
		}
		if !slices.Contains(validMatches, r.Match) {
			return configValuef(name, "profile %q rule %d: match %q: want one of %s", name, i+1, r.Match, strings.Join(validMatches, ", "))
		}
		for _, w := range splitWhen(r.When) {
			if !slices.Contains(validConditions, w) {
				return configValuef(name, "profile %q rule %d: when %q: want %s, joined by |", name, i+1, r.When, strings.Join(validConditions, ", "))
			}
		}
		if r.Pull && len(r.Kinds) == 0 {
			return configValuef(name, "profile %q rule %d: pull needs kinds: list the kinds to pull", name, i+1)
		}
	}
	for _, pr := range p.Protected {
		if pr < 1 {
			return configValuef(name, "profile %q: protected rank %d: want 1 or more", name, pr)
		}
	}
	if p.Recent < 0 {
		return configValuef(name, "profile %q: recent %d: want 0 or more", name, p.Recent)
	}
	return nil
}

// validateUnfocused checks that profile name's Unfocused names a profile
// that ranks its requests itself.
func (c Config) validateUnfocused(name string) error {
	u := c.Profiles[name].Unfocused
	if u == "" {
		return nil
	}
	target, ok := c.Profiles[u]
	if !ok {
		return configValuef(name, "profile %q unfocused %q: want one of %s", name, u, strings.Join(profileNames(c), ", "))
	}
	if target.Unfocused != "" {
		return configValuef(name, "profile %q unfocused %q: that profile names an unfocused profile of its own (%q); name one that ranks its requests itself", name, u, target.Unfocused)
	}
	return nil
}

// validateScopes checks the overflow actions, the scopes and the
// obligation horizons.
func (c Config) validateScopes() error {
	for _, kind := range sortedKeys(c.Overflow) {
		switch a := c.Overflow[kind]; a {
		case budget.Drop, budget.Truncate, budget.Fail, "":
		default:
			return configValuef(string(a), "overflow action %q for kind %q: want drop, truncate or fail", a, kind)
		}
	}
	for _, name := range sortedKeys(c.Scopes) {
		if numericScope(name) {
			return configValuef(name, "scope name %q reads as a budget number: name scopes with a word, like %q", name, "act")
		}
		if n := c.Scopes[name]; n <= 0 || n > budget.MaxBudget {
			return configValuef(name, "scope %q budget %d: want 1 to %d tokens", name, n, budget.MaxBudget)
		}
	}
	for _, name := range sortedKeys(c.ObligationHorizon) {
		if strings.TrimSpace(name) == "" {
			return configValuef(name, "obligation_horizon: scope name %q is empty: name a scope, like %q", name, "scene")
		}
		if h := c.ObligationHorizon[name]; h < -1 {
			return configValuef(name, "obligation_horizon for scope %q: %d: want 0 or more story positions, or -1 for no limit", name, h)
		}
	}
	return nil
}

// validateShares checks the shares, limits and naming kinds.
func (c Config) validateShares() error {
	for _, s := range []struct {
		name string
		v    int
	}{{"neighbor_share", c.NeighborShare}, {"next_share", c.NextShare}, {"previous_share", c.PreviousShare}} {
		if s.v < 0 || s.v > 100 {
			return configf("%s %d: want 1 to 100 (percent of the hit's score)", s.name, s.v)
		}
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"context_share", c.ContextShare}, {"window_share", c.WindowShare}, {"after_next_share", c.AfterNextShare}} {
		if s.v < -1 || s.v > 100 {
			return configf("%s %d: want 1 to 100 (percent of the hits' scores), or -1 for none", s.name, s.v)
		}
	}
	if c.HitLimit < 0 {
		return configf("hit_limit %d: want 0 or more", c.HitLimit)
	}
	if c.NoteShare < 0 || c.NoteShare > 100 {
		return configf("note_share %d: want a percentage from 1 to 100 (0 for the default)", c.NoteShare)
	}
	if c.LongProse < 0 {
		return configf("long_prose %d: want 0 or more", c.LongProse)
	}
	if c.MentionShare < 0 || c.MentionShare > 100 {
		return configf("mention_share %d: want a percentage from 1 to 100 (0 for the default)", c.MentionShare)
	}
	for _, k := range c.NamingKinds {
		if err := store.ValidKind(k); err != nil {
			return configf("naming_kinds: %v", err)
		}
	}
	return nil
}

// numericScope reports whether a scope name would be taken for a budget
// number ("8k", "100", "1.5m"): budget.ParseBudget looks scope names up
// first, so such a scope would silently change what a number means.
func numericScope(name string) bool {
	t := strings.TrimSpace(name)
	if t == "" || strings.ContainsAny(t[:1], "0123456789+-._") {
		return true
	}
	if _, ok := budget.DefaultScopes()[strings.ToLower(t)]; ok {
		return false
	}
	_, err := budget.ParseBudget(t, map[string]int{})
	return err == nil
}

func profileNames(c Config) []string { return sortedKeys(c.Profiles) }

func splitWhen(w string) []string {
	if w == "" {
		return nil
	}
	return strings.Split(w, "|")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// describeWhen renders a condition for the report: "needs --when power".
func describeWhen(w string) string {
	var parts []string
	for _, c := range splitWhen(w) {
		switch c {
		case "draft", "revise", "plan", "audit":
			parts = append(parts, "--task "+c)
		case conditionNever:
			parts = append(parts, "an explicit request")
		default:
			parts = append(parts, "--when "+c)
		}
	}
	return fmt.Sprintf("needs %s", strings.Join(parts, " or "))
}

// noteShare is the percentage of the budget the notes of a packet of
// profile may take one by one (Profile.NoteShare, else NoteShare).
func (c Config) noteShare(profile string) int {
	switch ps := c.Profiles[profile].NoteShare; {
	case ps < 0:
		return 0
	case ps > 0:
		return ps
	}
	return c.NoteShare
}

// neighborShare is the percentage of hit's score a neighbour reached
// through via gets: NextShare for what follows the hit, PreviousShare for
// what precedes it, NeighborShare for any other link.
func (c Config) neighborShare(hit string, via store.Link) int {
	switch sequenceSide(hit, via) {
	case 1:
		return c.NextShare
	case -1:
		return c.PreviousShare
	}
	return c.NeighborShare
}
