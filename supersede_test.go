package lore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/facts"
	"github.com/lorekeep/lore/format/jsonl"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
)

// A fact that changes: the old record stays, with its history, and a
// packet for now shows the new one and names the old one as superseded,
// with its handle; a packet for a time before the change shows the old
// one and not the new. On bbolt and on etcd.
func TestSupersede(t *testing.T) {
	for _, backend := range []string{"bbolt", "etcd"} {
		t.Run(backend, func(t *testing.T) {
			clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			opts := &lore.Options{Now: func() time.Time { return clock }}
			target := t.TempDir() + "/.lore"
			if backend == "etcd" {
				target = etcdtest.URL(t)
				opts.LocalDir, opts.Engine = t.TempDir(), etcdtest.Options
			}
			if err := lore.Init(target); err != nil {
				t.Fatal(err)
			}
			l, err := lore.Open(target, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			checkSupersede(t, l, func(t0 time.Time) { clock = t0 })
		})
	}
}

func checkSupersede(t *testing.T, l *lore.Lore, setClock func(time.Time)) {
	ctx := context.Background()
	ns := "memory"
	for _, r := range []store.Record{
		{NS: ns, ID: "home-1", Kind: "memory", Body: "The user lives in Boston, near the harbour."},
		{NS: ns, ID: "pet", Kind: "memory", Body: "The user has a cat called Miso who lives with them."},
	} {
		if _, err := l.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	moved := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	setClock(moved)
	res, err := l.Supersede(ctx, store.Record{NS: ns, ID: "home-2", Kind: "memory", Body: "The user moved: they live in Chicago now."}, "home-1")
	if err != nil || res.Status != store.StatusAdded {
		t.Fatalf("supersede: %+v %v", res, err)
	}
	old, err := l.Get(ns, "home-1")
	if err != nil {
		t.Fatal(err)
	}
	if old.Version != 2 || old.Meta[facts.MetaValidUntil] != "2026-06-15T12:00:00Z" {
		t.Errorf("home-1 after: version %d, meta %v; want version 2 valid until the move", old.Version, old.Meta)
	}
	if h, err := l.History(ns, "home-1"); err != nil || len(h) < 1 || h[0].Meta[facts.MetaValidUntil] != "" {
		t.Errorf("home-1's first version is not kept as it was: %+v %v", h, err)
	}
	nw, _ := l.Get(ns, "home-2")
	if nw.Meta[facts.MetaValidFrom] != "2026-06-15T12:00:00Z" {
		t.Errorf("home-2 valid_from %q", nw.Meta[facts.MetaValidFrom])
	}
	links, err := l.Links(ns, "home-2", store.Out)
	if err != nil || !slices.ContainsFunc(links, func(k store.Link) bool { return k.Rel == facts.RelSupersedes && k.To == "home-1" }) {
		t.Errorf("links of home-2: %+v %v", links, err)
	}

	build := func(at string) (*packet.Packet, string) {
		p, err := l.Packet(ctx, packet.Request{NS: ns, Query: "where does the user live", Budget: 1000, Profile: "agent", At: at})
		if err != nil {
			t.Fatal(err)
		}
		text, err := p.Render("md")
		if err != nil {
			t.Fatal(err)
		}
		return p, string(text)
	}
	has := func(p *packet.Packet, id string) bool {
		return slices.ContainsFunc(p.Records, func(e packet.Entry) bool { return e.ID == id })
	}
	p, text := build("2026-12-01")
	if has(p, "home-1") || !has(p, "home-2") {
		t.Errorf("now: records %v; want home-2 and not home-1\n%s", ids(p), text)
	}
	if len(p.Superseded) != 1 || p.Superseded[0].ID != "home-1" || p.Superseded[0].By != "home-2" ||
		!strings.Contains(text, "## Superseded: 1 record\n") || !strings.Contains(text, "`lore get --ns memory home-1`") {
		t.Errorf("now: superseded %+v\n%s", p.Superseded, text)
	}
	if !slices.ContainsFunc(p.Skipped, func(s packet.Skip) bool {
		return s.ID == "home-1" && s.Reason == "superseded by home-2 on 2026-06-15T12:00:00Z"
	}) {
		t.Errorf("now: skipped %+v", p.Skipped)
	}
	p, text = build("2026-05-01")
	if !has(p, "home-1") || has(p, "home-2") || len(p.Superseded) != 0 {
		t.Errorf("before the move: records %v, superseded %+v; want home-1 alone\n%s", ids(p), p.Superseded, text)
	}
	if !slices.ContainsFunc(p.Skipped, func(s packet.Skip) bool { return s.ID == "home-2" && strings.HasPrefix(s.Reason, "not yet valid") }) {
		t.Errorf("before the move: skipped %+v", p.Skipped)
	}
	if _, err := l.Supersede(ctx, store.Record{NS: ns, ID: "x", Body: "x"}, "no-such"); err == nil || !strings.Contains(err.Error(), "no-such") {
		t.Errorf("superseding a missing record: %v", err)
	}
	if _, err := l.Supersede(ctx, store.Record{NS: ns, ID: "pet", Body: "x"}, "pet"); err == nil {
		t.Error("a record superseded itself")
	}
	if _, err := l.Packet(ctx, packet.Request{NS: ns, Query: "x", Budget: 1000, At: "last tuesday"}); err == nil || !strings.Contains(err.Error(), "last tuesday") {
		t.Errorf("a bad --at: %v", err)
	}
}

func ids(p *packet.Packet) []string {
	var out []string
	for _, e := range p.Records {
		out = append(out, e.ID)
	}
	return out
}

// Canon that changes in the story: Mara's eyes are green until chapter 9,
// grey from it. A draft packet for a scene shows the value that holds at
// its position, and export then import keeps validity and the link.
func TestSupersedeInStoryTime(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() + "/.lore"
	if err := lore.Init(dir); err != nil {
		t.Fatal(err)
	}
	l, err := lore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ns := "novel"
	recs := []store.Record{
		{NS: ns, ID: "mara", Kind: "character", Title: "Mara", Body: "Mara keeps the light."},
		{NS: ns, ID: "mara-eyes-green", Kind: "canon", Title: "Mara's eyes", Body: "Mara's eyes are green."},
		{NS: ns, ID: "scene-04", Kind: "scene", Title: "Scene four", Order: 4, Body: "Mara looked at the sea."},
		{NS: ns, ID: "scene-10", Kind: "scene", Title: "Scene ten", Order: 10, Body: "Mara looked at the sea again."},
	}
	if _, err := l.PutMany(ctx, recs, []store.Link{
		{NS: ns, From: "scene-04", Rel: "appears_in", To: "mara"}, {NS: ns, From: "scene-10", Rel: "appears_in", To: "mara"},
		{NS: ns, From: "mara-eyes-green", Rel: "about", To: "scene-04"}, {NS: ns, From: "mara-eyes-grey", Rel: "about", To: "scene-10"},
		{NS: ns, From: "mara-eyes-green", Rel: "about", To: "scene-10"},
	}); err != nil {
		t.Fatal(err)
	}
	grey := store.Record{NS: ns, ID: "mara-eyes-grey", Kind: "canon", Title: "Mara's eyes", Body: "Mara's eyes are grey.", Meta: map[string]string{facts.MetaValidFrom: "9"}}
	if _, err := l.Supersede(ctx, grey, "mara-eyes-green"); err != nil {
		t.Fatal(err)
	}
	check := func(l *lore.Lore, focus, want, not string) {
		t.Helper()
		p, err := l.Packet(ctx, packet.Request{NS: ns, Focus: []string{focus}, Task: "draft", Budget: 4000})
		if err != nil {
			t.Fatal(err)
		}
		got := ids(p)
		if !slices.Contains(got, want) || slices.Contains(got, not) {
			t.Errorf("draft %s: %v; want %s, not %s", focus, got, want, not)
		}
	}
	check(l, "scene-04", "mara-eyes-green", "mara-eyes-grey")
	check(l, "scene-10", "mara-eyes-grey", "mara-eyes-green")
	if g, _ := l.Get(ns, "mara-eyes-green"); g.Meta[facts.MetaValidUntil] != "8" {
		t.Errorf("green's valid_until %q; want 8, the position before grey's", g.Meta[facts.MetaValidUntil])
	}

	var export strings.Builder
	if err := l.Export(&export, ns); err != nil {
		t.Fatal(err)
	}
	recs2, links2, errs := jsonl.Read(strings.NewReader(export.String()), "export.jsonl", ns)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	dir2 := t.TempDir() + "/.lore"
	if err := lore.Init(dir2); err != nil {
		t.Fatal(err)
	}
	l2, err := lore.Open(dir2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if _, err := l2.Import(ctx, recs2, links2); err != nil {
		t.Fatal(err)
	}
	check(l2, "scene-04", "mara-eyes-green", "mara-eyes-grey")
	check(l2, "scene-10", "mara-eyes-grey", "mara-eyes-green")
}
