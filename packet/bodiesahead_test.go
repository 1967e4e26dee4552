package packet

import (
	"bytes"
	"errors"
	"testing"
)

// concurrentSource is minimalSource that says its reads may run at once,
// so builds read bodies ahead from it.
type concurrentSource struct{ minimalSource }

func (concurrentSource) ReadsConcurrently() bool { return true }

// TestBodiesAheadDoNotChangeThePacket: a packet is the same whether its
// build read the likely kept bodies ahead (and counted them into the
// process's cache) or read every body itself, at every budget and in
// every format; and the guess is used.
func TestBodiesAheadDoNotChangeThePacket(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	ahead, alone := concurrentSource{minimalSource{st: env.st}}, minimalSource{st: env.st}
	counter := fxCounter(t)
	compared := 0
	read0, used0 := BodiesAheadStats()
	for _, format := range validFormats {
		for b := 150; b <= 4000; b += 23 {
			req := fxSceneRequest(b)
			req.Format, req.Counter = format, counter
			resetFragments() // neither side finds counts the other made
			want, errWant := buildBytes(env, alone, req)
			resetFragments()
			got, errGot := buildBytes(env, ahead, req)
			var split *SplitError
			if errors.As(errWant, &split) && errors.As(errGot, &split) {
				continue // refused both ways
			}
			if errWant != nil || errGot != nil {
				t.Fatalf("%s at %d: read alone %v, read ahead %v", format, b, errWant, errGot)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s at %d: the packet depends on the bodies read ahead:\n%s\n----\n%s", format, b, want, got)
			}
			compared++
		}
	}
	if compared < 100 {
		t.Fatalf("only %d packets compared; the budgets no longer reach the canon", compared)
	}
	read, used := BodiesAheadStats()
	if read == read0 || used == used0 {
		t.Fatalf("no body was read ahead (%d) or used (%d): the test compares nothing", read-read0, used-used0)
	}
}
