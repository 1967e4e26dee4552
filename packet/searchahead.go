package packet

import (
	"context"

	"github.com/lorekeep/lore/index"
)

// The request's first search, started on another goroutine as the
// gather begins. It depends on the request alone (firstSearch), and on
// a large store it is the longest wait of a packet: meanwhile the gather
// reads the focus, its links, and builds the matcher of the names the
// focus can say (prepareMentions), which depend on no hit. Only the
// search runs on the other goroutine, and nothing else calls the
// Searcher until it is done: each of Source and Searcher is called from
// one goroutine at a time.

// searchAhead is the first search, being made or made.
type searchAhead struct {
	done chan struct{}
	hits []index.Hit
	err  error
}

// wait returns the search's hits once it is made.
func (a *searchAhead) wait() ([]index.Hit, error) {
	<-a.done
	return a.hits, a.err
}

// startSearch starts the request's first search, when the request has
// a query to search and a Searcher to search it with; nil otherwise.
func (g *gatherer) startSearch() *searchAhead {
	if !g.req.searches() || g.srch == nil {
		return nil
	}
	a := &searchAhead{done: make(chan struct{})}
	q, srch := g.firstSearch(), g.srch
	g.bg.Go(func(ctx context.Context) {
		defer close(a.done)
		a.hits, a.err = srch.Search(ctx, q)
	})
	return a
}
