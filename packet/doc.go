// Package packet builds Context Packets: the records that matter for one
// decision, ranked by decision relevance, fitted into a token budget, with
// a note for everything left out and why.
//
// # Interfaces
//
// A packet reads through two small interfaces declared here: a Source
// (Heads, Bodies, Neighbors, List; *store.Store satisfies it, and its
// SetTokens makes it a TokenSetter for lazily cached counts) and a Searcher
// (Search over index.Query; *index.Index satisfies it). Token counting uses
// a budget.Counter; fitting uses budget.Fit.
//
// # Pipeline
//
// Build runs, in order:
//
//  1. Candidates: the focus records; full-text hits within the namespace;
//     graph neighbours of each focus up to Request.Hops (1 or 2); the POV
//     character of a focus (meta.pov, or a "pov" link); the records whose
//     title (naming kinds only), aliases or keys the focus text says, and
//     with Request.ScanQuery the query (package mention: whole words,
//     longest first; ambiguity is warned; at Request.MentionsDepth 2 their
//     text names more, within Config.MentionShare); rule pulls: open
//     obligations (meta.status empty or open, meta.due from the focus
//     position up to the scope's Config.ObligationHorizon, or already
//     overdue: "overdue since N"; read through store.Store.Due, the
//     DueSeeker, where the store keeps due keys) and the timeline entries
//     bounding the focus by order (the nearest at or before it and the
//     nearest after it, through the OrderSeeker); kinds a rule
//     pulls while its condition holds (style when drafting, power rules
//     with --when power...). Nothing outside Request.NS is ever read. The
//     walk goes hop by hop: a record story time hides is no bridge to a
//     second hop (nor are its links followed as a hit's or a character's
//     in play).
//  2. Ranks: the profile's rules (Config) are tried in order; the first
//     that matches a candidate's relation and kind gives its rank. A
//     candidate whose rule's condition is false (task mode, --when), that
//     a kind filter removes, that story time excludes, or that no rule
//     matches, is not loaded at all; Packet.Skipped lists them.
//  3. Measure: token counts come from the store's cache (Record.Tokens
//     keyed by encoding); no body is read before fitting. A record without
//     a count for the request's encoding is counted once and cached
//     through the TokenSetter. Where the profile sets Profile.Excerpt
//     (agent), the long bodies of the most important candidates that are
//     neither protected nor pinned are read here and each is replaced by
//     its excerpt: the passage the query matches, the record's own text in
//     its order, with gap markers and the tokens left out (excerpt.go),
//     the same at every budget.
//  4. Fit: the deferral ladder, each step only while still over, and
//     after each step what fits is put back:
//     step 1 drops the unprotected ranks (10 down to 6 in the novel
//     profile), least important first, through budget.Fit (protected
//     ranks and pinned records are pinned for Fit);
//     step 2 replaces long prose (a body of Config.LongProse tokens or
//     more with a summary) by its summary and a citation, never rank 1;
//     step 3 narrows the walk from two hops to one;
//     step 4 collapses history (timeline kinds) to summaries, or titles;
//     steps 2 and 4 never use a shorter form that costs as much as the
//     whole; when the estimates' slack grows at step 4, steps 2 to 4 run
//     again with it before giving up;
//     step 5 gives up, but only after the floor packet (every protected
//     and pinned record in the shortest form a step may give it, the
//     rest deferred; for a kind whose overflow action is fail, that
//     content and the records the walk could not drop before it, whole)
//     is rendered and counted whole and found over the budget: a floor
//     that fits is the ladder's packet (floor.go), so no estimate refuses
//     a budget the builder can write. A *SplitError (ErrCannotFit) lists
//     the protected records with their tokens, names the least budget at
//     which the packet is written (Need, searched with the real build:
//     written at Need, refused at Need-1), and proposes a split, each
//     proposal a set of requests shown as the `lore packet` lines that
//     make them, each built before it is shown and shown only when it
//     writes a packet (propose.go). Those builds share the request's
//     searches, names and matchers (searchmemo.go, requestwork.go) but
//     read heads of their own, so that each answers as the request built
//     alone; the search's builds stop at their first fit, since whether
//     they are written is all they ask; on a ConcurrentSource a kinds
//     proposal is checked beside the search (splitkinds.go).
//  5. Load the survivors' bodies, render, and count the whole rendered
//     packet with the real counter (budget rule 6). Where the Source is a
//     ConcurrentSource, the bodies of the most important candidates (up
//     to the budget by their cached counts) are read and counted on
//     another core while the build prices and fits, and taken from there
//     (bodiesahead.go). The packet is rendered and counted once
//     (settle.go) and handed on so: each step after the ladder (the
//     growing fill's calibration, the final put-back, the listed notes)
//     takes the counted packet and returns its own, rendering only what
//     it changes, and acts only on a packet within the budget (fit.go).
//     The count meets the budget in one place, at the end of the route
//     (checkFit, check.go): over it, fitting runs again against a limit
//     lowered by the excess, so the packet never exceeds the budget.
//     Every comparison of tokens with a budget goes through fits.
//  6. Final put-back (putback.go), against the real budget with the
//     real count: a packet fitted at step 2 or later is rebuilt from one
//     base for that step (everything those steps may shorten,
//     shortened), most important record first, each in the best form
//     that fits (rebase.go); then every record not whole, most important
//     first, gets the best form that still fits (restore.go). Both change
//     one record at a time and take a change back while the count is
//     over. Trial counts stand in for unread bodies with text of their
//     cached size, so no body is read for a record that stays out; the
//     packet a trial kept is counted again with its bodies before it is
//     written. At the same ladder step, a bigger budget is never worse
//     by importance.
//
// # Accounting
//
// Every candidate appears either as an entry or as a deferral note, so
// the frame given to budget.Fit is the fixed heading plus a note for every
// candidate, and an item costs what its entry costs beyond its note.
// Records shown by their summary keep their note (it says what was saved).
//
// A note costs about 25 tokens, so a request with hundreds of candidates
// could spend the whole budget on notes. When the notes of all candidates
// would take more than Config.NoteShare (5%) of the budget, the ladder
// runs with the notes grouped from the start: the most important are
// listed one by one within the share (never one that costs more than a
// third of its record), the rest counted by kind (Packet.Grouped), each
// group with its handle: the same request with --deferred and the
// group's kinds lists exactly its records (Packet.DeferredOf).
// Packet.Deferred and the report still list every note.
//
// The hit pool follows the budget: 20, 80, 320... hits (the first depth
// of at least one hit per 60 tokens, deeper while the hits cost under
// three quarters of the budget; Config.HitLimit caps it), so a bigger
// budget never looks less deep. Where the profile takes hit neighbours
// (agent), the search reads 320 hits whatever the budget and scores each
// in its sequence context (Config.ContextShare, Config.WindowShare: the
// hits beside it in a "next" chain raise it), and the budget then decides
// how many of them become candidates, in steps of 80, 320, ...: the first
// step whose hits and their neighbours hold the budget by their sizes in
// bytes over four (about their tokens; the packet adds a heading to each,
// so the packet, a prefix, seldom could use a deeper hit; never by cached
// counts, which would make the packet depend on what the store cached).
// A hit's one-hop neighbours get Config.NeighborShare of its score
// (NextShare and PreviousShare along a sequence, and AfterNextShare for
// the record two after it), so that within their rank
// they follow the hit that brought them; in the packet, a neighbour along
// the sequence sits beside its hit (the turn before just before it, the
// reply and the turn after that just after), and markdown's heading then
// needs no why. Those shares, and the gain a hit takes from the hits
// beside it, are whole for records of up to 100 tokens and shrink past
// that (shortness); a hit longer than 300 tokens is scored per 300
// tokens of its text (perLength). A Profile.Monotone profile (agent and
// novel) keeps every record of a smaller budget's packet at a bigger
// one. The novel profile keeps its packet a prefix of the packet order:
// once a record does not fit, nothing less important is put back. The
// agent profile (Profile.Grow) fills as if the budget grew from nothing
// (budget.Request.Grow): in steps sized by the most important record
// out, each filled first-fit, so a long record blocks nothing after it;
// the re-count takes out the last let in, the final put-back adds
// nothing the fill left out, and the fill runs once more against the
// frame the real count shows (calibrateFrame). With protected records that have shorter
// forms, the put-back restores them whole, most important first, and
// fills what they leave with the records after them; walking the budget
// up, a record comes in where that room first holds it and never goes
// again, and a protected record is restored whole only in the room left
// after the records every smaller budget held (monotone.go).
//
// # Ranks
//
// The novel profile is the context-budget skill's table: 1 focus, POV
// character, immediate constraints (one-hop neighbours of kind
// constraint); 2 canon facts the scene touches (one-hop neighbours of
// canon kinds: character, location, fact...); 3 other graph neighbours
// (two-hop ones are what step 3 removes); 4 open obligations due; 5
// bounding timeline entries; 6 relationships in play (linked to the scene,
// or to the POV or a character one hop from the scene), and search hits
// that no structural rule claims; 7 power rules if --when power; 8 style
// if the task is draft or revise; 9 reader knowledge if --when
// info-control; 10 themes, motifs, tropes if --when thematic; 11 other
// branches and novels: never, unless the request lists the kind. Ranks 1
// to 5 are protected. Query hits rank 6 so that a broad query cannot grow
// the protected set. Within a rank: focus records first (in the order
// asked), then higher search score, story order, id.
//
// The agent profile: 1 focus and pinned records, 2 core memories, 3 hits by
// relevance and their one-hop neighbours, 4 one-hop neighbours of the
// focus, 5 two-hop neighbours, 6 the most recently updated records. Ranks 1 and 2 are
// protected.
//
// # Story time
//
// A record is loaded only while meta.from <= AsOf <= meta.until (both
// inclusive); positions are numbers or ids of records with an order. A
// fact that changes at scene 30 is not leaked into scene 12. While
// drafting or revising (no task counts as drafting), an ordered record
// (order > 0: a scene, a chapter, a timeline entry) after AsOf is not
// loaded either ("story time: later in the story (order 6 > as of 3)"),
// except the timeline entries that bound the focus; plan and audit see
// ahead. Request.AsOf
// 0 takes the focus's position (the smallest order among the focus
// records; none when no focus has one), so a scene packet never sees what
// only holds later; NoStoryTime turns story time off. The packet's request
// line shows the position used.
//
// # Output
//
// Packet.Render gives markdown, XML or JSON, byte-identical for the same
// store and request: no timestamps, everything sorted. Each carries one
// line with its token total (the count of the whole output; when stating
// the number changes the count, a token or two over it, never under) and
// a content hash: sha256 of the rendered bytes without that line, so the
// hash and the total do not depend on each other (ContentHash checks it). Packet.Report is the stderr summary, Packet.Explain the why table,
// ExitCode the CLI's exit code (0 complete, 2 something deferred or frame
// only, 3 ErrCannotFit, 1 other errors).
//
// Nothing Build returns is over its budget. A packet with nothing
// protected whose budget holds the frame (heading and grouped notes) but
// no record is the frame with a warning and every record deferred
// (FrameOnly, exit 2). A budget below the frame, or protected content that
// does not fit, is ErrCannotFit (exit 3): the *SplitError names the
// protected records, or the frame's size when nothing is protected.
//
// Safe for concurrent use: Build keeps no state between calls, and a
// Packet is read-only once built.
package packet
