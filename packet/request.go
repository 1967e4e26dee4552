package packet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lorekeep/lore/budget"
	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/vector"
)

// NoStoryTime as Request.AsOf turns story time off: every record is
// loaded whatever its meta.from and meta.until.
const NoStoryTime int64 = -1

// Task modes a Request may name.
var validTasks = []string{"draft", "revise", "plan", "audit"}

// Conditions a Request's When may name.
var validWhen = []string{"power", "info-control", "thematic"}

// Formats Render knows.
var validFormats = []string{"md", "xml", "json"}

// Request says what packet to build. The zero values of the optional
// fields mean defaults, documented per field.
type Request struct {
	// NS is the namespace; a packet never reads outside it.
	NS string `json:"ns"`
	// Query is full-text search input; empty means no search.
	Query string `json:"query,omitempty"`
	// QueryVector is the caller's embedding of the query, from the model
	// that embedded the records' vectors: where given, hits come from the
	// words and the vectors fused (see the Searcher), and a vector hit is
	// a hit like any other. JSON packets name its dimension only
	// (VectorDims): the numbers are the caller's own.
	QueryVector []float32 `json:"-"`
	// VectorDims is len(QueryVector), set by the build.
	VectorDims int `json:"query_vector_dims,omitempty"`
	// QueryVectorFile names the file QueryVector was read from (the CLI's
	// --query-vector-file), so that a `lore packet` line Lore prints (a
	// proposed split, why's offer) asks with it too.
	QueryVectorFile string `json:"-"`
	// Focus ids: the active scene, the POV character, the subject.
	Focus []string `json:"focus,omitempty"`
	// Budget is the token limit of the whole rendered packet, already
	// resolved by the caller from --budget, --scope, --model and --reserve.
	Budget int `json:"budget"`
	// Scope names the budget's scope ("scene", "chapter"...); for display
	// and split proposals only.
	Scope string `json:"scope,omitempty"`
	// Task is draft, revise, plan or audit; empty means none.
	Task string `json:"task,omitempty"`
	// When lists the conditions that hold: power, info-control, thematic.
	When []string `json:"when,omitempty"`
	// Hops is the graph walk from each focus: 1 (default) or 2.
	Hops int `json:"hops,omitempty"`
	// ScanQuery scans the query, as well as the focus text, for the names,
	// aliases and keys of the namespace's records.
	ScanQuery bool `json:"scan_query,omitempty"`
	// MentionsDepth is how far mentions recurse: 1 (or 0, the default),
	// the records the focus names; 2, also the records their text names, at the
	// profile's rank for them, within Config.MentionShare of the budget.
	MentionsDepth int `json:"mentions_depth,omitempty"`
	// AsOf is a story position: records whose meta.from/meta.until
	// exclude it are not loaded. 0 means the position of the focus (the
	// smallest order among the focus records), so that a scene's packet
	// does not see what only holds later; with no ordered focus, no story
	// time. NoStoryTime turns story time off.
	AsOf int64 `json:"as_of,omitempty"`
	// At is the time the packet is for, against the records' validity
	// times (meta.valid_from, meta.valid_until): a date or an RFC 3339
	// time; empty means the time of the request.
	At string `json:"at,omitempty"`
	// Profile names the rank table; empty means Config.DefaultProfile.
	Profile string `json:"profile,omitempty"`
	// Kinds keeps only candidates of these kinds (focus records always
	// stay); empty keeps all.
	Kinds []string `json:"kinds,omitempty"`
	// ExcludeKinds drops candidates of these kinds (not focus records).
	ExcludeKinds []string `json:"exclude_kinds,omitempty"`
	// Encoding names the token counter; empty means Counter's name, or
	// o200k_base.
	Encoding string `json:"encoding,omitempty"`
	// Format is what the budget is fitted for: md (default), xml, json.
	Format string `json:"format,omitempty"`
	// Config is the packet configuration; nil means DefaultConfig().
	Config *Config `json:"-"`
	// Counter counts tokens; nil means budget.NewCounter(Encoding).
	Counter budget.Counter `json:"-"`

	// proposing is set on the requests a split builds to check its
	// proposals: their own splits propose nothing.
	proposing bool
	// checkOnly is set on the proposals a split builds only to learn
	// whether they fit: a build whose protected records alone are over
	// its budget stops before pricing (see builder.protectedFloor).
	checkOnly bool
	// fitsOnly is set on the builds that search a refusal's least budget
	// (builder.minimumBudget), which ask only whether the request is
	// written at a budget: such a build ends at the ladder's first fit
	// (see builder.fitWith), and of its packet only Tokens is meant to be
	// read (it is neither put back nor hashed).
	fitsOnly bool
	// work is what the builds of one request share (requestWork): set by
	// Build, carried into the requests its split builds.
	work *requestWork
	// at is At read, or the time the request was normalized.
	at time.Time
	// ranking names the profile that ranks and fills the request: Profile,
	// or its Unfocused where the request has no focus. Profile stays what
	// the caller asked for: the packet and its proposals say that.
	ranking string
}

// normalize validates r and returns it with defaults applied and its
// lists sorted, so that equal requests render equal bytes.
func (r Request) normalize() (Request, Config, error) {
	var cfg Config
	if r.Config != nil {
		cfg = *r.Config
	}
	if err := cfg.Validate(); err != nil {
		return r, cfg, err
	}
	cfg = cfg.withDefaults()
	for _, step := range []func(*Request, Config) error{(*Request).normalizeTarget, (*Request).normalizeWhen,
		(*Request).normalizeDepths, (*Request).normalizeProfile, (*Request).normalizeOutput} {
		if err := step(&r, cfg); err != nil {
			return r, cfg, err
		}
	}
	return r, cfg, nil
}

