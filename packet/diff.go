package packet

import (
	"bytes"
	"cmp"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// Diff compares two packets record by record (`lore diff`): the records
// one holds and the other does not, and those both hold in another form.
// A packet is read from a Packet, or from a packet file Lore wrote in
// JSON or XML (ReadView); markdown does not mark where a record starts in
// a way a reader can trust (a body may hold any line), so a markdown
// packet is refused with the formats that can be compared.

// View is what a comparison reads of one packet: its records and its
// deferral notes listed by id.
type View struct {
	Budget, Tokens int
	Hash           string
	Records        []Side
	// Deferred are the notes listed one by one; a grouped note names no
	// id and is not compared.
	Deferred []Side
}

// Side is one record as one packet has it: in it (Form full, excerpt,
// summary, title) or deferred (Form "deferred", Why the note's reason).
type Side struct {
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Rank   int    `json:"rank,omitempty"`
	Form   string `json:"form"`
	Tokens int    `json:"tokens,omitempty"` // 0 where the packet does not say (XML)
	Why    string `json:"why,omitempty"`
}

// formDeferred is Side.Form of a record a packet names in a deferral
// note only.
const formDeferred = "deferred"

// ViewOf is the view of a built packet.
func ViewOf(p *Packet) View {
	v := View{Budget: p.Budget, Tokens: p.Tokens, Hash: p.Hash}
	for _, e := range p.Records {
		form := e.Form
		if e.Truncated > 0 {
			form = "truncated"
		}
		v.Records = append(v.Records, Side{ID: e.ID, Kind: e.Kind, Rank: e.Rank, Form: form, Tokens: e.Tokens, Why: e.Why})
	}
	for _, n := range p.Deferred {
		if slices.ContainsFunc(v.Records, func(s Side) bool { return s.ID == n.ID }) {
			continue // shown shortened: its entry says so
		}
		v.Deferred = append(v.Deferred, Side{ID: n.ID, Kind: n.Kind, Rank: n.Rank, Form: formDeferred, Tokens: n.Tokens, Why: n.Reason})
	}
	return v
}

// Change is one record that differs between two packets: A and B are
// its sides, nil where that packet has no word of it.
type Change struct {
	ID string `json:"id"`
	// What is "added" (in B's packet, not in A's), "removed" (in A's,
	// not in B's) or "form" (in both, in another form).
	What string `json:"what"`
	A    *Side  `json:"a,omitempty"`
	B    *Side  `json:"b,omitempty"`
}

// Difference is Compare's answer: the changes by id, and whether the two
// packets hold the same records in the same forms.
type Difference struct {
	Changes []Change `json:"changes"`
	Same    bool     `json:"same"`
}

// Compare lists the records that differ between packets a and b, by id.
func Compare(a, b View) Difference {
	in := func(v View) map[string]Side {
		m := map[string]Side{}
		for _, s := range v.Records {
			m[s.ID] = s
		}
		return m
	}
	notes := func(v View) map[string]Side {
		m := map[string]Side{}
		for _, s := range v.Deferred {
			m[s.ID] = s
		}
		return m
	}
	ina, inb, na, nb := in(a), in(b), notes(a), notes(b)
	side := func(m, n map[string]Side, id string) *Side {
		if s, ok := m[id]; ok {
			return &s
		}
		if s, ok := n[id]; ok {
			return &s
		}
		return nil
	}
	var ids []string
	for id := range ina {
		ids = append(ids, id)
	}
	for id := range inb {
		if _, ok := ina[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	d := Difference{Changes: []Change{}}
	for _, id := range ids {
		sa, oka := ina[id]
		sb, okb := inb[id]
		switch {
		case oka && okb:
			if sa.Form != sb.Form {
				d.Changes = append(d.Changes, Change{ID: id, What: "form", A: &sa, B: &sb})
			}
		case okb:
			d.Changes = append(d.Changes, Change{ID: id, What: "added", A: side(ina, na, id), B: &sb})
		default:
			d.Changes = append(d.Changes, Change{ID: id, What: "removed", A: &sa, B: side(inb, nb, id)})
		}
	}
	d.Same = len(d.Changes) == 0
	return d
}

// ErrMarkdownPacket is ReadView's error for a markdown packet.
var ErrMarkdownPacket = errors.New("a markdown packet cannot be compared: its record headings are not marked apart from the text they hold; compare packets written as JSON or XML")

// ErrNotPacket is ReadView's error for data that is no packet Lore wrote.
var ErrNotPacket = errors.New("not a packet Lore wrote: want a packet in JSON or XML")

// ReadView reads a packet file Lore wrote: JSON (`--format json`, or
// `lore --json packet`'s document, which holds the records too) or XML.
func ReadView(data []byte) (View, error) {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(data, []byte("{")):
		return readJSONView(data)
	case bytes.HasPrefix(data, []byte("<packet")):
		return readXMLView(data)
	case bytes.HasPrefix(data, []byte("# Context Packet")):
		return View{}, ErrMarkdownPacket
	}
	return View{}, ErrNotPacket
}

func readJSONView(data []byte) (View, error) {
	var doc struct {
		Total struct {
			Tokens, Budget int
			Hash           string
		}
		Records  *[]Side
		Deferred []struct {
			ID     string `json:"id"`
			Kind   string `json:"kind"`
			Rank   int    `json:"rank"`
			Tokens int    `json:"tokens"`
			Reason string `json:"reason"`
			Action string `json:"action"`
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return View{}, fmt.Errorf("a JSON packet: %w", err)
	}
	if doc.Records == nil {
		return View{}, errors.New("a JSON document with no \"records\": not a packet Lore wrote")
	}
	v := View{Budget: doc.Total.Budget, Tokens: doc.Total.Tokens, Hash: doc.Total.Hash, Records: *doc.Records}
	for _, n := range doc.Deferred {
		if !slices.ContainsFunc(v.Records, func(s Side) bool { return s.ID == n.ID }) {
			v.Deferred = append(v.Deferred, Side{ID: n.ID, Kind: n.Kind, Rank: n.Rank, Form: formDeferred, Tokens: n.Tokens, Why: n.Reason})
		}
	}
	return v, checkView(v)
}

func readXMLView(data []byte) (View, error) {
	var v View
	section := 0 // the rank of the section being read
	dec := xml.NewDecoder(bytes.NewReader(data))
	attrs := func(se xml.StartElement) map[string]string {
		m := map[string]string{}
		for _, a := range se.Attr {
			m[a.Name.Local] = a.Value
		}
		return m
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return View{}, fmt.Errorf("an XML packet: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		a := attrs(se)
		switch se.Name.Local {
		case "total":
			v.Budget, _ = strconv.Atoi(a["budget"])
			v.Tokens, _ = strconv.Atoi(a["tokens"])
			v.Hash = a["hash"]
		case "section":
			section, _ = strconv.Atoi(a["rank"])
		case "record":
			// XML gives no record's tokens: the frame stays lean.
			v.Records = append(v.Records, Side{ID: a["id"], Kind: a["kind"], Rank: section, Form: cmp.Or(a["form"], "full"), Why: a["why"]})
		case "note":
			rank, _ := strconv.Atoi(a["rank"])
			tokens, _ := strconv.Atoi(a["tokens"])
			v.Deferred = append(v.Deferred, Side{ID: a["id"], Kind: a["kind"], Rank: rank, Form: formDeferred, Tokens: tokens, Why: a["reason"]})
		}
	}
	v.Deferred = slices.DeleteFunc(v.Deferred, func(n Side) bool {
		return slices.ContainsFunc(v.Records, func(s Side) bool { return s.ID == n.ID })
	})
	return v, checkView(v)
}

// checkView refuses a packet whose records have no ids: not a packet
// Lore wrote, or one cut short.
func checkView(v View) error {
	for i, s := range v.Records {
		if s.ID == "" {
			return fmt.Errorf("record %d has no id: not a packet Lore wrote", i+1)
		}
	}
	return nil
}
