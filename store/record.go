package store

import "time"

// Record is one stored item: a canon fact, a memory, a scene, a file.
//
// NS and ID identify it; everything else is content or bookkeeping. The
// fields from Created on are maintained by the store: values a caller sets
// there are ignored by Put.
type Record struct {
	NS      string   `json:"ns"`
	ID      string   `json:"id"`
	Kind    string   `json:"kind,omitempty"`
	Title   string   `json:"title,omitempty"`
	Body    string   `json:"body,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Tags    []string `json:"tags,omitempty"`
	// Aliases are the other names the record goes by ("Sefa" for "Sefa
	// Dunmore"): a packet's focus text that says one brings the record in.
	Aliases []string `json:"aliases,omitempty"`
	// Keys are lorebook-style triggers: words or phrases whose mention
	// brings the record in, though they are not its name.
	Keys []string          `json:"keys,omitempty"`
	Meta map[string]string `json:"meta,omitempty"`
	// Order is the record's position in a sequence (timeline, chapter,
	// turn). Positions start at 1; 0 means the record has no position.
	Order  int64 `json:"order,omitempty"`
	Pinned bool  `json:"pinned,omitempty"`
	// Binary marks a record made from a file that is not valid UTF-8: it is
	// kept without a body.
	Binary bool `json:"binary,omitempty"`
	// Vector is the caller's embedding of the record (float32, its
	// dimension fixed per namespace by the first one; see vector.go). It
	// is content: a new vector is a new version. Read by Get, GetVersion,
	// History and ForEach, never with heads.
	Vector []float32 `json:"vector,omitempty"`
	// hasVector is set on a record read whose head says it has a vector,
	// read or not.
	hasVector bool

	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Version int       `json:"version"`
	// SHA256 is the hex digest of the record's content (every field above
	// Created, the vector included), so identical puts can be recognised without reading bodies.
	SHA256 string `json:"sha256"`
	// BodyBytes is len(Body); it is set on records read without their body.
	BodyBytes int `json:"body_bytes"`
	// Tokens caches token counts per counter name (e.g. "o200k_base").
	Tokens map[string]TokenCount `json:"tokens,omitempty"`
}

// TokenCount is the cached size of a record's parts under one counter.
type TokenCount struct {
	Title   int `json:"title"`
	Body    int `json:"body"`
	Summary int `json:"summary"`
}

// Link is a directed, named edge between two records of one namespace.
// To may name a record that does not exist (yet).
type Link struct {
	NS     string  `json:"ns"`
	From   string  `json:"from"`
	Rel    string  `json:"rel"`
	To     string  `json:"to"`
	Weight float64 `json:"weight,omitempty"`
	// Made is when the link was first made (a new weight keeps it), in
	// Unix nanoseconds, strictly increasing within a process: links sorted
	// by it are in the order they were made. Set on links read; 0 for
	// links made before it was kept. Ignored by Link and PutMany;
	// RestoreContext keeps it for a link it makes (an export carries it).
	Made int64 `json:"-"`
	// ToNS, when set, names the target's namespace. It exists so that a
	// link into another namespace (from an import, say) is refused with a
	// clear error rather than silently kept: it must be "" or equal NS.
	// The store never sets it.
	ToNS string `json:"to_ns,omitempty"`
}

// Op names the kind of write a Change records.
type Op string

// The operations recorded in the change log.
const (
	OpPut    Op = "put"
	OpDelete Op = "delete"
	OpLink   Op = "link"
	OpUnlink Op = "unlink"
)

// Change is one entry of the change log: every write appends one per
// record it touches, in the same transaction as the write.
type Change struct {
	Seq uint64 `json:"seq"`
	Op  Op     `json:"op"`
	NS  string `json:"ns"`
	ID  string `json:"id"`
}