// normalizeTarget checks the namespace, the budget, the focus ids (kept
// in order, once each: the first is the active one) and the task.
func (r *Request) normalizeTarget(Config) error {
	if r.QueryVector != nil {
		if err := vector.CheckQuery(r.QueryVector, 0); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
	}
	r.VectorDims = len(r.QueryVector)
	if err := store.ValidNamespace(r.NS); err != nil {
		return invalidValuef(r.NS, "namespace %q: %v", r.NS, err)
	}
	if r.Budget <= 0 || r.Budget > budget.MaxBudget {
		return invalidf("budget %d: want 1 to %d tokens (give a budget or a scope)", r.Budget, budget.MaxBudget)
	}
	focus := make([]string, 0, len(r.Focus))
	for _, id := range r.Focus {
		if err := store.ValidID(id); err != nil {
			return invalidValuef(id, "focus id %q: %v", id, err)
		}
		if !slices.Contains(focus, id) {
			focus = append(focus, id)
		}
	}
	r.Focus = focus
	// A query is free text, and the packet echoes it: bytes that are not
	// UTF-8 (a mangled paste, a Latin-1 terminal) become U+FFFD, so the
	// packet stays valid UTF-8 in every format.
	r.Query = strings.ToValidUTF8(r.Query, "\uFFFD")
	if r.Task != "" && !slices.Contains(validTasks, r.Task) {
		return invalidValuef(r.Task, "task %q: want one of %s", r.Task, strings.Join(validTasks, ", "))
	}
	return nil
}

// normalizeWhen splits, checks and sorts the conditions that hold.
func (r *Request) normalizeWhen(Config) error {
	when := make([]string, 0, len(r.When))
	for _, w := range r.When {
		for _, part := range strings.Split(w, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if !slices.Contains(validWhen, part) {
				return invalidValuef(part, "condition %q: want one of %s", part, strings.Join(validWhen, ", "))
			}
			when = append(when, part)
		}
	}
	slices.Sort(when)
	r.When = slices.Compact(when)
	return nil
}

// normalizeDepths checks the walk's hops, the mentions' depth and the
// story position.
func (r *Request) normalizeDepths(Config) error {
	switch r.Hops {
	case 0:
		r.Hops = 1
	case 1, 2:
	default:
		return invalidf("hops %d: want 1 or 2", r.Hops)
	}
	switch r.MentionsDepth {
	case 0, 1:
		r.MentionsDepth = 0 // the default, kept out of the packet's request line
	case 2:
	default:
		return invalidf("mentions-depth %d: want 1 or 2", r.MentionsDepth)
	}
	if r.AsOf < NoStoryTime {
		return invalidf("as-of %d: want a story position of 1 or more (0 for the focus's, %d for none)", r.AsOf, NoStoryTime)
	}
	switch t, ok := facts.ParseTime(r.At); {
	case r.At == "":
		if r.at.IsZero() {
			r.at = time.Now().UTC()
		}
	case !ok:
		return invalidValuef(r.At, "at %q: want a date (2026-03-01) or an RFC 3339 time (2026-03-01T09:30:00Z)", r.At)
	default:
		r.at = t
	}
	return nil
}

// normalizeProfile fills in the default profile and checks it exists.
func (r *Request) normalizeProfile(cfg Config) error {
	if r.Profile == "" {
		r.Profile = cfg.DefaultProfile
	}
	if _, ok := cfg.Profiles[r.Profile]; !ok && r.Profile == "files" {
		return invalidValuef(r.Profile, "profile %q packs a directory, not a store: use lore pack DIR (pack.Dir)", r.Profile)
	}
	if _, ok := cfg.Profiles[r.Profile]; !ok {
		return invalidValuef(r.Profile, "profile %q: want one of %s", r.Profile, strings.Join(profileNames(cfg), ", "))
	}
	r.ranking = r.Profile
	if u := cfg.Profiles[r.Profile].Unfocused; u != "" && len(r.Focus) == 0 {
		r.ranking = u
	}
	return nil
}

// normalizeOutput sorts the kind filters and settles the format, the
// encoding and the counter.
func (r *Request) normalizeOutput(Config) error {
	r.Kinds = sortedSet(r.Kinds)
	r.ExcludeKinds = sortedSet(r.ExcludeKinds)
	if r.Format == "" {
		r.Format = "md"
	}
	if !slices.Contains(validFormats, r.Format) {
		return invalidValuef(r.Format, "format %q: want one of %s", r.Format, strings.Join(validFormats, ", "))
	}
	if r.Counter != nil && r.Encoding != "" && r.Counter.Name() != r.Encoding {
		return invalidValuef(r.Encoding, "encoding %q but counter %q: give one or make them agree", r.Encoding, r.Counter.Name())
	}
	if r.Encoding == "" {
		if r.Counter != nil {
			r.Encoding = r.Counter.Name()
		} else {
			r.Encoding = defaultEncoding
		}
	}
	if r.Counter == nil {
		c, err := budget.NewCounter(r.Encoding)
		if err != nil {
			return invalidValuef(r.Encoding, "encoding %q: %v", r.Encoding, err)
		}
		r.Counter = c
	}
	return nil
}

// holds reports whether the condition w of a rule holds for r.
func (r Request) holds(w string) bool {
	conds := splitWhen(w)
	if len(conds) == 0 {
		return true
	}
	for _, c := range conds {
		if c == conditionNever {
			continue
		}
		if c == r.Task || slices.Contains(r.When, c) {
			return true
		}
	}
	return false
}

func sortedSet(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	slices.Sort(out)
	return slices.Compact(out)
}

// searches reports whether the request searches: it has words or a
// vector to search for.
func (r *Request) searches() bool { return r.Query != "" || len(r.QueryVector) > 0 }
