package packet

import (
	"reflect"
	"testing"

	"github.com/lorekeep/lore/store"
)

// TestBuildChangesNoSharedHead: a build reads the candidates' heads
// shared with the store's kept heads (store.Store.HeadsShared), so it
// must change none of them: after packets of both profiles, in every
// format, at small and large budgets, every head reads as it did before.
func TestBuildChangesNoSharedHead(t *testing.T) {
	recs, links := fxCanon()
	turns, turnLinks := fxTurns("chat", "t%02d", []string{
		"Mara: where did the ferryman hide the key?", "Tom: under the third stone of the quay.",
		"Mara: and the lantern?", "Tom: by the harbour wall, as always.",
	})
	env := fxOpen(t, append(recs, turns...), append(links, turnLinks...), true)
	heads := func() map[string][]store.Record {
		out := map[string][]store.Record{}
		for _, ns := range []string{"novel-a", "chat"} {
			var ids []string
			if err := env.st.ForEach(ns, func(r store.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
				t.Fatal(err)
			}
			hs, err := env.st.Heads(ns, ids)
			if err != nil {
				t.Fatal(err)
			}
			out[ns] = hs
		}
		return out
	}
	before := heads()
	for _, format := range validFormats {
		for _, budget := range []int{3000, 8000} {
			scene := fxSceneRequest(budget)
			scene.Format = format
			fxBuild(t, env, scene)
			fxBuild(t, env, Request{NS: "chat", Query: "where is the key and the lantern", Profile: "agent", Budget: budget, Format: format})
		}
	}
	if after := heads(); !reflect.DeepEqual(after, before) {
		t.Errorf("heads changed by building packets:\nbefore %+v\nafter  %+v", before, after)
	}
}
