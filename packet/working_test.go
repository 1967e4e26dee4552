package packet

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lorekeep/lore/store"
)

// A refusal is the same every time it is made: its search for the least
// budget and the proposals it checks build with heads of their own
// (requestWork.own), so nothing one of them read changes another; that
// each then answers as the request built alone is what
// TestRefusalMinimumIsExact checks.
func TestSplitRefusalRepeats(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	refused := 0
	for b := 200; b <= 1400; b += 50 {
		req := fxSceneRequest(b)
		req.Focus, req.Counter = []string{"scene-12", "tomas"}, counter
		_, err := Build(context.Background(), env.st, env.ix, req)
		var se *SplitError
		if !errors.As(err, &se) {
			continue
		}
		refused++
		_, again := Build(context.Background(), env.st, env.ix, req)
		if again == nil || again.Error() != err.Error() {
			t.Errorf("budget %d: refused as\n%v\nthen as\n%v", b, err, again)
		}
	}
	if refused < 5 {
		t.Fatalf("only %d refusals: the budgets no longer test the split's builds", refused)
	}
}

// A kinds proposal checked beside the search for the least budget
// (checkKindsAhead) is the one checked after it: every refusal, over
// focuses and budgets, is the same with the check ahead and without, also
// where the plan made ahead is not the one the search leads to (skewed).
func TestKindsCheckedAheadSameRefusal(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	refusal := func(req Request, ahead bool, skew int) string {
		kindsAheadOn, kindsAheadSkew = ahead, skew
		defer func() { kindsAheadOn, kindsAheadSkew = true, 0 }()
		_, err := Build(context.Background(), env.st, env.ix, req)
		var se *SplitError
		if !errors.As(err, &se) {
			return fmt.Sprint(err)
		}
		return se.Report()
	}
	twoPackets := 0
	for _, focus := range [][]string{{"scene-12"}, {"scene-12", "tomas"}, {"mara", "tl-13"}} {
		for b := 1000; b <= 1400; b += 8 {
			req := fxSceneRequest(b)
			req.Focus, req.Counter = focus, counter
			with, without, skewed := refusal(req, true, 0), refusal(req, false, 0), refusal(req, true, 60)
			if with != without || skewed != without {
				t.Errorf("focus %v at %d: with the check ahead\n%s\nskewed\n%s\nwithout\n%s", focus, b, with, skewed, without)
			}
			if strings.Contains(with, "two packets") {
				twoPackets++
			}
		}
	}
	if twoPackets < 3 {
		t.Fatalf("only %d refusals propose two packets: the budgets no longer test the check ahead", twoPackets)
	}
	t.Logf("%d refusals propose two packets", twoPackets)
}

// overlaps counts calls that ran while another was running.
type overlaps struct {
	running, overlapped atomic.Int32
}

func (o *overlaps) enter() {
	if o.running.Add(1) > 1 {
		o.overlapped.Add(1)
	}
}

func (o *overlaps) leave() { o.running.Add(-1) }

// oneAtATime is the store as a Source that is not a ConcurrentSource: it
// may be read from one goroutine at a time, which it checks.
type oneAtATime struct {
	st *store.Store
	overlaps
}

func (s *oneAtATime) Heads(ns string, ids []string) ([]store.Record, error) {
	s.enter()
	defer s.leave()
	return s.st.Heads(ns, ids)
}

func (s *oneAtATime) Bodies(ns string, ids []string) (map[string]string, error) {
	s.enter()
	defer s.leave()
	return s.st.Bodies(ns, ids)
}

func (s *oneAtATime) Neighbors(ns, id string, hops int, rels []string) ([]store.Neighbor, error) {
	s.enter()
	defer s.leave()
	return s.st.Neighbors(ns, id, hops, rels)
}

func (s *oneAtATime) List(opts store.ListOptions) ([]store.Record, string, error) {
	s.enter()
	defer s.leave()
	return s.st.List(opts)
}

// A refused packet checks its kinds proposal beside its search only on a
// Source that says it may be read concurrently; the refusals are the
// same either way.
func TestSplitKeepsTheReadContracts(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	serial := &oneAtATime{st: env.st}
	for b := 1000; b <= 1400; b += 8 {
		req := fxSceneRequest(b)
		req.Counter, req.Query = counter, "mill oath"
		_, concurrent := Build(context.Background(), env.st, env.ix, req)
		_, alone := Build(context.Background(), serial, env.ix, req)
		if fmt.Sprint(concurrent) != fmt.Sprint(alone) {
			t.Errorf("budget %d: refused as\n%v\non a concurrent source, as\n%v\non a serial one", b, concurrent, alone)
		}
	}
	if n := serial.overlapped.Load(); n > 0 {
		t.Errorf("%d reads of a Source that is not concurrent ran beside another", n)
	}
}

// A least-budget search's builds (Request.fitsOnly) end at the ladder's first
// fit. They must answer as the whole build does: refused at the same
// budgets with the same split, and within the budget where it fits. The
// put-back they skip must change some packet here, or the test would not
// see the early end at all.
func TestFitsOnlyAnswersAsTheWholeBuild(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	counter := fxCounter(t)
	fits, cut := 0, 0
	for _, focus := range [][]string{{"scene-12"}, {"scene-12", "tomas"}, {"mara", "tl-13"}} {
		for b := 40; b <= 3000; b += 37 {
			req := fxSceneRequest(b)
			req.Focus, req.Counter, req.proposing = focus, counter, true
			whole, errWhole := Build(context.Background(), env.st, env.ix, req)
			req.fitsOnly = true
			early, errEarly := Build(context.Background(), env.st, env.ix, req)
			if (errWhole == nil) != (errEarly == nil) {
				t.Fatalf("focus %v at %d: the whole build gives %v, the one that ends at its first fit %v", focus, b, errWhole, errEarly)
			}
			if errWhole != nil {
				var sw, se *SplitError
				if !errors.As(errWhole, &sw) || !errors.As(errEarly, &se) || !reflect.DeepEqual(sw, se) {
					t.Errorf("focus %v at %d: refused as\n%v\nand as\n%v", focus, b, errWhole, errEarly)
				}
				continue
			}
			fits++
			if early.Tokens > b || whole.Tokens > b {
				t.Errorf("focus %v at %d: %d and %d tokens, over the budget", focus, b, early.Tokens, whole.Tokens)
			}
			if early.Tokens != whole.Tokens {
				cut++
			}
		}
	}
	if fits == 0 || cut == 0 {
		t.Fatalf("%d packets fitted, %d of them put back or arranged after the first fit: the budgets no longer test the early end", fits, cut)
	}
	t.Logf("%d fitted, %d changed after their first fit", fits, cut)
}
