// Package jsonl reads and writes Lore's JSONL: one record a line, with
// its outgoing links embedded, or a bare link line. It is what `lore
// import` and `lore export` speak, and what an export reads back from.
package jsonl

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorekeep/lore/format"
	"github.com/lorekeep/lore/internal/badvalue"
	"github.com/lorekeep/lore/internal/clip"
	"github.com/lorekeep/lore/store"
)

// jsonlLine is the shape of one JSONL line: a record (store.Content,
// with store.Record's JSON field names) with optional embedded outgoing
// links, or a bare link.
// Bookkeeping fields are accepted so an export reads back, and ignored:
// the store recomputes them.
type jsonlLine struct {
	store.Content
	// Bookkeeping an export writes: kept (created, updated, version) or
	// ignored (the store recomputes the rest).
	Created   json.RawMessage `json:"created"`
	Updated   json.RawMessage `json:"updated"`
	Version   json.RawMessage `json:"version"`
	SHA256    json.RawMessage `json:"sha256"`
	BodyBytes json.RawMessage `json:"body_bytes"`
	Tokens    json.RawMessage `json:"tokens"`

	Links []jsonlLink `json:"links"`
	Link  *jsonlBare  `json:"link"`
}

// jsonlLink is an outgoing link embedded in a record line. It has no
// "from" (the record is the source) and no "ns": links never cross
// namespaces, so an "ns" is accepted only when it equals the record's.
type jsonlLink struct {
	NS     *string `json:"ns"`
	ToNS   string  `json:"to_ns"`
	Rel    string  `json:"rel"`
	To     string  `json:"to"`
	Weight float64 `json:"weight"`
	Made   int64   `json:"made"`
}

// jsonlBare is the payload of a bare link line {"link": {...}}.
type jsonlBare struct {
	NS     string  `json:"ns"`
	ToNS   string  `json:"to_ns"`
	From   string  `json:"from"`
	Rel    string  `json:"rel"`
	To     string  `json:"to"`
	Weight float64 `json:"weight"`
	Made   int64   `json:"made"`
}

// recordFields lists the keys a record line may carry, for error messages.
var recordFields = strings.Join(store.ContentKeys(), ", ") + ", links " +
	"(and the ignored created, updated, version, sha256, body_bytes, tokens), or a bare \"link\""

// ReadJSONL reads records and links from r, one JSON object a line: a
// record with store.Record's field names ("ns" defaults to defaultNS) and
// an optional "links": [{"rel","to","weight"}] of its outgoing links, or a
// bare link line {"link": {"ns","from","rel","to","weight"}}. Blank lines
// are skipped; lines may be of any length. name labels errors (a file
// name, or "stdin").
//
// Every bad line becomes an InputError naming the line and what is wrong;
// the good lines are still returned, so a caller can refuse the whole
// input or import the good part. A record id seen twice in one namespace
// is an error on the second line, unless every line of it carries a
// "version" higher than the one before: earlier versions, oldest first,
// as export --history writes them. "created", "updated" and "version"
// are kept on the records returned (Lore.Import keeps them for the
// records it creates). Records and links come back in input order.
func Read(r io.Reader, name string, defaultNS string) (recs []store.Record, links []store.Link, errs []format.InputError) {
	br := bufio.NewReaderSize(r, 64<<10)
	seen := map[[2]string]int{}        // (ns, id) -> line of first definition
	lastVersion := map[[2]string]int{} // (ns, id) -> version of its last line
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadBytes('\n')
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark some editors write
		}
		if len(line) > 0 {
			rec, lks, isRec, err := parseJSONLLine(line, defaultNS)
			switch {
			case err != nil:
				errs = append(errs, format.InputError{File: name, Line: lineNo, Err: err})
			case isRec:
				key := [2]string{rec.NS, rec.ID}
				if first, dup := seen[key]; dup {
					if prev := lastVersion[key]; prev == 0 || rec.Version <= prev {
						errs = append(errs, format.InputError{File: name, Line: lineNo,
							Err: badvalue.Errorf(rec.ID, "duplicate record %q in namespace %q: first defined on line %d (a record's earlier versions, as export --history writes them, come first, each with a higher \"version\")", rec.ID, rec.NS, first)})
						continue
					}
				}
				if _, dup := seen[key]; !dup {
					seen[key] = lineNo
				}
				lastVersion[key] = rec.Version
				recs = append(recs, rec)
				links = append(links, lks...)
			default:
				links = append(links, lks...)
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				errs = append(errs, format.InputError{File: name, Line: lineNo, Err: fmt.Errorf("read: %w", rerr)})
			}
			return recs, links, errs
		}
	}
}

