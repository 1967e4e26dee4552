package lore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
)

// inPacket builds req at budget at and reports whether the packet holds
// id, and whether whole; a refused packet holds nothing.
func inPacket(t *testing.T, l *lore.Lore, req packet.Request, at int, id string) (in, whole bool) {
	t.Helper()
	req.Budget = at
	p, err := l.Packet(context.Background(), req)
	if errors.Is(err, packet.ErrCannotFit) {
		return false, false
	}
	if err != nil {
		t.Fatalf("packet at %d: %v", at, err)
	}
	i := slices.IndexFunc(p.Records, func(e packet.Entry) bool { return e.ID == id })
	if i < 0 {
		return false, false
	}
	return true, p.Records[i].Form == "full" && p.Records[i].Truncated == 0
}

// Why answers for every record of the demo canon at three budgets, and
// every budget it gives is exact: the packet at it holds the record (or
// shows it whole) and the packet one token under it does not.
func TestWhyEveryDemoRecordIsExact(t *testing.T) {
	l := demoStore(t)
	ctx := context.Background()
	requests := map[string]packet.Request{
		"tidewater-lamp": {NS: "tidewater-lamp", Focus: []string{"scene-03"}, Task: "draft", Query: "second light"},
		"glass-orchard":  {NS: "glass-orchard", Focus: []string{"scene-02"}, Task: "draft"},
	}
	statuses := map[string]int{}
	for ns, base := range requests {
		recs, _, err := l.Store().List(store.ListOptions{NS: ns, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) < 9 {
			t.Fatalf("%s: %d records; the demo canon has more", ns, len(recs))
		}
		for _, budgetTokens := range []int{2500, 4000, 8000} {
			req := base
			req.Budget = budgetTokens
			for _, r := range recs {
				v, err := l.Why(ctx, req, r.ID)
				if errors.Is(err, packet.ErrCannotFit) {
					continue // the request itself is refused at this budget
				}
				if err != nil {
					t.Fatalf("%s %s at %d: %v", ns, r.ID, budgetTokens, err)
				}
				statuses[v.Status]++
				in, whole := inPacket(t, l, req, budgetTokens, r.ID)
				if in != (v.Status == packet.StatusIn) {
					t.Errorf("%s %s at %d: status %s, but the packet holds it: %v", ns, r.ID, budgetTokens, v.Status, in)
				}
				if in && whole != (v.Form == "full") {
					t.Errorf("%s %s at %d: form %s, but whole: %v", ns, r.ID, budgetTokens, v.Form, whole)
				}
				checkOffer(t, l, v, budgetTokens)
			}
		}
	}
	for _, s := range []string{packet.StatusIn, packet.StatusDeferred, packet.StatusSkipped} {
		if statuses[s] == 0 {
			t.Errorf("no record was %s: %v; the test needs each", s, statuses)
		}
	}
}

// checkOffer checks the request a verdict offers: it holds the record at
// the budget given (whole, for WholeAt), and where that budget is a
// least budget above the asked one, not one token under it.
func checkOffer(t *testing.T, l *lore.Lore, v *packet.Verdict, asked int) {
	t.Helper()
	at := max(v.ComesInAt, v.WholeAt)
	if at == 0 {
		if v.Command != "" || v.Request != nil {
			t.Errorf("%s: a command with no budget: %q", v.ID, v.Command)
		}
		return
	}
	if v.Request == nil || v.Request.Budget != at || !strings.Contains(v.Command, "--budget "+itoa(at)) {
		t.Fatalf("%s: budget %d but request %+v, command %q", v.ID, at, v.Request, v.Command)
	}
	in, whole := inPacket(t, l, *v.Request, at, v.ID)
	if !in || v.WholeAt > 0 && !whole {
		t.Errorf("%s: %q does not hold it (in %v, whole %v)", v.ID, v.Command, in, whole)
	}
	if at > asked {
		in, whole := inPacket(t, l, *v.Request, at-1, v.ID)
		if v.WholeAt > 0 && whole || v.WholeAt == 0 && in {
			t.Errorf("%s: the least budget is %d, but %d holds it too (%q)", v.ID, at, at-1, v.Command)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for ; n > 0 || len(b) == 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// The wall: a record of another namespace is named as such, with the
// namespace that holds it, and an id no namespace holds as missing.
func TestWhyWallAndMissing(t *testing.T) {
	l := demoStore(t)
	req := packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-03"}, Budget: 4000}
	recs, _, err := l.Store().List(store.ListOptions{NS: "glass-orchard", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	only := ""
	for _, r := range recs {
		if h, err := l.Store().Heads("tidewater-lamp", []string{r.ID}); err == nil && len(h) == 0 {
			only = r.ID
			break
		}
	}
	if only == "" {
		t.Fatal("no glass-orchard id that tidewater-lamp lacks")
	}
	v, err := l.Why(context.Background(), req, only)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != packet.StatusOtherNamespace || !slices.Equal(v.Namespaces, []string{"glass-orchard"}) || !strings.Contains(v.Reason, "wall") {
		t.Errorf("%s: %+v; want the wall and glass-orchard", only, v)
	}
	v, err = l.Why(context.Background(), req, "no-such-record")
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != packet.StatusMissing || v.Command != "" {
		t.Errorf("missing id: %+v", v)
	}
	if _, err := l.Why(context.Background(), req, "bad\x00id"); err == nil || !strings.Contains(err.Error(), "bad\\x00id") {
		t.Errorf("a bad id: %v; want an error that quotes it", err)
	}
}

// WhyUpTo offers no budget above its ceiling (a server's output ceiling).
func TestWhyUpToCeiling(t *testing.T) {
	l := demoStore(t)
	req := packet.Request{NS: "tidewater-lamp", Focus: []string{"scene-03"}, Task: "draft", Query: "second light", Budget: 3000}
	v, err := l.Why(context.Background(), req, "scene-01")
	if err != nil || v.Status != packet.StatusDeferred || v.ComesInAt <= 3000 {
		t.Fatalf("scene-01 at 3000: %+v %v; want deferred, in at a larger budget", v, err)
	}
	ceiling := v.ComesInAt - 1
	capped, err := l.WhyUpTo(context.Background(), req, "scene-01", ceiling)
	if err != nil || capped.Ceiling != ceiling || capped.ComesInAt > ceiling {
		t.Fatalf("up to %d: %+v %v", ceiling, capped, err)
	}
	// The budget alone does not do it under the ceiling; a change may.
	if capped.ComesInAt > 0 && capped.Change == "" {
		t.Errorf("up to %d: budget %d offered with no change, but %d is the least", ceiling, capped.ComesInAt, v.ComesInAt)
	}
}
