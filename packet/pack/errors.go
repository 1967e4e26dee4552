package pack

import "errors"

// Errors of the files profile (Dir). They are wrapped with the bad
// value quoted; test them with errors.Is.
var (
	// ErrInvalid reports a bad Options value: a negative budget, an
	// unknown format, an empty priority name or category pattern, a
	// malformed category glob (an unclosed "[").
	ErrInvalid = errors.New("invalid pack option")
	// ErrGit reports that Options.GitDiff was asked for but git
	// could not say which files changed (git missing, or DIR is not inside
	// a git work tree).
	ErrGit = errors.New("git diff unavailable")
)
