package main

import (
	"errors"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/packet"
)

// Library errors say what is wrong in the library's words, so that a Go
// program is never told about flags it does not have. What to type about
// it on the command line is the command line's to say: cliHint adds it,
// matched by the error's sentinel, never by its text.

// cliHint is the command line's advice for err, or "" when it has none.
func cliHint(err error) string {
	var noStore *lore.NoStoreError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &noStore) && noStore.Inside != "":
		return "did you mean --store " + noStore.Inside + "?"
	case errors.Is(err, lore.ErrNoStore):
		return "run `lore init` to make a store here, or point --store (or " + lore.EnvStore + ") at the folder that holds " + lore.BoltFile
	case errors.Is(err, lore.ErrNoIndex), errors.Is(err, index.ErrNotFound), errors.Is(err, index.ErrCorrupt):
		return "`lore reindex` rebuilds the index from the store"
	case errors.Is(err, packet.ErrMarkdownPacket), errors.Is(err, packet.ErrNotPacket):
		return "write the packets with --format json or --format xml, or compare one request at two budgets (--budget and --other-budget)"
	}
	return ""
}
