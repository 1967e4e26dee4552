package pack

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// packBelowFrame matches the report's warning for a budget below the
// frame, and captures the frame's size.
var packBelowFrame = regexp.MustCompile(`(?m)^Warning: budget ([\d,]+) is below the frame of the pack \(([\d,]+) tokens\)`)

// packFrameNamed is the frame size the report of p names, 0 if none.
func packFrameNamed(t *testing.T, p *Pack) int {
	t.Helper()
	m := packBelowFrame.FindStringSubmatch(p.Report())
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	if err != nil {
		t.Fatalf("frame size %q: %v", m[2], err)
	}
	return n
}

// TestPackFrameSweep is lmpack's rule below the frame with Lore's bound
// (DESIGN, budget rule 7): at every budget from 1 to twice the frame,
// with and without GitDiff, in every format, the written pack counts no
// more than its budget by the real tokenizer; a pack with anything
// dropped, or a frame cut short, exits 2; and below the frame the report
// warns with the frame's size, a budget at which the frame is written
// whole. The same budget gives the same bytes.
func TestPackFrameSweep(t *testing.T) {
	c := packRealCounter(t)
	root := packGitTree(t)
	for _, gitDiff := range []bool{false, true} {
		for _, format := range []string{"md", "xml", "json"} {
			name := fmt.Sprintf("%s git-diff=%v", format, gitDiff)
			opts := Options{Counter: c, Format: format, GitDiff: gitDiff}
			packs := map[int]*Pack{}
			at := func(b int) *Pack {
				if p := packs[b]; p != nil {
					return p
				}
				o := opts
				o.Budget = b
				packs[b] = packMust(t, root, o)
				return packs[b]
			}
			all := len(packMust(t, root, opts).Files)
			frame := packFrameNamed(t, at(1))
			if frame < 2 {
				t.Fatalf("%s budget 1: the report names no frame (got %d):\n%s", name, frame, at(1).Report())
			}
			cut := 0
			for b := 1; b <= 2*frame; b++ {
				p := at(b)
				out, err := p.Render("")
				if err != nil {
					t.Fatal(err)
				}
				n := c.Count(string(out))
				if n > b || n != p.Tokens {
					t.Errorf("%s budget %d: wrote %d tokens (Tokens %d): over the budget or misstated\n%s", name, b, n, p.Tokens, out)
				}
				if len(p.Files)+len(p.Deferred) != all {
					t.Errorf("%s budget %d: %d packed + %d deferred != %d files", name, b, len(p.Files), len(p.Deferred), all)
				}
				if want := len(p.Deferred) > 0 || p.FrameOnly; (p.ExitCode() == 2) != want || (p.ExitCode() != 0 && p.ExitCode() != 2) {
					t.Errorf("%s budget %d: exit %d with %d deferred (frame only %v)", name, b, p.ExitCode(), len(p.Deferred), p.FrameOnly)
				}
				packCheckWellFormed(t, fmt.Sprintf("%s budget %d", name, b), format, out)
				if named := packFrameNamed(t, p); named > 0 {
					cut++
					if w := p.Warnings[len(p.Warnings)-1]; p.form == frameShort && !strings.Contains(string(out), packShownIn(format, w)) {
						t.Errorf("%s budget %d: the pack cut to its title and warning lacks the warning %q:\n%s", name, b, w, out)
					}
					if named <= b || !p.FrameOnly || len(p.Files) != 0 {
						t.Errorf("%s budget %d: below a frame of %d tokens, frame only %v, %d files", name, b, named, p.FrameOnly, len(p.Files))
					}
					// The size named is the truth: at that budget the
					// frame is written whole, one token less it is cut
					// (here no file costs less than its note, so nothing
					// smaller than the frame can be written whole).
					if whole := at(named); packFrameNamed(t, whole) != 0 || whole.Tokens > named {
						t.Errorf("%s budget %d names a frame of %d tokens, but at %d the pack is cut again (%d tokens):\n%s",
							name, b, named, named, whole.Tokens, whole.Report())
					}
					if short := at(named - 1); packFrameNamed(t, short) == 0 {
						t.Errorf("%s budget %d names a frame of %d tokens, but at %d the pack is not cut:\n%s",
							name, b, named, named-1, short.Report())
					}
				}
				if b%7 == 0 || b == frame-1 || b == frame {
					o := opts
					o.Budget = b
					again, _ := packMust(t, root, o).Render("")
					if !bytes.Equal(again, out) {
						t.Errorf("%s budget %d: two runs wrote different bytes:\n%s\n---\n%s", name, b, out, again)
					}
				}
			}
			if cut == 0 {
				t.Errorf("%s: no budget was below the frame", name)
			}
			t.Logf("%s: frame %d tokens; budgets 1-%d swept, %d below the frame", name, frame, 2*frame, cut)
		}
	}
}

// packShownIn is w as a pack in format writes it.
func packShownIn(format, w string) string {
	switch format {
	case "xml":
		return packXMLText(w)
	case "json":
		data, _ := json.Marshal(w)
		return string(data)
	}
	return w
}

// packCheckWellFormed fails unless out, when not empty, is one document
// of format: a JSON value, or well-formed XML.
func packCheckWellFormed(t *testing.T, name, format string, out []byte) {
	t.Helper()
	if len(out) == 0 {
		return
	}
	switch format {
	case "json":
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Errorf("%s: not JSON: %v\n%s", name, err, out)
		}
	case "xml":
		d := xml.NewDecoder(bytes.NewReader(out))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Errorf("%s: not well-formed XML: %v\n%s", name, err, out)
				break
			}
		}
	}
}
