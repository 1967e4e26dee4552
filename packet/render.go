package packet

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Entry is one record included in a packet.
type Entry struct {
	ID    string `json:"id"`
	Kind  string `json:"kind,omitempty"`
	Title string `json:"title,omitempty"`
	// Rank is the record's rank in the profile's table (1 is the most
	// important).
	Rank int `json:"rank"`
	// Why says which rule brought it in: "focus", "hit for 'fire'".
	Why string `json:"why"`
	// Form is "full" (the body), "excerpt" (the passage of a long body
	// the query matches, with gap markers where text is left out: see
	// Profile.Excerpt), "summary" (the summary stands in for the body:
	// ladder step 2 or 4) or "title" (a history entry without summary,
	// collapsed to its title by step 4).
	Form string `json:"form"`
	// Text is what the packet shows: the body, the excerpt, the summary,
	// or "".
	Text string `json:"text"`
	// Omitted is how many tokens of the body an excerpt leaves out.
	Omitted int `json:"omitted,omitempty"`
	// Truncated is how many tokens of the body were cut (overflow action
	// "truncate"); 0 when whole.
	Truncated int `json:"truncated,omitempty"`
	// Tokens is the entry's estimated cost in the packet.
	Tokens int `json:"tokens"`
	// Fetch is the command that prints the whole record; set when the
	// packet does not show it whole.
	Fetch string `json:"fetch,omitempty"`
	// Contradicts flags the candidates of this request that state another
	// value of one of this record's facts at the same time, neither
	// superseding the other: "mara-eyes-grey on eyes". The flag drops
	// nothing: the reader decides.
	Contradicts []string `json:"contradicts,omitempty"`
	// hit is set for a search hit: its heading leaves out "hit N" (xml's
	// section says hits="best first" once; in markdown the order says it).
	hit bool
	// of and side place a hit's neighbour along a sequence (candidate
	// side): beside is set when it sits next to hit "of" in the packet,
	// where markdown's heading need not say "after D4:1".
	of     string
	side   int
	beside bool
}

// FormOrder orders the forms an Entry shows a record in, from the
// shortest (the design's title < excerpt < summary or whole): a larger
// budget shows each record of a smaller one in the same form or one
// later in this order. A form it does not know is -1, below them all.
func FormOrder(form string) int {
	return slices.Index([]string{"title", formExcerpt, "summary", "full"}, form)
}

// Note is a deferral note: a record left out of the packet, or shown
// shortened (its summary, its title, or its body truncated), and how to
// fetch it.
type Note struct {
	ID   string `json:"id"`
	Kind string `json:"kind,omitempty"`
	Rank int    `json:"rank"`
	// Step is the ladder step that deferred it: 1 drop, 2 summary, 3
	// narrow hops, 4 summarise history; 0 when the budget is below the
	// frame.
	Step int `json:"step"`
	// Action is "dropped", "summary", "narrowed", "collapsed" or
	// "truncated" (kept, cut at a token boundary: its kind's overflow
	// action is truncate).
	Action string `json:"action"`
	// Tokens is what the record would have cost in full.
	Tokens int `json:"tokens"`
	// Saves is what the packet saved by showing a shorter form (summary,
	// collapsed and truncated notes); the tokens freed.
	Saves int `json:"saves,omitempty"`
	// Reason says why, in the words of the report.
	Reason string `json:"reason"`
	// Fetch is the command that prints the record.
	Fetch string `json:"fetch"`
	// cand is the record's place in the builder's candidate list.
	cand int
}

// NoteGroup counts the deferral notes of one kind that the rendered
// packet does not list one by one: when the notes would take more than
// Config.NoteShare percent of the budget, the most important are listed
// and the rest are grouped. Packet.Deferred still holds every note.
type NoteGroup struct {
	// Kind is the kind of the records; "" for the line that gathers the
	// kinds beyond the first five (Kinds says how many).
	Kind  string `json:"kind"`
	Kinds int    `json:"kinds,omitempty"`
	Count int    `json:"count"`
	// Tokens is what the records would have cost in full.
	Tokens           int `json:"tokens"`
	MinRank, MaxRank int `json:"-"`
	// Fetch is the command that lists exactly the records of the group:
	// the request with --deferred and the group's kinds.
	Fetch string `json:"fetch"`
	// of is the kinds of the group: Kind, or the kinds past the first
	// five.
	of []string
}

