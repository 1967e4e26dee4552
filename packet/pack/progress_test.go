package pack

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestPackProgress: Dir tells its phases, each ending with all done.
func TestPackProgress(t *testing.T) {
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("src/f%03d.go", i)] = fmt.Sprintf("package src\n\n// file %d\n", i)
	}
	dir := filepath.Join(t.TempDir(), "proj")
	packWriteTree(t, dir, files)
	var phases []string
	last := map[string][2]int{}
	opts := Options{Budget: 2000, Progress: func(phase string, done, total int) {
		if len(phases) == 0 || phases[len(phases)-1] != phase {
			phases = append(phases, phase)
		}
		if done < last[phase][0] {
			t.Errorf("%s went back from %d to %d", phase, last[phase][0], done)
		}
		last[phase] = [2]int{done, total}
	}}
	if _, err := Dir(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	if want := []string{"counting tokens", "fitting"}; !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	if last["counting tokens"] != [2]int{150, 150} || last["fitting"] != [2]int{1, 1} {
		t.Errorf("phases ended at %v; want 150 of 150 files counted, fitting 1 of 1", last)
	}
}
