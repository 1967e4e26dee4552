package packet

import "errors"

// Errors of the files profile (PackDir). They are wrapped with the bad
// value quoted; test them with errors.Is.
var (
	// ErrPackInvalid reports a bad PackOptions value: a negative budget, an
	// unknown format, an empty priority name or category pattern, a
	// malformed category glob (an unclosed "[").
	ErrPackInvalid = errors.New("invalid pack option")
	// ErrPackGit reports that PackOptions.GitDiff was asked for but git
	// could not say which files changed (git missing, or DIR is not inside
	// a git work tree).
	ErrPackGit = errors.New("git diff unavailable")
)
