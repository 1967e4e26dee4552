package store_test

import (
	"testing"

	"github.com/lorekeep/lore/store/storetest"
)

// TestConformance runs the store contract on both engines: bbolt in a
// temp file, etcd on the test binary's single embedded member.
func TestConformance(t *testing.T) {
	for _, b := range storetest.Backends {
		t.Run(b.Name, func(t *testing.T) { storetest.Conformance(t, b.Open) })
	}
}
