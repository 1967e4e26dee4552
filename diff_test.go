package lore_test

import (
	"context"
	"testing"

	"github.com/lorekeep/lore/packet"
)

// A packet compared with itself, or with its own JSON or XML file, is the
// same; across two budgets the changes are exactly the records one packet
// holds and the other does not, or holds in another form.
func TestDiffAcrossBudgets(t *testing.T) {
	l := demoStore(t)
	ctx := context.Background()
	for _, format := range []string{"json", "xml"} {
		for _, pair := range [][2]int{{2500, 4000}, {3000, 8000}, {4000, 3000}} {
			req := packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-03"}, Task: "draft", Query: "second light", Format: format}
			req.Budget = pair[0]
			pa, err := l.Packet(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			req.Budget = pair[1]
			pb, err := l.Packet(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			a, b := packet.ViewOf(pa), packet.ViewOf(pb)
			if d := packet.Compare(a, a); !d.Same || len(d.Changes) != 0 {
				t.Errorf("a packet against itself: %+v", d)
			}
			text, err := pa.Render(format)
			if err != nil {
				t.Fatal(err)
			}
			file, err := packet.ReadView(text)
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if d := packet.Compare(a, file); !d.Same {
				t.Errorf("%s: the packet against its own file: %+v", format, d.Changes)
			}
			d := packet.Compare(a, b)
			forms := func(p *packet.Packet) map[string]string {
				m := map[string]string{}
				for _, e := range p.Records {
					m[e.ID] = e.Form
				}
				return m
			}
			fa, fb := forms(pa), forms(pb)
			want := map[string]string{}
			for id, f := range fa {
				switch g, ok := fb[id]; {
				case !ok:
					want[id] = "removed"
				case g != f:
					want[id] = "form"
				}
			}
			for id := range fb {
				if _, ok := fa[id]; !ok {
					want[id] = "added"
				}
			}
			if len(want) == 0 {
				t.Fatalf("%s %v: the packets are the same; the test needs budgets that differ", format, pair)
			}
			got := map[string]string{}
			for _, c := range d.Changes {
				got[c.ID] = c.What
			}
			if d.Same || len(got) != len(want) {
				t.Errorf("%s %v: changes %v, want %v", format, pair, got, want)
			}
			for id, w := range want {
				if got[id] != w {
					t.Errorf("%s %v: %s is %q, want %q", format, pair, id, got[id], w)
				}
			}
		}
	}
}

// A markdown packet, or a file that is no packet, is refused by name.
func TestReadViewRefuses(t *testing.T) {
	for _, text := range []string{"# Context Packet: x (agent)\n", "{\"total\":{}}", "hello", "<packet><record kind=\"x\"/></packet>"} {
		if _, err := packet.ReadView([]byte(text)); err == nil {
			t.Errorf("%q: read as a packet", text)
		}
	}
}