// handle is the part of Fetch a markdown packet shows: the flag that
// turns the same request into the list of the group's records.
func (g NoteGroup) handle() string {
	return deferredFlag + " " + shellQuote(strings.Join(g.of, ","))
}

// deferredFlag is the flag of lore packet that lists the deferred
// records of some kinds (Packet.DeferredOf), the handle of a group.
const deferredFlag = "--deferred"

// MarshalJSON keeps the rank range readable: "ranks": "4" or "4-6".
func (g NoteGroup) MarshalJSON() ([]byte, error) {
	type plain NoteGroup
	return json.Marshal(struct {
		plain
		Ranks string `json:"ranks"`
	}{plain(g), g.ranks()})
}

func (g NoteGroup) ranks() string {
	if g.MinRank == g.MaxRank {
		return strconv.Itoa(g.MinRank)
	}
	return fmt.Sprintf("%d-%d", g.MinRank, g.MaxRank)
}

// what names the records of a group by their kinds, as --deferred takes
// them: "style", or "location, obligation" for the line that gathers the
// kinds past the first five.
func (g NoteGroup) what() string {
	if g.Kind == "" {
		return strings.Join(g.of, ", ")
	}
	return g.Kind
}

// freed is the tokens a note gave back to the budget.
func (n Note) freed() int {
	if n.Action == "summary" || n.Action == "collapsed" || n.Action == "truncated" {
		return n.Saves
	}
	return n.Tokens
}

// view is what a renderer needs: the packet with its stated total.
type view struct {
	p      *Packet
	tokens int
	hash   string
}

func render(format string, v view) string {
	switch format {
	case "xml":
		return renderXML(v)
	case "json":
		return renderJSON(v)
	default:
		return renderMD(v)
	}
}

func percent(used, budget int) int {
	if budget <= 0 {
		return 0
	}
	return used * 100 / budget
}

// fetchOf is fetchCmd for candidate c, made once per build: the notes of
// every try at a packet share it.
func (b *builder) fetchOf(c *candidate) string {
	if c.fetch == "" {
		c.fetch = fetchCmd(b.req.NS, c.rec.ID)
	}
	return c.fetch
}

func fetchCmd(ns, id string) string {
	if strings.HasPrefix(id, "-") {
		// "--" ends the flags, so an id like "-draft" is not read as one.
		return defaultGetCommand + " " + ns + " -- " + shellQuote(id)
	}
	return defaultGetCommand + " " + ns + " " + shellQuote(id)
}

// shellQuote quotes id for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+,=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// placeBeside moves each neighbour of a hit along a sequence next to its
// hit, when the hit is in the packet in the same section: the turn before
// a hit just before it, the turns after (one, then two steps on) just
// after it, so that a conversation reads in its own order around each
// hit. The others keep their place.
func placeBeside(es []Entry) []Entry {
	var hits map[string]int // hit id -> its place in es
	for i := range es {
		if es[i].hit {
			if hits == nil {
				hits = make(map[string]int, len(es))
			}
			hits[es[i].ID] = i
		}
	}
	// Each entry that moves, by its hit's place: the turns before a hit
	// in their own order, then those after it, the one just after a hit
	// first, whatever their scores made of their order.
	type move struct{ hit, after, side, at int }
	var moves []move
	for i := range es {
		e := &es[i]
		h, ok := hits[e.of]
		e.beside = e.side != 0 && ok && es[h].Rank == e.Rank
		switch {
		case !e.beside:
		case e.side < 0:
			moves = append(moves, move{hit: h, at: i})
		default:
			moves = append(moves, move{hit: h, after: 1, side: e.side, at: i})
		}
	}
	if len(moves) == 0 {
		return es
	}
	slices.SortFunc(moves, func(x, y move) int {
		return cmp.Or(x.hit-y.hit, x.after-y.after, x.side-y.side, x.at-y.at)
	})
	out := make([]Entry, 0, len(es))
	m := 0
	for i, e := range es {
		if e.beside {
			continue
		}
		if !e.hit {
			out = append(out, e)
			continue
		}
		for ; m < len(moves) && moves[m].hit < i; m++ {
			// Past the moves of a hit placed beside another: none, a
			// hit's side being 0 (rank.go, place).
		}
		for ; m < len(moves) && moves[m].hit == i && moves[m].after == 0; m++ {
			out = append(out, es[moves[m].at])
		}
		out = append(out, e)
		for ; m < len(moves) && moves[m].hit == i; m++ {
			out = append(out, es[moves[m].at])
		}
	}
	return out
}
