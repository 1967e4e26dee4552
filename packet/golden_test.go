package packet

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden packets in packet/testdata/golden")

// TestGoldenPackets keeps the fixture's scene packet, as a user sees it
// (stdout, then the report), in every format and at budgets that stop at
// different ladder steps. Refresh with go test ./packet -run TestGoldenPackets -update.
func TestGoldenPackets(t *testing.T) {
	recs, links := fxCanon()
	env := fxOpen(t, recs, links, true)
	cases := []struct {
		name string
		req  Request
	}{
		{"scene-12.fits.md", fxSceneRequest(8000)},
		{"scene-12.2600.md", fxSceneRequest(2600)},
		{"scene-12.1900.md", fxSceneRequest(1900)},
		{"scene-12.2600.xml", func() Request { r := fxSceneRequest(2600); r.Format = "xml"; return r }()},
		{"scene-12.3000.json", func() Request { r := fxSceneRequest(3000); r.Format = "json"; return r }()},
		{"scene-12.frame.md", fxSceneRequest(40)},
		{"scene-12.split.txt", fxSceneRequest(1100)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc.name, buildOrErr(t, env, tc.req)) })
	}
}

// checkGolden compares got with packet/testdata/golden/name, or with
// -update writes it there.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./packet -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (check the change, then run with -update):\n--- got\n%s", path, got)
	}
}
