package lore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lorekeep/lore"
	"github.com/lorekeep/lore/packet"
	"github.com/lorekeep/lore/store"
	"github.com/lorekeep/lore/store/etcdstore/etcdtest"
)

func packetIDs(t *testing.T, l *lore.Lore, req packet.Request) []string {
	t.Helper()
	p, err := l.Packet(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range p.Records {
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	return ids
}

// On etcd another node writes without this one's knowing: the names a
// packet keeps across packets, or reads by word, are those of the
// revision it reads, so the other node's new alias is mentioned in the
// next packet, and its removal in the one after.
func TestEtcdNamesKeptFollowOtherNodesWrites(t *testing.T) {
	url := etcdtest.URL(t)
	if err := lore.Init(url); err != nil {
		t.Fatal(err)
	}
	a, b := openNode(t, url), openNode(t, url)
	ctx := context.Background()
	recs := []store.Record{
		{NS: "n", ID: "scene-1", Kind: "scene", Order: 1, Body: "Sefa rowed past the Needle to the old mill."},
		{NS: "n", ID: "sefa", Kind: "character", Title: "Sefa Dunmore", Aliases: []string{"Sefa"}, Body: "A pilot."},
		{NS: "n", ID: "mill", Kind: "location", Title: "Harrow Mill", Body: "Burnt."},
	}
	if _, err := a.PutMany(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	req := packet.Request{NS: "n", Focus: []string{"scene-1"}, Budget: 3000}
	check := func(step string, want ...string) {
		t.Helper()
		if got := packetIDs(t, a, req); !slices.Equal(got, want) {
			t.Errorf("%s: node a's packet has %v; want %v", step, got, want)
		}
	}
	check("before", "scene-1", "sefa") // names read by word
	check("again", "scene-1", "sefa")  // read whole, and kept
	h0, _ := packet.NameStats()
	check("a third time", "scene-1", "sefa")
	if h1, _ := packet.NameStats(); h1 <= h0 {
		t.Errorf("the third packet with no write between did not use the kept names (hits %d -> %d)", h0, h1)
	}
	if _, err := b.Put(ctx, store.Record{NS: "n", ID: "mill", Kind: "location", Title: "Harrow Mill", Aliases: []string{"the old mill"}, Body: "Burnt."}); err != nil {
		t.Fatal(err)
	}
	check("after node b named the mill", "mill", "scene-1", "sefa")
	if _, err := b.Put(ctx, store.Record{NS: "n", ID: "sefa", Kind: "character", Title: "Sefa Dunmore", Body: "A pilot."}); err != nil {
		t.Fatal(err)
	}
	check("after node b took Sefa's alias away", "mill", "scene-1")
}
