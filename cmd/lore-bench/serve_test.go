package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServeFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-clients", "0"},
		{"-clients", "1,x"},
		{"-mix", "reads"},
		{"-requests", "0"},
		{"-duration", "0s"},
		{"-other-writer", "-1s"},
		{"extra"},
	} {
		err := run(context.Background(), append([]string{"serve"}, args...), io.Discard, io.Discard)
		if !errors.Is(err, errUsage) {
			t.Errorf("serve %v: %v, want a usage error", args, err)
		}
	}
}

// TestServeSmall runs the load test end to end on a tiny corpus: it
// stops by itself, every request is answered, and the other process's
// puts get in.
func TestServeSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore and runs servers")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lore")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/lorekeep/lore/cmd/lore").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	jsonFile := filepath.Join(dir, "serve.json")
	var out strings.Builder
	args := []string{"serve", "-n", "150", "-queries", "10", "-clients", "1,3", "-requests", "60", "-duration", "20s",
		"-other-writer", "20ms", "-lore-bin", bin, "-dir", filepath.Join(dir, "work"), "-json", jsonFile}
	start := time.Now()
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep serveReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 4 || rep.InProcess.Packet.Count == 0 {
		t.Fatalf("%d runs (want 4: two mixes at two client counts), in process %+v", len(rep.Runs), rep.InProcess)
	}
	for _, r := range rep.Runs {
		if r.Errors > 0 || r.Answered == 0 {
			t.Errorf("%s %d clients: %d answered, %d errors (%s)", r.Mix, r.Clients, r.Answered, r.Errors, r.FirstError)
		}
		if r.Mix == mixMixed && (r.Write.Count == 0 || r.Search.Count == 0 || r.Packet.Count == 0) {
			t.Errorf("mixed run without all three kinds: %+v", r)
		}
		if r.OtherFailed > 0 {
			t.Errorf("%s %d clients: the other process's put failed: %s", r.Mix, r.Clients, r.OtherError)
		}
	}
	if !strings.Contains(out.String(), "| this | mixed | 3 |") {
		t.Errorf("table:\n%s", out.String())
	}
	t.Logf("%v\n%s", time.Since(start), out.String())
}
