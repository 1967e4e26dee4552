package packet

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/lorekeep/lore/budget"
)

// countsUnderWay is a counter that knows how many of its counts are
// under way, and how many it has made.
type countsUnderWay struct {
	budget.Counter
	inFlight, made atomic.Int64
}

func (c *countsUnderWay) Count(text string) int {
	c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	c.made.Add(1)
	return c.Counter.Count(text)
}

// No count of a build is under way once Build has returned, whether or
// not its packet needed arrange's model counted ahead (ahead.go): a
// model left counting would count beside the caller's next build (into
// the process's fragment cache, for the budget package's counters).
// Swept over the budgets of the scene request, the model is counted
// ahead in most builds and not needed in some; when it was not a helper
// of the build (helpers.go), 16 of 20 runs found a build that had
// returned with it still counting.
func TestBuildReturnsAfterItsModel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the model is counted ahead on a second core only
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	c := &countsUnderWay{Counter: fxCounter(t)}
	built := 0
	for _, format := range validFormats {
		for b := 150; b <= 4000; b += 23 {
			req := fxSceneRequest(b)
			req.Format, req.Counter = format, c
			p, err := Build(t.Context(), env.st, env.ix, req)
			if n := c.inFlight.Load(); n != 0 {
				t.Fatalf("%s at %d: Build returned with %d counts under way", format, b, n)
			}
			if err == nil && p != nil {
				built++
			}
		}
	}
	if built == 0 || c.made.Load() == 0 {
		t.Fatal("no packet was built: the test checks nothing")
	}
}