// parseJSONLLine decodes one line. A blank line gives nothing and no error.
func parseJSONLLine(line []byte, defaultNS string) (rec store.Record, links []store.Link, isRec bool, err error) {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return rec, nil, false, nil
	}
	if !utf8.Valid(line) {
		return rec, nil, false, fmt.Errorf("invalid UTF-8 at byte offset %d of the line: JSONL must be UTF-8 text", firstInvalidUTF8(line))
	}
	var l jsonlLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return rec, nil, false, jsonLineError(err)
	}
	if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
		return rec, nil, false, badvalue.Errorf(clip.String(string(rest), 40), "malformed JSON: extra text %q after the object: one object a line", clip.String(string(rest), 40))
	}
	if l.Link != nil {
		return parseBareLink(&l, defaultNS)
	}
	ns := l.NS
	if ns == "" {
		ns = defaultNS
	}
	if ns == "" {
		return rec, nil, false, errors.New(`missing "ns" and no default namespace given`)
	}
	if err := store.ValidNamespace(ns); err != nil {
		return rec, nil, false, err
	}
	if l.ID == "" {
		return rec, nil, false, errors.New(`missing "id": every record line needs a non-empty "id" (or use {"link": {...}} for a link)`)
	}
	if err := store.ValidID(l.ID); err != nil {
		return rec, nil, false, err
	}
	if l.Binary && l.Body != "" {
		return rec, nil, false, badvalue.Errorf(l.ID, "record %q is binary and has a body: a binary record is kept without body", l.ID)
	}
	if err := store.ValidFields(l.Kind, l.Tags, l.Meta); err != nil {
		return rec, nil, false, badvalue.Errorf(l.ID, "record %q: %w", l.ID, err)
	}
	if err := store.ValidNames(l.ID, l.Aliases, l.Keys); err != nil {
		return rec, nil, false, err
	}
	rec = l.Content.Record()
	rec.NS = ns
	if err := parseStamps(&l, &rec); err != nil {
		return rec, nil, false, badvalue.Errorf(l.ID, "record %q: %w", l.ID, err)
	}
	for i, el := range l.Links {
		if el.NS != nil && *el.NS != ns {
			return rec, nil, false, badvalue.Errorf(l.ID, "links[%d] of %q names namespace %q: links cannot cross namespaces (the record is in %q)", i, l.ID, *el.NS, ns)
		}
		if el.ToNS != "" && el.ToNS != ns {
			return rec, nil, false, badvalue.Errorf(l.ID, "links[%d] of %q points into namespace %q: links cannot cross namespaces (the record is in %q)", i, l.ID, el.ToNS, ns)
		}
		lk := store.Link{NS: ns, From: l.ID, Rel: el.Rel, To: el.To, Weight: el.Weight, Made: el.Made}
		if err := validLink(lk); err != nil {
			return rec, nil, false, badvalue.Errorf(l.ID, "links[%d] of %q: %w", i, l.ID, err)
		}
		links = append(links, lk)
	}
	return rec, links, true, nil
}

// parseStamps reads the "created", "updated" and "version" an export
// writes, which an import keeps for the records it creates.
func parseStamps(l *jsonlLine, rec *store.Record) error {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		t    *time.Time
	}{{"created", l.Created, &rec.Created}, {"updated", l.Updated, &rec.Updated}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		if err := json.Unmarshal(f.raw, f.t); err != nil {
			return badvalue.Errorf(f.name, "field %q: %s is not a time: want RFC 3339, such as \"2026-03-01T09:30:00Z\"", f.name, clip.String(string(f.raw), 40))
		}
	}
	if len(l.Version) > 0 && string(l.Version) != "null" {
		if err := json.Unmarshal(l.Version, &rec.Version); err != nil || rec.Version < 0 {
			return fmt.Errorf("field \"version\": %s is not a version: want a whole number from 1 (0 for none)", clip.String(string(l.Version), 40))
		}
	}
	return nil
}

// parseBareLink checks a {"link": {...}} line: it must carry nothing else.
func parseBareLink(l *jsonlLine, defaultNS string) (store.Record, []store.Link, bool, error) {
	if !l.Content.IsZero() || l.Links != nil ||
		l.Created != nil || l.Updated != nil || l.Version != nil || l.SHA256 != nil || l.BodyBytes != nil || l.Tokens != nil {
		return store.Record{}, nil, false, errors.New(`a link line carries only "link": put record fields on their own line`)
	}
	b := l.Link
	lk := store.Link{NS: b.NS, From: b.From, Rel: b.Rel, To: b.To, Weight: b.Weight, Made: b.Made}
	if lk.NS == "" {
		lk.NS = defaultNS
	}
	if lk.NS == "" {
		return store.Record{}, nil, false, errors.New(`link has no "ns" and no default namespace given`)
	}
	if err := store.ValidNamespace(lk.NS); err != nil {
		return store.Record{}, nil, false, fmt.Errorf("link: %w", err)
	}
	if b.ToNS != "" && b.ToNS != lk.NS {
		return store.Record{}, nil, false, badvalue.Errorf(b.From, "link from %q points from namespace %q into namespace %q: links cannot cross namespaces", b.From, lk.NS, b.ToNS)
	}
	if lk.From == "" {
		return store.Record{}, nil, false, errors.New(`link: missing "from"`)
	}
	if err := store.ValidID(lk.From); err != nil {
		return store.Record{}, nil, false, fmt.Errorf("link from: %w", err)
	}
	if err := validLink(lk); err != nil {
		return store.Record{}, nil, false, badvalue.Errorf(lk.From, "link from %q: %w", lk.From, err)
	}
	return store.Record{}, []store.Link{lk}, false, nil
}

