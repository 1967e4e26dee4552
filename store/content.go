package store

import (
	"reflect"
	"strings"
)

// Content is what a record's writer gives: every field a put takes, with
// the key each interface names it by. The wire shapes of a record are
// built from it (a JSONL line, the MCP tools' and the HTTP API's record)
// with the same JSON keys as Record, so a field added here is read and
// written by every interface; the servers' round-trip test checks that
// each one carries every field. The jsonschema tags are what an MCP
// client is told of each field.
type Content struct {
	NS      string            `json:"ns,omitempty" jsonschema:"namespace; default: the caller's (the server's namespace, the import's --ns)"`
	ID      string            `json:"id" jsonschema:"record id: 1-256 bytes of printable text"`
	Kind    string            `json:"kind,omitempty" jsonschema:"kind: memory, fact, person, scene, ..."`
	Title   string            `json:"title,omitempty" jsonschema:"title"`
	Body    string            `json:"body,omitempty" jsonschema:"the text of the record"`
	Summary string            `json:"summary,omitempty" jsonschema:"short form: the facts and ids that can stand in for the body when a packet is short of room"`
	Tags    []string          `json:"tags,omitempty" jsonschema:"tags"`
	Aliases []string          `json:"aliases,omitempty" jsonschema:"other names of the record (Sefa for Sefa Dunmore): a packet focus that says one brings the record in"`
	Keys    []string          `json:"keys,omitempty" jsonschema:"lorebook-style trigger words: a packet focus that says one brings the record in"`
	Meta    map[string]string `json:"meta,omitempty" jsonschema:"string metadata (date, due, status, valid_from, valid_until: a date or an RFC 3339 time, or a story position, between which the record holds)"`
	Order   int64             `json:"order,omitempty" jsonschema:"position in a sequence (turn, chapter); 0 for none"`
	Pinned  bool              `json:"pinned,omitempty" jsonschema:"never drop this record from a packet"`
	Binary  bool              `json:"binary,omitempty" jsonschema:"a file that is not text, kept without a body"`
	Vector  []float32         `json:"vector,omitempty" jsonschema:"the record's embedding from your own model (Lore runs none); every vector of a namespace has the dimension of its first"`
}

// ContentOf is the content of r.
func ContentOf(r Record) Content {
	return Content{NS: r.NS, ID: r.ID, Kind: r.Kind, Title: r.Title, Body: r.Body, Summary: r.Summary,
		Tags: r.Tags, Aliases: r.Aliases, Keys: r.Keys, Meta: r.Meta, Order: r.Order, Pinned: r.Pinned,
		Binary: r.Binary, Vector: r.Vector}
}

// Record is a record of content c, for a put (the store stamps the rest).
func (c Content) Record() Record {
	return Record{NS: c.NS, ID: c.ID, Kind: c.Kind, Title: c.Title, Body: c.Body, Summary: c.Summary,
		Tags: c.Tags, Aliases: c.Aliases, Keys: c.Keys, Meta: c.Meta, Order: c.Order, Pinned: c.Pinned,
		Binary: c.Binary, Vector: c.Vector}
}

// IsZero reports whether c sets no field.
func (c Content) IsZero() bool { return reflect.ValueOf(c).IsZero() }

// ContentKeys lists the JSON keys of Content, in its order: what a
// record's wire shape may carry, for the messages that name them.
func ContentKeys() []string {
	t := reflect.TypeFor[Content]()
	keys := make([]string, t.NumField())
	for i := range keys {
		keys[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return keys
}

// JSONField is the key a decoding error names for a field of a wire
// shape that embeds Content: encoding/json reports a promoted field by
// its path ("Content.tags"), and the user wrote "tags".
func JSONField(path string) string { return strings.TrimPrefix(path, "Content.") }
