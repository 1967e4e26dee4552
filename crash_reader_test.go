package lore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/index"
	"github.com/lorekeep/lore/store"
)

// A writer SIGKILLed at a random point of a put (before its commit,
// between its commit and its index update, or after both) leaves a store
// in which the next reader, read-only, finds by search every record whose
// put was acknowledged, with a store that checks clean. Every other put
// of the helper commits without updating the index (the next one does),
// so many kills leave the index behind.
func TestReaderAfterSIGKILL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".lore")
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	var acked []string
	lagged := 0
	for round := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPutHelperProcess$")
		cmd.Env = append(os.Environ(), "LORE_PUT_HELPER_DIR="+dir, fmt.Sprintf("LORE_PUT_HELPER_ROUND=%d", round))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for n := 0; sc.Scan(); n++ {
			if id, ok := strings.CutPrefix(sc.Text(), "acked "); ok {
				acked = append(acked, id)
			}
			if n == 20+round*7 {
				cmd.Process.Kill()
				break
			}
		}
		cmd.Wait()
		if lagging(t, dir) {
			lagged++
		}

		l, err := lore.Open(dir, &lore.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: read-only open after SIGKILL: %v", round, err)
		}
		hits, err := l.Search(context.Background(), index.Query{NS: "crash", Text: "breakwater", Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, h := range hits {
			found[h.ID] = true
		}
		for _, id := range acked {
			if !found[id] {
				t.Errorf("round %d: acknowledged record %s missing from a reader's search", round, id)
			}
		}
		if probs, err := l.Check(); err != nil || len(probs) > 0 {
			t.Errorf("round %d: check after SIGKILL: %v %v", round, probs, err)
		}
		l.Close()
	}
	if len(acked) < 8 {
		t.Fatalf("only %d puts acknowledged", len(acked))
	}
	t.Logf("%d puts acknowledged; the index lagged the store after %d of 8 kills", len(acked), lagged)
}

// lagging reports whether the index in dir holds fewer changes than the
// store: the kill fell between a commit and its index update.
func lagging(t *testing.T, dir string) bool {
	st, err := store.Open(filepath.Join(dir, lore.BoltFile), &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	last, err := st.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(dir, lore.IndexDir), &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	wm, err := ix.Watermark()
	if err != nil {
		t.Fatal(err)
	}
	return wm < last
}

// TestPutHelperProcess is not a test: run by TestReaderAfterSIGKILL, it
// puts records until killed, printing each acknowledged id.
func TestPutHelperProcess(t *testing.T) {
	dir := os.Getenv("LORE_PUT_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process")
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	round := os.Getenv("LORE_PUT_HELPER_ROUND")
	for i := 0; ; i++ {
		id := fmt.Sprintf("r%s-%05d", round, i)
		rec := store.Record{NS: "crash", ID: id, Body: "the keeper logged the tide at the breakwater"}
		var err error
		if i%2 == 0 {
			_, err = l.Put(context.Background(), rec)
		} else {
			// Committed through the store alone, indexed by the next put:
			// a kill before it leaves the window of a crash between a
			// commit and its index update.
			_, err = l.Store().Put(rec)
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("acked", id)
	}
}