// validLink checks rel and to of a link whose namespace and from are known good.
func validLink(lk store.Link) error {
	if lk.Rel == "" {
		return errors.New(`missing "rel": a link needs a relation name such as "mentions"`)
	}
	if err := store.ValidRel(lk.Rel); err != nil {
		return err
	}
	if lk.To == "" {
		return errors.New(`missing "to": a link needs a target id`)
	}
	if err := store.ValidID(lk.To); err != nil {
		return fmt.Errorf("link to: %w", err)
	}
	return nil
}

// jsonLineError turns a decoder error into a message that says what is wrong.
func jsonLineError(err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s: a record line has %s", f, recordFields)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("malformed JSON: got a JSON %s, want an object", te.Value)
		}
		field := store.JSONField(te.Field)
		return badvalue.Errorf(field, "field %q: got a JSON %s, want %s", field, te.Value, jsonTypeName(te.Type.String()))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("malformed JSON: the object is cut short (one complete object a line)")
	}
	return fmt.Errorf("malformed JSON: %v", strings.TrimPrefix(msg, "json: "))
}

// jsonTypeName says in JSON words what a Go field type wants.
func jsonTypeName(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case goType == "float64" || goType == "float32":
		return "a number"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["), strings.Contains(goType, "jsonl"):
		return "an object"
	}
	return goType
}

// firstInvalidUTF8 returns the offset of the first byte that is not part
// of valid UTF-8, or -1.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// jsonlOut is the shape WriteJSONL writes: store.Record's fields in a fixed
// order, every bookkeeping field present, then the embedded links.
type jsonlOut struct {
	store.Content
	Created   any                         `json:"created"`
	Updated   any                         `json:"updated"`
	Version   int                         `json:"version"`
	SHA256    string                      `json:"sha256"`
	BodyBytes int                         `json:"body_bytes"`
	Tokens    map[string]store.TokenCount `json:"tokens,omitempty"`
	Links     []jsonlOutLink              `json:"links,omitempty"`
}

type jsonlOutLink struct {
	Rel    string  `json:"rel"`
	To     string  `json:"to"`
	Weight float64 `json:"weight,omitempty"`
	// Made is store.Link.Made, so an import keeps the order links were
	// made in (the memory tools list relations by it).
	Made int64 `json:"made,omitempty"`
}

type jsonlOutBare struct {
	Link jsonlOutBareLink `json:"link"`
}

type jsonlOutBareLink struct {
	NS     string  `json:"ns"`
	From   string  `json:"from"`
	Rel    string  `json:"rel"`
	To     string  `json:"to"`
	Weight float64 `json:"weight,omitempty"`
	Made   int64   `json:"made,omitempty"`
}

// WriteJSONL writes recs and links as JSONL that ReadJSONL reads back:
// one record a line sorted by (ns, id), each with its outgoing links
// embedded sorted by (rel, to); links whose from-record is not in recs
// follow as bare link lines sorted by (ns, from, rel, to). Bookkeeping
// fields are written too, so the export is complete. The same input gives
// the same bytes. The slices are not modified.
func Write(w io.Writer, recs []store.Record, links []store.Link) error {
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(a, b store.Record) int {
		return cmp.Or(cmp.Compare(a.NS, b.NS), cmp.Compare(a.ID, b.ID))
	})
	links = slices.Clone(links)
	slices.SortStableFunc(links, store.CompareLinks)

	have := make(map[[2]string]bool, len(recs))
	for _, r := range recs {
		have[[2]string{r.NS, r.ID}] = true
	}
	out := map[[2]string][]jsonlOutLink{}
	var bare []store.Link
	for _, l := range links {
		k := [2]string{l.NS, l.From}
		if have[k] {
			out[k] = append(out[k], jsonlOutLink{Rel: l.Rel, To: l.To, Weight: l.Weight, Made: l.Made})
		} else {
			bare = append(bare, l)
		}
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i, r := range recs {
		o := jsonlOut{Content: store.ContentOf(r), Created: r.Created, Updated: r.Updated, Version: r.Version, SHA256: r.SHA256,
			BodyBytes: r.BodyBytes, Tokens: r.Tokens}
		if o.BodyBytes == 0 {
			o.BodyBytes = len(r.Body)
		}
		k := [2]string{r.NS, r.ID}
		// A record listed twice (its history, then itself) gets its
		// links once, on its last line.
		if i == len(recs)-1 || recs[i+1].NS != r.NS || recs[i+1].ID != r.ID {
			o.Links = out[k]
		}
		if err := enc.Encode(o); err != nil {
			return fmt.Errorf("write record %s/%s: %w", r.NS, r.ID, err)
		}
	}
	for _, l := range bare {
		if err := enc.Encode(jsonlOutBare{Link: jsonlOutBareLink{NS: l.NS, From: l.From, Rel: l.Rel, To: l.To, Weight: l.Weight, Made: l.Made}}); err != nil {
			return fmt.Errorf("write link %s→%s: %w", l.From, l.To, err)
		}
	}
	return bw.Flush()
}
