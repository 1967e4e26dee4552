package pack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lorekeep/lore/internal/numfmt"
)

// frameForm is how much of its frame a pack holds. lmpack writes the
// frame whatever the budget; Lore keeps its rule (every file dropped, a
// warning, exit 2) but never writes past the budget (DESIGN, budget rule
// 7), so below the frame the pack is cut to the largest of the shorter
// forms that fits.
type frameForm int

const (
	frameWhole frameForm = iota // heading, request, totals, tree, not-packed list
	frameShort                  // the title and the warning
	frameTitle                  // the title alone
	frameEmpty                  // an empty document of the format (packEmpty)
	frameNone                   // nothing at all: not even frameEmpty fits
)

// packEmpty is the smallest document of each format: what a pack is cut
// to when not even its title fits.
func packEmpty(format string) string {
	switch format {
	case "xml":
		return "<pack/>\n"
	case "json":
		return "{}\n"
	}
	return "# Pack\n"
}

// frameOnly defers every file. When the budget holds the whole frame
// (no file could come with its deferral note), the pack is that frame
// and a warning, the notes being in the report alone; below it the pack
// is cut to the largest shorter form within the budget, and the warning
// names the frame's size.
//
// The pin notes (the changed files lost their pin) are left out: with
// every file dropped they say nothing more, and without them the frame
// is the same at every budget, so the size the warning names holds.
func (f *fitter) frameOnly(warnings []string) {
	p := f.p
	v := f.frameView(p.Budget, warnings)
	out, n := packRenderCounted(&v, p.Format, f.counter, f.guess)
	if n <= p.Budget {
		*p = v
		p.out, p.Tokens, f.guess = out, n, n
		return
	}
	size := f.frameSize(warnings, n)
	p.FrameOnly, p.GroupedNotes, p.Files = true, false, nil
	for form := frameShort; ; form++ {
		p.form = form
		p.frameWarning = f.cutWarning(form, size)
		p.Warnings = append(slices.Clone(warnings), p.frameWarning)
		f.set(nil, packReasonFrame)
		if p.Tokens <= p.Budget || form == frameNone {
			return
		}
	}
}

// frameView is the pack with every file deferred, written whole, as it
// would be at budget b. With no file to pack it is the pack itself.
func (f *fitter) frameView(b int, warnings []string) Pack {
	v := *f.p
	v.Budget, v.form, v.frameWarning = b, frameWhole, ""
	v.Files, v.GroupedNotes = nil, false
	v.FrameOnly = len(f.items) > 0
	v.Warnings = slices.Clone(warnings)
	if v.FrameOnly {
		v.Warnings = append(v.Warnings, fmt.Sprintf("budget %s cannot hold any file with the deferral notes: every file was dropped, the notes are in the report",
			numfmt.Thousands(b)))
	}
	v.Deferred = packDeferredOf(f.items, nil, packReasonNotes)
	v.Hash = packHash(&v)
	return v
}

// frameSize is the smallest budget above the pack's that holds the whole
// frame (n is its count at the pack's budget). The frame states its
// budget and its share of it, so its count moves a little with the
// budget: it is counted again at the count it gave until that holds.
func (f *fitter) frameSize(warnings []string, n int) int {
	count := func(b int) int {
		v := f.frameView(b, warnings)
		_, c := packRenderCounted(&v, f.p.Format, f.counter, b)
		return c
	}
	lo := f.p.Budget + 1
	best := 0
	b := max(n, lo)
	for range 8 {
		c := count(b)
		if c <= b && (best == 0 || b < best) {
			best = b
		}
		next := max(c, lo)
		if next == b {
			break
		}
		b = next
	}
	// Should the count flip with the digits, climb one token at a time:
	// the frame grows far slower than the budget, so this ends.
	for best == 0 {
		b++
		if count(b) <= b {
			best = b
		}
	}
	return best
}

// cutWarning says that the budget is below the frame, how big the frame
// is, and what the pack holds instead.
func (f *fitter) cutWarning(form frameForm, size int) string {
	p := f.p
	s := fmt.Sprintf("budget %s is below the frame of the pack (%s tokens): ", numfmt.Thousands(p.Budget), numfmt.Thousands(size))
	if len(f.items) > 0 {
		s += "every file was dropped, and "
	}
	empty := strings.TrimSuffix(packEmpty(p.Format), "\n")
	switch form {
	case frameShort:
		return s + "the pack holds only its title and this warning"
	case frameTitle:
		return s + "the pack holds only its title"
	case frameEmpty:
		return s + fmt.Sprintf("the pack is an empty document (%q)", empty)
	}
	return s + fmt.Sprintf("nothing was written: even an empty pack (%q) needs %s tokens",
		empty, numfmt.Thousands(f.counter.Count(packEmpty(p.Format))))
}

// packJSONCut is the JSON shape of a pack cut below its frame; the
// fields left out of a form are omitted.
type packJSONCut struct {
	Profile   string   `json:"profile,omitempty"`
	Name      string   `json:"name,omitempty"`
	Budget    int      `json:"budget,omitempty"`
	FrameOnly bool     `json:"frame_only,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// packRenderCut renders a pack cut below its frame (p.form past
// frameWhole) in format.
func packRenderCut(p *Pack, format string) []byte {
	if p.form == frameNone {
		return []byte{}
	}
	if p.form == frameEmpty {
		return []byte(packEmpty(format))
	}
	short := p.form == frameShort
	var b bytes.Buffer
	switch format {
	case "xml":
		fmt.Fprintf(&b, "<pack name=%s", packXMLAttr(p.Name))
		if short {
			fmt.Fprintf(&b, " profile=\"files\" budget=\"%d\" frame-only=\"true\">\n<warning>%s</warning>\n</pack>\n",
				p.Budget, packXMLText(p.frameWarning))
		} else {
			b.WriteString(" frame-only=\"true\"/>\n")
		}
	case "json":
		j := packJSONCut{Name: p.Name, FrameOnly: true}
		if short {
			j.Profile, j.Budget, j.Warnings = "files", p.Budget, []string{p.frameWarning}
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(j) // strings, ints and bools always encode
	default:
		fmt.Fprintf(&b, "# Pack: %s\n", p.Name)
		if short {
			fmt.Fprintf(&b, "\n> Warning: %s\n", p.frameWarning)
		}
	}
	return b.Bytes()
}
