package packet

import (
	"runtime"
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
	// Bodies are read ahead on a second core only: with -cpu 1 the test
	// would compare nothing.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	ahead, alone := concurrentSource{minimalSource{st: env.st}}, minimalSource{st: env.st}
	read0, used0 := BodiesAheadStats()
	// Neither side finds counts the other made.
	samePackets(t, env, alone, ahead, resetFragments, "depends on the bodies read ahead")
	read, used := BodiesAheadStats()
	if read == read0 || used == used0 {
		t.Fatalf("no body was read ahead (%d) or used (%d): the test compares nothing", read-read0, used-used0)
	}
}
