//go:build !fts5

package main

import "fmt"

// Without the fts5 build tag lore-bench links no C: the SQLite FTS5
// baseline (fts5.go) is left out, and its phases say how to build it.

const fts5Built = false

var errNoFTS5 = fmt.Errorf("the SQLite FTS5 baseline is not built: go build -tags fts5 ./cmd/lore-bench (cgo and a C compiler): %w", errUsage)

func ingestFTS5(corpus, phaseArgs) (phaseResult, error) { return phaseResult{}, errNoFTS5 }
func searchFTS5(corpus, phaseArgs) (phaseResult, error) { return phaseResult{}, errNoFTS5 }
